/**
 * The shared failure drafts and message helpers every stage builds on (internal): failures with
 * capped messages, policy outcomes and errors, the shared cancellation drafts, and how a
 * problem or an unexpected value is described.
 */
import type { ToolErrorCode, ToolErrorInfo } from '../contracts'
import { errorContent, typeLabel, messages, withoutErrorPrefix } from '../errors'
import type { JsonProblem } from '../json'
import { capMessage, capPointer } from '../limits'
import type { Draft, RunContext } from './types'

export function fail(code: ToolErrorCode, message: string, name = 'ToolError', reason?: string): Draft {
  const info: ToolErrorInfo = reason === undefined ? { name, code } : { name, code, reason }
  return failFromInfo(message, info)
}

/**
 * Every failure message is capped here (after dropping an `Error: ` prefix it already has, so the
 * content never reads `Error: Error: …`), so `error.message` and the content agree: at
 * `MAX_ERROR_MESSAGE_CHARS` for the pipeline's own texts and policy texts, at `max` for a
 * thrown error's message (see {@link thrownCap}).
 */
export function failFromInfo(message: string, info: ToolErrorInfo, max?: number): Draft {
  const capped = capMessage(withoutErrorPrefix(message), max)
  return { isError: true, failure: { message: capped, info }, content: errorContent(capped) }
}

/**
 * The cap of a thrown error's message: the content cap of successful results
 * (`contentLimits.maxChars`, default 25,000; `0` disables it), since a body's own error text —
 * a PTC run's captured output, a command's stderr — is that tool's output.
 */
export function thrownCap(run: RunContext): number {
  const max = run.host.config.contentLimits.maxChars
  return max === 0 ? Number.POSITIVE_INFINITY : max
}

/**
 * A policy outcome (denial, unanswered ask, rejected approval): `message` may be the author's
 * text, so the tool's name travels in `info.toolName`. An author-supplied `info` wins, with
 * `toolName` added when it has none.
 */
export function policyOutcome(tool: string, message: string, name: string, reason?: string, info?: ToolErrorInfo): Draft {
  return failFromInfo(message, policyInfo(tool, info, reason === undefined ? { name, code: 'TOOL_DENIED' } : { name, code: 'TOOL_DENIED', reason }))
}

/** A policy author's `info` (with `toolName` added when it has none), or the library's with `toolName`. */
export function policyInfo(tool: string, authored: ToolErrorInfo | undefined, fallback: ToolErrorInfo): ToolErrorInfo {
  if (authored !== undefined) return authored.toolName === undefined ? { ...authored, toolName: tool } : authored
  return { ...fallback, toolName: tool }
}

/** The cancellation drafts: identical for every call, so shared (drafts are never mutated). */
export const ABORTED_BEFORE: Draft = Object.freeze(fail('ABORTED_BEFORE_DISPATCH', messages.abortedBeforeDispatch()))
export const ABORTED_DRAFT: Draft = Object.freeze(fail('ABORTED', messages.aborted()))

/** A throwing or malformed policy, guard or approval: fails closed with `code`; `shown` is the name the message gives the tool (`shown-name.ts`). */
export function policyError(code: 'TOOL_DENIED' | 'TOOL_BLOCKED', shown: string, stage: string, problem: string): Draft {
  return fail(code, messages.policyFailed(shown, stage, problem), 'PolicyError')
}

/** `<pointer> <message>` of a value that is not lossless JSON (`(root)` for the root; long pointers elided). */
export function describeProblem(problem: JsonProblem): string {
  return `${problem.pointer === '' ? '(root)' : capPointer(problem.pointer)} ${problem.message}`
}

export function describeValue(value: unknown): string {
  if (value === undefined) return 'undefined'
  if (value !== null && typeof value === 'object' && 'type' in value) return `{ type: ${JSON.stringify((value as { type: unknown }).type)} }`
  return typeLabel(value)
}
