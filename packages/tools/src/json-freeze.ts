/**
 * The lean passes of `snapshotJson` (`json.ts`): the in-place freeze of a fresh `JSON.parse`
 * result (`copy: false`), its variant for argument text, which stops where `JSON.parse` may have
 * rounded an integer, and the frozen copy of plain JSON (an object's copy built in one literal by
 * its key list's factory, `json-literal.ts`). The pipeline calls them directly on its
 * per-call paths (no options or result object per call) and hands whatever they leave undecided
 * to the full walk (`json-walk.ts`), which names the problem.
 * Internal: not exported from the package (`index.ts` re-exports `json.ts`, not this module).
 */
import type { JsonValue } from './contracts'
import { MAX_JSON_DEPTH } from './limits'
import { literalFactory, MAX_LITERAL_KEYS } from './json-literal'

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
  if (v === null || typeof v !== 'object') return leafOutcome(v, stopAtUnsafe)
  if (depth >= MAX_JSON_DEPTH) return PROBLEM
  let outcome = FROZEN
  // A member that is no container is judged here, without a recursive call per member.
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length && outcome === FROZEN; i++) {
      const member: unknown = v[i]
      outcome = member !== null && typeof member === 'object' ? freezeParsed(member, depth + 1, stopAtUnsafe) : leafOutcome(member, stopAtUnsafe)
    }
  } else {
    for (const key in v) {
      const member = (v as Record<string, unknown>)[key]
      outcome = member !== null && typeof member === 'object' ? freezeParsed(member, depth + 1, stopAtUnsafe) : leafOutcome(member, stopAtUnsafe)
      if (outcome !== FROZEN) break
    }
  }
  if (outcome === FROZEN) Object.freeze(v)
  return outcome
}

/** {@link freezeParsed} of a value that is no container: only a number can be a problem. */
function leafOutcome(v: unknown, stopAtUnsafe: boolean): number {
  if (typeof v !== 'number') return FROZEN
  if (stopAtUnsafe && (v > Number.MAX_SAFE_INTEGER || v < -Number.MAX_SAFE_INTEGER)) return UNSAFE_NUMBER
  return Number.isFinite(v) ? FROZEN : PROBLEM
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

/**
 * A frozen copy of plain JSON (plain objects and arrays, strings, booleans, finite numbers,
 * `null`; with `dropUndefined`, an `undefined` member dropped and an `undefined` element `null`),
 * or `undefined` wherever the full walk of `snapshotJson` must judge: a class instance, a cycle
 * or nesting past the depth limit, a hole, a `__proto__` key, anything else. May throw (a getter,
 * a proxy trap): the full walk reports that too.
 */
export function copyPlain(v: unknown, depth: number, dropUndefined: boolean): JsonValue | undefined {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v
    case 'number':
      return Number.isFinite(v) ? v : undefined
    case 'object':
      break
    default:
      return undefined
  }
  if (v === null) return null
  // Past the depth limit (cycles end here too) the full walk names the problem.
  if (depth >= MAX_JSON_DEPTH) return undefined
  if (Array.isArray(v)) {
    const out: JsonValue[] = new Array(v.length)
    for (let i = 0; i < v.length; i++) {
      const element: unknown = v[i]
      if (element === undefined) {
        if (!dropUndefined || !(i in v)) return undefined
        out[i] = null
        continue
      }
      const item = copyPlain(element, depth + 1, dropUndefined)
      if (item === undefined) return undefined
      out[i] = item
    }
    return Object.freeze(out) as JsonValue
  }
  const proto = Object.getPrototypeOf(v) as unknown
  if (proto !== Object.prototype && proto !== null) return undefined
  return copyObject(v as Record<string, unknown>, depth, dropUndefined)
}

/**
 * Keys and copied members of an object {@link copyObject} is copying: a pair of arrays per
 * nesting depth, reused by every copy at that depth instead of stores into the new object (see
 * `json-literal.ts`). A copy that finds its depth's pair in use (a getter that copies JSON
 * itself) takes a fresh pair of its own.
 */
interface Scratch {
  readonly keys: string[]
  readonly values: JsonValue[]
  busy: boolean
}
const scratches: Scratch[] = []

function takeScratch(depth: number): Scratch {
  const kept = scratches[depth]
  if (kept === undefined) return (scratches[depth] = { keys: [], values: [], busy: true })
  if (kept.busy) return { keys: [], values: [], busy: true }
  kept.busy = true
  return kept
}

/**
 * The object branch of {@link copyPlain} (prototype checked) through a scratch pair: members
 * are read and judged in `for…in` order, each getter once, then the copy is built in one literal
 * by the key list's factory (`json-literal.ts`), or key by key past its bounds. The scratch
 * values are cleared afterwards (nothing of the caller's stays reachable), and arrays grown past
 * {@link MAX_LITERAL_KEYS} entries are released.
 */
function copyObject(v: Record<string, unknown>, depth: number, dropUndefined: boolean): JsonValue | undefined {
  const scratch = takeScratch(depth)
  const { keys: scratchKeys, values: scratchValues } = scratch
  let n = 0
  try {
    for (const key in v) {
      if (key === '__proto__') return undefined
      const member = v[key]
      let item: JsonValue | undefined
      // A member that is no container is judged here, without a recursive call per member.
      switch (typeof member) {
        case 'string':
        case 'boolean':
          item = member
          break
        case 'number':
          if (!Number.isFinite(member)) return undefined
          item = member
          break
        case 'undefined':
          if (dropUndefined) continue
          return undefined
        default:
          item = copyPlain(member, depth + 1, dropUndefined)
          if (item === undefined) return undefined
      }
      scratchKeys[n] = key
      scratchValues[n] = item
      n++
    }
    const build = literalFactory(scratchKeys, n)
    let out: Record<string, JsonValue>
    if (build !== undefined) out = build(scratchValues)
    else {
      out = {}
      for (let i = 0; i < n; i++) out[scratchKeys[i]!] = scratchValues[i]!
    }
    return Object.freeze(out)
  } finally {
    scratch.busy = false
    if (n > MAX_LITERAL_KEYS) {
      scratchKeys.length = 0
      scratchValues.length = 0
    } else for (let i = 0; i < n; i++) scratchValues[i] = null
  }
}
