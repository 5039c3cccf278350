/**
 * The state and the result of a call whose stages hit a defect, never expected (internal): a
 * `TOOL_FAILED` failure that names the tool (its shown name: `shown-name.ts`) and what was thrown.
 */
import type { ToolResult } from '../contracts'
import { describeThrown, errorContent, quoteText } from '../errors'
import { capMessage } from '../limits'
import { failFromInfo } from './drafts'
import { createState, MalformedEntry, normalizeEntry } from './prepare'
import { shownName } from './shown-name'
import type { CallState, RunContext } from './types'

function defectMessage(name: string, error: unknown): string {
  return capMessage(`Tool ${quoteText(name)} failed inside the pipeline: ${describeThrown(error)}`)
}

/** The state of a call whose prepare stage hit a defect: a `TOOL_FAILED` draft, nothing else runs. */
export function defectState(entry: unknown, index: number, error: unknown, run: RunContext): CallState {
  const normalized = normalizeEntry(entry, index)
  const call = normalized instanceof MalformedEntry ? normalized.call : normalized
  return createState(call, index, failFromInfo(defectMessage(shownName(call.name, run), error), { name: 'InternalError', code: 'TOOL_FAILED' }))
}

/** The result of a call whose stages hit a defect (never expected; reported by the runner). */
export function internalFailure(state: CallState, error: unknown, run: RunContext): ToolResult {
  const message = defectMessage(shownName(state.call.name, run), error)
  return Object.freeze({ callId: state.call.callId, isError: true, error: Object.freeze({ message, info: Object.freeze({ name: 'InternalError', code: 'TOOL_FAILED' }) }), content: errorContent(message) })
}
