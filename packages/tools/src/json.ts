/**
 * Lossless JSON snapshots (docs/design.md, "The batch and the pipeline" prepare: "lossless-JSON snapshot and
 * deep-freeze"). A value is accepted only when a JSON round trip would reproduce it exactly.
 */
import type { JsonValue } from './contracts'

/** Why a value is not lossless JSON: a JSON pointer and a description. */
export interface JsonProblem {
  readonly pointer: string
  readonly message: string
}

/** Result of {@link snapshotJson}. */
export type SnapshotResult = { readonly ok: true; readonly value: JsonValue } | { readonly ok: false; readonly problem: JsonProblem }

const MAX_DEPTH = 512

/**
 * Deep-copies `value` into frozen plain JSON, rejecting what JSON cannot carry losslessly:
 * `undefined`, functions, symbols, BigInt, non-finite numbers, cycles, class instances other
 * than plain objects and arrays, sparse arrays, and nesting deeper than 512 levels.
 * With `copy: false` (a value fresh from `JSON.parse`) it freezes in place after checking.
 */
export function snapshotJson(value: unknown, options?: { readonly copy?: boolean }): SnapshotResult {
  const walker = new Walker(options?.copy !== false)
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

  constructor(readonly copy: boolean) {}

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
    if (objects.length >= MAX_DEPTH) return this.fail(`nests deeper than ${MAX_DEPTH} levels`)
    const copy = this.copy
    const keys = this.keys
    objects.push(v)
    try {
      if (Array.isArray(v)) {
        const out: JsonValue[] = copy ? new Array(v.length) : (v as JsonValue[])
        for (let i = 0; i < v.length; i++) {
          if (!(i in v)) return this.fail('is a hole in a sparse array', i)
          keys.push(i)
          const item = this.walk(v[i])
          if (item === undefined) return undefined
          keys.pop()
          if (copy) out[i] = item
        }
        return Object.freeze(out) as JsonValue
      }
      const proto = Object.getPrototypeOf(v) as unknown
      if (proto !== Object.prototype && proto !== null) {
        const name = (v as { constructor?: { name?: unknown } }).constructor?.name
        return this.fail(`is a ${typeof name === 'string' ? name : 'non-plain'} object, not plain JSON`)
      }
      const out: Record<string, JsonValue> = copy ? {} : (v as Record<string, JsonValue>)
      for (const key of Object.keys(v)) {
        keys.push(key)
        const item = this.walk((v as Record<string, unknown>)[key])
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

/** Deep-freezes an already-plain JSON value in place and returns it. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
  }
  return value
}
