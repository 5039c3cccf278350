/**
 * The frozen plain-object copies of `snapshotJson` (and of tool results) built through the
 * literal factories of `json-literal.ts`: same keys, order and values as a key-by-key copy, each
 * getter read once, hostile keys and key lists past the bounds copied exactly, and the factory
 * count bounded.
 */
import { describe, expect, test } from 'vitest'
import { snapshotJson } from '../src/json'
import { copyPlain } from '../src/json-freeze'
import { literalFactoryCount, MAX_FACTORIES, MAX_LITERAL_KEYS } from '../src/json-literal'

const copy = (value: unknown): unknown => {
  const snap = snapshotJson(value, { dropUndefined: true })
  if (!snap.ok) throw new Error(`not JSON: ${snap.problem.pointer} ${snap.problem.message}`)
  return snap.value
}

describe('literal-factory copies', () => {
  test('keys, order and values as given; the copy is a fresh frozen plain object; undefined members dropped', () => {
    const source = { b: 1, a: 'x', 10: true, 2: null, nested: { z: [1, { y: 2 }] }, gone: undefined }
    const out = copy(source) as Record<string, unknown>
    expect(Object.keys(out)).toEqual(['2', '10', 'b', 'a', 'nested'])
    expect(out).toEqual({ 2: null, 10: true, b: 1, a: 'x', nested: { z: [1, { y: 2 }] } })
    expect(out).not.toBe(source)
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype)
    expect(Object.isFrozen(out)).toBe(true)
    expect(Object.isFrozen(out.nested)).toBe(true)
    source.b = 2
    expect(out.b).toBe(1)
  })

  test('the same key list twice gives equal copies with the second object’s values', () => {
    expect(copy({ p: 1, q: 'one' })).toEqual({ p: 1, q: 'one' })
    expect(copy({ p: 2, q: 'two' })).toEqual({ p: 2, q: 'two' })
    expect(copy({ q: 'three', p: 3 })).toEqual({ q: 'three', p: 3 })
    expect(Object.keys(copy({ q: 'three', p: 3 }) as object)).toEqual(['q', 'p'])
  })

  test('keys that are awkward in source text are copied as data: quotes, backslashes, line separators, lone surrogates, code', () => {
    const keys = ['"', '\\', '\u2028', '\u2029', '\ud800', '}; throw new Error("x"); ({', 'a\nb', '', 'constructor', 'toString', '__defineGetter__']
    const source: Record<string, number> = {}
    keys.forEach((key, i) => (source[key] = i))
    const out = copy(source) as Record<string, number>
    expect(Object.keys(out)).toEqual(keys)
    keys.forEach((key, i) => expect(Object.getOwnPropertyDescriptor(out, key)).toEqual({ value: i, writable: false, enumerable: true, configurable: false }))
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype)
  })

  test('an own __proto__ key is never written into a literal: the full walk copies it as data', () => {
    const source = JSON.parse('{"a":1,"__proto__":{"polluted":true}}') as Record<string, unknown>
    const out = copy(source) as Record<string, unknown>
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype)
    expect(Object.keys(out)).toEqual(['a', '__proto__'])
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toEqual({ polluted: true })
    expect(({} as { polluted?: boolean }).polluted).toBe(undefined)
  })

  test('each getter is read once; a getter that copies JSON itself (re-entry) does not disturb the outer copy', () => {
    let reads = 0
    const source = {
      first: 1,
      get inner() {
        reads++
        return copy({ first: 'inner', inner: 'nested', last: false })
      },
      last: true,
    }
    const out = copy(source) as Record<string, unknown>
    expect(reads).toBe(1)
    expect(out).toEqual({ first: 1, inner: { first: 'inner', inner: 'nested', last: false }, last: true })
  })

  test('a throwing getter leaves the copy to the full walk, which names the problem', () => {
    const source = {
      ok: 1,
      get bad(): number {
        throw new Error('boom')
      },
    }
    const snap = snapshotJson(source, { dropUndefined: true })
    expect(snap).toEqual({ ok: false, problem: { pointer: '', message: 'could not be read (boom)' } })
    // The next copy still works (the scratch arrays were released by the throw).
    expect(copy({ ok: 2 })).toEqual({ ok: 2 })
  })

  test(`an object of more than ${MAX_LITERAL_KEYS} keys (here 5,000) is copied key by key, exactly`, () => {
    const source: Record<string, number> = {}
    for (let i = 0; i < 5000; i++) source[`k${i}`] = i
    const out = copy(source) as Record<string, number>
    expect(Object.keys(out)).toHaveLength(5000)
    expect(out.k0).toBe(0)
    expect(out.k4999).toBe(4999)
    expect(Object.isFrozen(out)).toBe(true)
    expect(copy({ small: 1 })).toEqual({ small: 1 })
  })

  test(`at most ${MAX_FACTORIES} factories are made; later key lists are still copied exactly`, () => {
    for (let i = 0; i < MAX_FACTORIES + 40; i++) {
      const key = `shape${i}`
      expect(copy({ [key]: i, tail: 'x' })).toEqual({ [key]: i, tail: 'x' })
    }
    expect(literalFactoryCount()).toBe(MAX_FACTORIES)
    expect(copy({ late: 'shape', after: 'the bound' })).toEqual({ late: 'shape', after: 'the bound' })
  })

  test('a value that is not plain JSON is still left undecided (undefined) for the full walk', () => {
    expect(copyPlain({ a: new Date(0) }, 0, true)).toBe(undefined)
    expect(copyPlain({ a: Number.NaN }, 0, true)).toBe(undefined)
    expect(copyPlain({ a: undefined }, 0, false)).toBe(undefined)
    expect(copyPlain({ a: () => 1 }, 0, true)).toBe(undefined)
    expect(copyPlain({ a: undefined, b: 1 }, 0, true)).toEqual({ b: 1 })
  })
})
