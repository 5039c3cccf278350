/**
 * A body's value to a draft (internal): validated against the output schema, frozen, rendered
 * and capped. Used by dispatch and by a `tools/post-execute` decision that replaces the value.
 */
import type { ContentBlock, JsonValue, ToolSuccess } from '../contracts'
import { describeThrown, messages } from '../errors'
import { copyPlain } from '../json-freeze'
import { walkJson } from '../json-walk'
import { formatIssues } from '../json-schema'
import { capContent, isShortText } from '../content'
import { describeProblem, fail } from './drafts'
import { copyContent, isContent } from './frozen-content'
import { shownName } from './shown-name'
import { cutToBudget, defaultBudget } from '../budget/apply'
import type { CallState, Draft, RunContext } from './types'

/** Why a body's `undefined` is not a result when its output schema does not admit `null`. */
const NO_VALUE_PROBLEM = '(root) is undefined: the body returned nothing, and the output schema does not admit null'

/**
 * Validates, freezes and renders a canonical value. Returns a success or failure draft.
 * Results follow JSON: an `undefined` object member is dropped, an `undefined` array element is
 * `null`, and a root `undefined` (a body that returned nothing) is `null` when the output
 * schema admits `null` — the work happened, so it is a success (rendered as the tool renders
 * `null`; the default raw rendering shows `(no output)`).
 */
export function settleValue(state: CallState, value: unknown, run: RunContext): Draft {
  const exec = state.exec!
  const definition = exec.definition
  const name = definition.name
  const validate = state.tool!.outputValidator()
  let frozen: JsonValue
  if (value === undefined) {
    if (validate !== null && validate(null).length > 0) return fail('INVALID_TOOL_OUTPUT', messages.invalidOutput(shownName(name, run), NO_VALUE_PROBLEM))
    frozen = null
  } else {
    // What snapshotJson(value, { dropUndefined: true }) does, without its options and result
    // objects on the common path: plain JSON is copied in one lean pass; anything else goes to
    // the full walk, which copies what it can and names the problem (each getter read as often).
    let copied: JsonValue | undefined
    try {
      copied = copyPlain(value, 0, true)
    } catch {
      copied = undefined
    }
    if (copied === undefined) {
      const snap = walkJson(value, true, true)
      if (!snap.ok) return fail('INVALID_TOOL_OUTPUT', messages.invalidOutput(shownName(name, run), describeProblem(snap.problem)))
      frozen = snap.value
    } else frozen = copied
    if (validate !== null) {
      const issues = validate(frozen)
      if (issues.length > 0) return fail('INVALID_TOOL_OUTPUT', messages.invalidOutput(shownName(name, run), formatIssues(issues)))
    }
  }
  let content: unknown
  try {
    content = definition.projectContent?.(exec.arguments, frozen, exec) ?? definition.output.render(exec.arguments, frozen)
  } catch (error) {
    return fail('TOOL_FAILED', messages.renderFailed(shownName(name, run), describeThrown(error)))
  }
  const config = run.host.config
  const limits = config.contentLimits
  const budget = definition.resultBudget?.maxChars ?? config.resultBudget?.toolMaxChars ?? 0
  // The common rendering (one short text block) needs neither the general check nor the caps.
  if (budget === 0 && isShortText(content, limits)) return succeed(state, frozen, copyContent(content))
  if (!isContent(content)) return fail('TOOL_FAILED', messages.renderFailed(shownName(name, run), 'render must return an array of text or image blocks'))
  if (budget === 0) return succeed(state, frozen, copyContent(capContent(content, limits)))
  return budgeted(state, frozen, content, budget, run)
}

/**
 * A budgeted tool's success: its budget replaces `contentLimits` (cut once, at `budget` characters
 * or `contentLimits.maxLines` lines, whichever comes first, with the budget's marker and a handle).
 * A PTC sub-call is never cut: the program sees its value, the model never sees its content.
 */
function budgeted(state: CallState, value: JsonValue, content: readonly ContentBlock[], budget: number, run: RunContext): Draft {
  const config = run.host.config
  const outcome = run.parent === undefined ? cutToBudget(content, budget, config.contentLimits.maxLines, config.resultBudget ?? defaultBudget(), state.call.callId, state.exec!.definition.name) : undefined
  if (outcome === undefined) return succeed(state, value, copyContent(content))
  return { isError: false, value, content: copyContent(outcome.content), cut: Object.freeze(outcome.cut) }
}

/**
 * The success draft of `value` rendered as `content` (both frozen). When the result's metadata
 * is settled already — no `finalizeContent`, no repairs, no `presentationMeta` — the draft is the
 * call's frozen result itself, recorded as `state.prebuilt`: finalize hands it out unchanged
 * while it is still the draft and nothing was annotated since (a post-execute decision or
 * attached contexts make a new draft, and finalize builds the result as before).
 */
function succeed(state: CallState, value: JsonValue, content: readonly ContentBlock[]): Draft {
  const tool = state.tool!
  if (state.finalize !== undefined || state.repairs !== undefined || tool.definition.output.presentationMeta !== undefined) return { isError: false, value, content }
  // Same keys in the same order as finalize's literals (one shape for every success result).
  const result: ToolSuccess = Object.freeze({ callId: state.call.callId, content, isError: false as const, value, meta: tool.plainMeta() })
  state.prebuilt = result
  return result
}
