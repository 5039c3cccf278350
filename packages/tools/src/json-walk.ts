/**
 * The full walk of {@link snapshotJson} (`json.ts`): checks every value, copies (or freezes in
 * place) and names the first problem by its JSON pointer. The pipeline calls it directly after
 * its own lean copy (`copyPlain`) gave up, so that pass is not made twice.
 * Internal: not exported from the package (`index.ts` re-exports `json.ts`, which re-exports
 * `escapePointer` from here).
 */
import type { JsonValue } from './contracts'
import type { JsonProblem, SnapshotResult } from './json'
import { MAX_JSON_DEPTH } from './limits'

/**
 * Walks `value` as {@link snapshotJson} describes: with `copy`, into a frozen copy; without, it
 * checks and freezes in place. `dropUndefined` treats `undefined` as `JSON.stringify` does.
 */
export function walkJson(value: unknown, copy: boolean, dropUndefined: boolean): SnapshotResult {
  const walker = new Walker(copy, dropUndefined)
  try {
    const result = walker.walk(value)
    if (result === undefined) return { ok: false, problem: walker.problem ?? { pointer: '', message: 'is not JSON' } }
    return { ok: true, value: result }
  } catch (error) {
    // A throwing getter or proxy trap.
    return { ok: false, problem: { pointer: '', message: `could not be read (${error instanceof Error ? error.message : String(error)})` } }
  }
}

/**
 * One snapshot walk. The path is kept as a stack of keys and turned into a JSON pointer only
 * when a problem is found (no string is built per key on the common, valid path).
 */
class Walker {
  readonly objects: object[] = []
  readonly keys: (string | number)[] = []
  problem: JsonProblem | undefined

  constructor(
    readonly copy: boolean,
    readonly dropUndefined: boolean,
  ) {}

  fail(message: string, extraKey?: string | number): undefined {
    const keys = extraKey === undefined ? this.keys : [...this.keys, extraKey]
    this.problem = { pointer: keys.map((k) => `/${typeof k === 'number' ? k : escapePointer(k)}`).join(''), message }
    return undefined
  }

  walk(v: unknown): JsonValue | undefined {
    switch (typeof v) {
      case 'string':
      case 'boolean':
        return v
      case 'number':
        return Number.isFinite(v) ? v : this.fail(`${v} is not a JSON number`)
      case 'object':
        return v === null ? null : this.walkObject(v)
      case 'undefined':
        return this.fail('is undefined')
      case 'bigint':
        return this.fail('is a BigInt')
      default:
        return this.fail(`is a ${typeof v}`)
    }
  }

  walkObject(v: object): JsonValue | undefined {
    const objects = this.objects
    if (objects.includes(v)) return this.fail('is a circular reference')
    if (objects.length >= MAX_JSON_DEPTH) return this.fail(`nests deeper than ${MAX_JSON_DEPTH} levels`)
    const copy = this.copy
    const keys = this.keys
    objects.push(v)
    try {
      if (Array.isArray(v)) {
        const out: JsonValue[] = copy ? new Array(v.length) : (v as JsonValue[])
        for (let i = 0; i < v.length; i++) {
          if (!(i in v)) return this.fail('is a hole in a sparse array', i)
          keys.push(i)
          const element: unknown = v[i]
          const item = element === undefined && this.dropUndefined ? null : this.walk(element)
          if (item === undefined) return undefined
          keys.pop()
          if (copy) out[i] = item
        }
        return Object.freeze(out) as JsonValue
      }
      const proto = Object.getPrototypeOf(v) as unknown
      if (proto !== Object.prototype && proto !== null) {
        const name = (v as { constructor?: { name?: unknown } }).constructor?.name
        const label = typeof name === 'string' && name !== '' ? name : 'non-plain'
        return this.fail(`is ${/^[AEIOU]/i.test(label) ? 'an' : 'a'} ${label} object, not plain JSON`)
      }
      const out: Record<string, JsonValue> = copy ? {} : (v as Record<string, JsonValue>)
      for (const key of Object.keys(v)) {
        const member = (v as Record<string, unknown>)[key]
        if (member === undefined && this.dropUndefined) continue
        keys.push(key)
        const item = this.walk(member)
        if (item === undefined) return undefined
        keys.pop()
        if (copy) {
          if (key === '__proto__') Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true })
          else out[key] = item
        }
      }
      return Object.freeze(out)
    } finally {
      objects.pop()
    }
  }
}

/** Escapes a property name for a JSON pointer (RFC 6901). */
export function escapePointer(key: string): string {
  return key.includes('~') || key.includes('/') ? key.replace(/~/g, '~0').replace(/\//g, '~1') : key
}
