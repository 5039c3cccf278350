/**
 * Lossless JSON snapshots (docs/design.md, "The batch and the pipeline", stage 1: prepare takes
 * a lossless JSON snapshot of the arguments and deep-freezes it). A value is accepted only when
 * a JSON round trip would reproduce it exactly.
 */
import type { JsonValue } from './contracts'
import { MAX_JSON_DEPTH } from './limits'
import { copyPlain, freezeParsed, FROZEN } from './json-freeze'
import { walkJson } from './json-walk'

export { escapePointer } from './json-walk'

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
  } else {
    // Plain JSON (the common tool result) is copied in one lean pass; anything unusual — a class
    // instance, a cycle, a hole, a `__proto__` key, a throwing getter — is left to the full walk.
    try {
      const copied = copyPlain(value, 0, options?.dropUndefined === true)
      if (copied !== undefined) return { ok: true, value: copied }
    } catch {
      // The full walk reports it.
    }
  }
  return walkJson(value, options?.copy !== false || options?.dropUndefined === true, options?.dropUndefined === true)
}

/** Deep-freezes an already-plain JSON value in place and returns it. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
  }
  return value
}
