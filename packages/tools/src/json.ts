/**
 * Lossless JSON snapshots (docs/design.md, "The batch and the pipeline" prepare: "lossless-JSON snapshot and
 * deep-freeze"). A value is accepted only when a JSON round trip would reproduce it exactly.
 */
import type { JsonValue } from './contracts'
import { MAX_JSON_DEPTH } from './limits'
import { copyPlain, freezeParsed, FROZEN, LEAN_COPY_FAILED } from './json-freeze'

/** Why a value is not lossless JSON: a JSON pointer and a description. */
export interface JsonProblem {
  readonly pointer: string
  readonly message: string
}

/** Result of {@link snapshotJson}. */
export type SnapshotResult = { readonly ok: true; readonly value: JsonValue } | { readonly ok: false; readonly problem: JsonProblem }

/** Options of {@link snapshotJson}. */
export interface SnapshotOptions {
  /** `false` for a value fresh from `JSON.parse`: checked and frozen in place. Default `true`. */
  readonly copy?: boolean
  /**
   * Treat `undefined` as `JSON.stringify` does: an object member whose value is `undefined` is
   * dropped, an `undefined` array element becomes `null`. The root must still be defined.
   * Used for tool results (a body's `{ email: undefined }` is `{}`), never for arguments.
   * Default `false` (`undefined` anywhere is a problem).
   */
  readonly dropUndefined?: boolean
}

/**
 * Deep-copies `value` into frozen plain JSON, rejecting what JSON cannot carry losslessly:
 * `undefined` (unless `dropUndefined`), functions, symbols, BigInt, non-finite numbers,
 * cycles, class instances other than plain objects and arrays, sparse arrays, and nesting
 * deeper than {@link MAX_JSON_DEPTH} levels. With `copy: false` (a value fresh from
 * `JSON.parse`) it freezes in place after checking.
 */
export function snapshotJson(value: unknown, options?: SnapshotOptions): SnapshotResult {
  // A value fresh from JSON.parse is a tree of plain objects and arrays: only non-finite numbers
  // (`1e400`) and depth can be wrong, so it is frozen in one lean pass; a problem found there is
  // described by the full walk below, which names its pointer.
  if (options?.copy === false && options.dropUndefined !== true) {
    if (freezeParsed(value, 0, false) === FROZEN) return { ok: true, value: value as JsonValue }
  } else if (options !== LEAN_COPY_FAILED) {
    // Plain JSON (the common tool result) is copied in one lean pass; anything unusual — a class
    // instance, a cycle, a hole, a `__proto__` key, a throwing getter — is left to the full walk.
    try {
      const copied = copyPlain(value, 0, options?.dropUndefined === true)
      if (copied !== undefined) return { ok: true, value: copied }
    } catch {
      // The full walk reports it.
    }
  }
  const walker = new Walker(options?.copy !== false || options?.dropUndefined === true, options?.dropUndefined === true)
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
        return this.fail(`is a ${typeof name === 'string' ? name : 'non-plain'} object, not plain JSON`)
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

/** Deep-freezes an already-plain JSON value in place and returns it. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
  }
  return value
}
