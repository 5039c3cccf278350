/**
 * The in-place freeze of a fresh `JSON.parse` result ({@link snapshotJson} with `copy: false`)
 * and its variant for argument text, which stops where `JSON.parse` may have rounded an integer.
 * Internal: not exported from the package (`index.ts` re-exports `json.ts`, not this module).
 */
import { MAX_JSON_DEPTH } from './limits'

/** {@link freezeParsed}: the value is frozen. */
export const FROZEN = 0
/** {@link freezeParsed}: a non-finite number, or nesting past {@link MAX_JSON_DEPTH}. */
const PROBLEM = 1
/** {@link freezeParsed}: a number beyond ±`Number.MAX_SAFE_INTEGER` (`stopAtUnsafe` only). */
const UNSAFE_NUMBER = 2

/**
 * Freezes a `JSON.parse` result in place (children before their container). Returns `PROBLEM` at
 * a non-finite number or past the depth limit; with `stopAtUnsafe`, `UNSAFE_NUMBER` at the first
 * number beyond ±`Number.MAX_SAFE_INTEGER` — ±Infinity included, which an integer literal of 309
 * digits or more parses to — before any container on its path is frozen.
 */
export function freezeParsed(v: unknown, depth: number, stopAtUnsafe: boolean): number {
  if (typeof v === 'number') {
    if (stopAtUnsafe && (v > Number.MAX_SAFE_INTEGER || v < -Number.MAX_SAFE_INTEGER)) return UNSAFE_NUMBER
    return Number.isFinite(v) ? FROZEN : PROBLEM
  }
  if (v === null || typeof v !== 'object') return FROZEN
  if (depth >= MAX_JSON_DEPTH) return PROBLEM
  let outcome = FROZEN
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length && outcome === FROZEN; i++) outcome = freezeParsed(v[i], depth + 1, stopAtUnsafe)
  } else {
    for (const key in v) {
      outcome = freezeParsed((v as Record<string, unknown>)[key], depth + 1, stopAtUnsafe)
      if (outcome !== FROZEN) break
    }
  }
  if (outcome === FROZEN) Object.freeze(v)
  return outcome
}

/** What {@link freezeParsedArguments} did. */
export type ParsedArgumentsFreeze = 'frozen' | 'unsafe-number' | 'problem'

/**
 * Freezes a fresh `JSON.parse` result in place, as `snapshotJson` with `copy: false` does, but
 * stops at the first number beyond ±`Number.MAX_SAFE_INTEGER` (`'unsafe-number'`; ±Infinity
 * too): JSON.parse may have rounded it, and every container on its path is still unfrozen, so the
 * exact digits can be substituted before freezing again with `allowUnsafe`. `'problem'`: a
 * non-finite number (with `allowUnsafe`) or nesting past the depth limit; `snapshotJson` names it.
 */
export function freezeParsedArguments(value: unknown, allowUnsafe: boolean): ParsedArgumentsFreeze {
  const outcome = freezeParsed(value, 0, !allowUnsafe)
  return outcome === FROZEN ? 'frozen' : outcome === UNSAFE_NUMBER ? 'unsafe-number' : 'problem'
}
