/**
 * Failure results for calls that were not executed because the response was cut (bug case
 * B22; emissions E10, E11): the model sees exactly `Error: <message>`; `error.info.code` is
 * `TRUNCATED_ARGUMENTS` when the call's own arguments are incomplete and `TRUNCATED_RESPONSE`
 * when its arguments were complete but the batch was cut — both distinct from the pipeline's
 * `INVALID_ARGS` for malformed JSON, so a caller can retry with a larger output budget.
 */
import type { ToolFailure } from '@deepseek-ai/dsh-tools'
import type { TruncatedCall } from './types'

/** `error.info.code` of a call whose JSON arguments were cut at the model's output limit. */
export const TRUNCATED_ARGUMENTS = 'TRUNCATED_ARGUMENTS'
/** `error.info.code` of a complete call withheld because its response was cut. */
export const TRUNCATED_RESPONSE = 'TRUNCATED_RESPONSE'

const USER_REASON = "the model reached its output token limit while writing tool calls; raise the output budget (max_tokens) or ask for smaller calls, then retry"

/**
 * One frozen {@link ToolFailure} per truncated call, in the same order:
 * `{ callId, isError: true, error: { message, info: { name, code, reason } }, content: [{ type: 'text', text: 'Error: ' + message }], meta: { toolName } }`.
 */
export function truncatedCallResults(truncated: readonly TruncatedCall[]): ToolFailure[] {
  return truncated.map((call) => {
    const incomplete = call.reason === 'arguments-incomplete'
    return Object.freeze({
      callId: call.callId,
      isError: true as const,
      error: Object.freeze({
        message: call.message,
        info: Object.freeze({
          name: incomplete ? 'TruncatedArgumentsError' : 'TruncatedResponseError',
          code: incomplete ? TRUNCATED_ARGUMENTS : TRUNCATED_RESPONSE,
          reason: USER_REASON,
        }),
      }),
      content: Object.freeze([Object.freeze({ type: 'text' as const, text: `Error: ${call.message}` })]),
      meta: Object.freeze({ toolName: call.name }),
    })
  })
}
