/**
 * A tool-call turn whose batch suspended (an approval deferred, see the registry's
 * `executeSuspendable` / `resume`): which results go into the transcript now, and after each
 * resume which ones are still owed, so every call of the turn gets its result exactly once and
 * the assistant turn is written once (re-sending it is what makes the OpenAI Responses API refuse
 * a request with duplicate item ids).
 *
 * A suspended batch gives one result slot per call, `undefined` for a pending call. Providers
 * differ in where results may go:
 * - `incremental` (OpenAI Chat Completions, DeepSeek, OpenAI Responses): each result is a message
 *   (item) of its own, paired by call id; settled results may be written at once and the rest
 *   after the resume — the next request to the model waits until none is pending.
 * - `together` (Anthropic Messages, Gemini): all results of a turn must be in the one message that
 *   follows it: nothing is written while a call is pending, then all at once.
 */
import { quoteText, type RawToolCall, type ToolResult } from '@deepseek-ai/dsh-tools'
import { ResultPairingError } from './types'

/** How a provider takes a turn's results (see the module comment). */
export type ResultDelivery = 'incremental' | 'together'

/** What to write for a turn now. */
export interface TurnResults {
  /** The calls whose results to write now, in call order (pass with `results` to the provider's builder). */
  readonly calls: readonly RawToolCall[]
  readonly results: readonly ToolResult[]
  /** Every call id whose result is in the transcript once these are written (keep it with the transcript). */
  readonly delivered: readonly string[]
  /** The call ids still waiting for a decision (or for a call before them). */
  readonly pending: readonly string[]
  /** Whether every call of the turn has its result in the transcript: the next model request may go. */
  readonly complete: boolean
}

/**
 * The results of `calls` to write now. `results` has one slot per call in call order
 * (`undefined`: pending); `delivered` the call ids already written for this turn.
 *
 * @throws ResultPairingError (its `callId`: the call concerned, `''` when there is none) when `results` does not have one slot per call, a slot's `callId`
 *   is not its call's, a call id repeats in the turn, or a `delivered` id is not a call of the
 *   turn or appears twice; with `together`, when only some results were delivered before.
 */
export function turnResults(calls: readonly RawToolCall[], results: readonly (ToolResult | undefined)[], delivered: readonly string[], delivery: ResultDelivery): TurnResults {
  if (results.length !== calls.length) throw new ResultPairingError(`a turn of ${calls.length} calls needs one result slot per call, got ${results.length}`, calls[results.length]?.callId ?? '')
  const ids = new Set<string>()
  calls.forEach((call, i) => {
    if (ids.has(call.callId)) throw new ResultPairingError(`call id ${quoteText(call.callId)} appears twice in the turn`, call.callId)
    ids.add(call.callId)
    const result = results[i]
    if (result !== undefined && result.callId !== call.callId) throw new ResultPairingError(`result slot ${i} is for call ${quoteText(result.callId)}, not ${quoteText(call.callId)}`, result.callId)
  })
  const done = new Set<string>()
  for (const id of delivered) {
    if (!ids.has(id)) throw new ResultPairingError(`delivered call ${quoteText(id)} matches no call of the turn`, id)
    if (done.has(id)) throw new ResultPairingError(`delivered call ${quoteText(id)} appears twice`, id)
    done.add(id)
  }
  const pending = calls.filter((_, i) => results[i] === undefined).map((c) => c.callId)
  if (delivery === 'together' && done.size > 0 && done.size < calls.length) {
    throw new ResultPairingError(`this provider takes a turn's results in one message, but ${done.size} of ${calls.length} were delivered before`, calls.find((c) => !done.has(c.callId))?.callId ?? '')
  }
  const now = delivery === 'together' && pending.length > 0 ? [] : calls.flatMap((call, i) => (done.has(call.callId) || results[i] === undefined ? [] : [i]))
  const written = [...delivered, ...now.map((i) => (calls[i] as RawToolCall).callId)]
  return {
    calls: now.map((i) => calls[i] as RawToolCall),
    results: now.map((i) => results[i] as ToolResult),
    delivered: written,
    pending,
    complete: written.length === calls.length,
  }
}
