/**
 * Lossless JSON snapshots (ARCHITECTURE §4.3 prepare: "lossless-JSON snapshot and
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
  const copy = options?.copy !== false
  const stack: object[] = []
  let problem: JsonProblem | undefined
  const walk = (v: unknown, pointer: string): JsonValue | undefined => {
    switch (typeof v) {
      case 'string':
      case 'boolean':
        return v
      case 'number':
        if (Number.isFinite(v)) return v
        problem = { pointer, message: `${v} is not a JSON number` }
        return undefined
      case 'object': {
        if (v === null) return null
        if (stack.includes(v)) {
          problem = { pointer, message: 'is a circular reference' }
          return undefined
        }
        if (stack.length >= MAX_DEPTH) {
          problem = { pointer, message: `nests deeper than ${MAX_DEPTH} levels` }
          return undefined
        }
        stack.push(v)
        try {
          if (Array.isArray(v)) {
            const out: JsonValue[] = copy ? new Array(v.length) : (v as JsonValue[])
            for (let i = 0; i < v.length; i++) {
              if (!(i in v)) {
                problem = { pointer: `${pointer}/${i}`, message: 'is a hole in a sparse array' }
                return undefined
              }
              const item = walk(v[i], `${pointer}/${i}`)
              if (item === undefined) return undefined
              if (copy) out[i] = item
            }
            return Object.freeze(out) as JsonValue
          }
          const proto = Object.getPrototypeOf(v) as unknown
          if (proto !== Object.prototype && proto !== null) {
            const name = (v as { constructor?: { name?: unknown } }).constructor?.name
            problem = { pointer, message: `is a ${typeof name === 'string' ? name : 'non-plain'} object, not plain JSON` }
            return undefined
          }
          const out: Record<string, JsonValue> = copy ? {} : (v as Record<string, JsonValue>)
          for (const key of Object.keys(v)) {
            const item = walk((v as Record<string, unknown>)[key], `${pointer}/${escapePointer(key)}`)
            if (item === undefined) return undefined
            if (copy) {
              if (key === '__proto__') Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true })
              else out[key] = item
            }
          }
          return Object.freeze(out)
        } finally {
          stack.pop()
        }
      }
      case 'undefined':
        problem = { pointer, message: 'is undefined' }
        return undefined
      case 'bigint':
        problem = { pointer, message: 'is a BigInt' }
        return undefined
      default:
        problem = { pointer, message: `is a ${typeof v}` }
        return undefined
    }
  }
  try {
    const result = walk(value, '')
    if (result === undefined) return { ok: false, problem: problem ?? { pointer: '', message: 'is not JSON' } }
    return { ok: true, value: result }
  } catch (error) {
    // A throwing getter or proxy trap.
    return { ok: false, problem: { pointer: '', message: `could not be read (${error instanceof Error ? error.message : String(error)})` } }
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
