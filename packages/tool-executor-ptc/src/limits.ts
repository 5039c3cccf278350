/**
 * Limits of one program run and their validation (docs/design.md, "PTC executor": limits on compute time, wall
 * time, memory, total output bytes, value bytes crossing the boundary, and sub-call count).
 */
// MAX_TIMER_MS (2,147,483,647, the largest delay a Node.js timer accepts) is also the upper bound of counts and byte sizes.
import { MAX_TIMER_MS, suggestKey } from '@deepseek-ai/dsh-tools'

/**
 * The limits of one program run. Every field is a positive finite number.
 *
 * - `computeMs`: CPU time the guest may spend running (ms). Exceeded → `timeout`.
 * - `wallMs`: wall-clock time from the start of the run to its settlement (ms). Exceeded → `timeout`.
 * - `memoryBytes`: the sandbox heap (bytes). QuickJS's allocator limit is set to it, and the
 *   WebAssembly memory can never grow past `16 MiB + 2 × memoryBytes`, the hard cap on what a
 *   run can take from the host (see `runtime/module-pool.ts`). Exceeded → `memory`.
 * - `outputBytes`: UTF-8 bytes of everything the model sees: printed lines (one newline each) plus
 *   the rendered return value. Exceeded → `output-limit`.
 * - `valueBytes`: UTF-8 bytes of one value crossing the boundary: a sub-call's JSON argument or a
 *   sub-call's JSON result. Exceeded → that call rejects inside the program (`RangeError`).
 * - `maxSubCalls`: number of sub-calls a run may issue (integer). The next call rejects inside the
 *   program with a `RangeError`; uncaught, the run fails as `exception`.
 * - `stackBytes`: optional QuickJS stack budget (bytes, ≤ 4 MiB). Exceeded → `exception`
 *   (`InternalError: stack overflow`).
 */
export interface RunLimits {
  readonly computeMs: number
  readonly wallMs: number
  readonly memoryBytes: number
  readonly outputBytes: number
  readonly valueBytes: number
  readonly maxSubCalls: number
  readonly stackBytes?: number
}

/** Upper bound of `memoryBytes` (1 GiB): the hard cap `16 MiB + 2 × memoryBytes` must fit in 32-bit WebAssembly memory. */
export const MAX_MEMORY_BYTES = 1_073_741_824

/** Upper bound of `stackBytes` (4 MiB): the QuickJS build reserves a 5 MiB C stack. */
export const MAX_STACK_BYTES = 4_194_304

/** Default QuickJS stack budget (256 KiB: about 1,300 frames of a simple recursive function). */
export const DEFAULT_STACK_BYTES = 262_144

/** Defaults applied by {@link validateLimits} to absent fields. */
export const DEFAULT_RUN_LIMITS: Readonly<Required<RunLimits>> = Object.freeze({
  computeMs: 5_000,
  wallMs: 60_000,
  memoryBytes: 64 * 1024 * 1024,
  outputBytes: 64 * 1024,
  valueBytes: 4 * 1024 * 1024,
  maxSubCalls: 1_000,
  stackBytes: DEFAULT_STACK_BYTES,
})

interface FieldRule {
  readonly max: number
  readonly integer: boolean
  readonly unit: string
}

const RULES: Readonly<Record<keyof RunLimits, FieldRule>> = {
  computeMs: { max: MAX_TIMER_MS, integer: false, unit: 'ms' },
  wallMs: { max: MAX_TIMER_MS, integer: false, unit: 'ms' },
  memoryBytes: { max: MAX_MEMORY_BYTES, integer: true, unit: 'bytes' },
  outputBytes: { max: MAX_TIMER_MS, integer: true, unit: 'bytes' },
  valueBytes: { max: MAX_TIMER_MS, integer: true, unit: 'bytes' },
  maxSubCalls: { max: MAX_TIMER_MS, integer: true, unit: 'calls' },
  stackBytes: { max: MAX_STACK_BYTES, integer: true, unit: 'bytes' },
}

/** The fields of {@link RunLimits}, in the order messages list them. */
export const RUN_LIMIT_KEYS: readonly (keyof RunLimits)[] = Object.freeze(Object.keys(RULES) as (keyof RunLimits)[])

/**
 * Merges `partial` over {@link DEFAULT_RUN_LIMITS} and validates every field.
 *
 * @returns a frozen, complete {@link RunLimits} (with `stackBytes`).
 * @throws RangeError naming the field (`run limit "wallMs" …`) when a value is not a number, is
 *   not positive, not finite, not an integer where a count or byte size is expected, or above its
 *   bound (2,147,483,647 for times, counts and output sizes; 1 GiB for `memoryBytes`; 4 MiB for
 *   `stackBytes`); also for an unknown field name (`unknown run limit "wallMS"; expected one of
 *   computeMs, …; did you mean "wallMs"?`) and a `partial` that is not an object.
 */
export function validateLimits(partial: Partial<RunLimits> = {}): Readonly<Required<RunLimits>> {
  if (partial === null || typeof partial !== 'object' || Array.isArray(partial)) {
    throw new RangeError(`run limits must be an object, got ${partial === null ? 'null' : Array.isArray(partial) ? 'an array' : typeof partial}`)
  }
  for (const key of Object.keys(partial)) {
    if (!Object.prototype.hasOwnProperty.call(RULES, key)) {
      const near = suggestKey(key, RUN_LIMIT_KEYS)
      throw new RangeError(`unknown run limit "${key}"; expected one of ${RUN_LIMIT_KEYS.join(', ')}${near === undefined ? '' : `; did you mean "${near}"?`}`)
    }
  }
  const out: Record<string, number> = {}
  for (const key of Object.keys(RULES) as (keyof RunLimits)[]) {
    const rule = RULES[key]
    const given = (partial as Record<string, unknown>)[key]
    const value = given === undefined ? DEFAULT_RUN_LIMITS[key] : given
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > rule.max || (rule.integer && !Number.isInteger(value))) {
      const shown = typeof value === 'number' ? String(value) : typeof value === 'string' ? JSON.stringify(value) : typeof value
      throw new RangeError(
        `run limit "${key}" must be a positive finite ${rule.integer ? 'integer' : 'number'} of ${rule.unit} up to ${rule.max}, got ${shown}`,
      )
    }
    out[key] = value
  }
  return Object.freeze(out) as unknown as Readonly<Required<RunLimits>>
}
