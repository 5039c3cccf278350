/**
 * Which budget a call gets (docs/design.md, "Timeout policy"; docs/design.md, "Known limitations": `timeoutMs` on a
 * definition is declarative until this policy enforces it).
 */
import { MAX_TIMER_MS, type AnyToolDefinition } from '@deepseek-ai/dsh-tools'

/**
 * The budget in ms for one call: the visible definition's own `timeoutMs` when it declares
 * one, else `defaultTimeoutMs`, else `undefined` (the call is not limited). Pure.
 *
 * The registry has already checked a definition's `timeoutMs` at `register()` (positive,
 * finite, at most 2,147,483,647 ms); a value that is not such a number (a definition mutated
 * after registration) is ignored in favour of the default rather than turned into a broken timer.
 *
 * @example budgetFor({ ...def, timeoutMs: 250 }, 5000) // 250
 * @example budgetFor(defWithoutTimeout, 5000)          // 5000
 * @example budgetFor(defWithoutTimeout, undefined)     // undefined
 */
export function budgetFor(definition: Pick<AnyToolDefinition, 'timeoutMs'>, defaultTimeoutMs: number | undefined): number | undefined {
  const own = definition.timeoutMs
  if (typeof own === 'number' && Number.isFinite(own) && own > 0 && own <= MAX_TIMER_MS) return own
  return defaultTimeoutMs
}
