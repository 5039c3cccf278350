/**
 * Stage 4 — post-execute (internal): the `tools/post-execute` waterfall and its decision
 * (accept, possibly replacing content, value or contexts; or block with feedback).
 */
import type { ContentBlock, DraftResult, PostDecision, ToolErrorInfo } from '../contracts'
import { describeThrown, messages } from '../errors'
import { capContent } from '../content'
import { runOnceStage } from '../chains'
import { capMessage } from '../limits'
import { describeValue, failFromInfo, policyError, policyInfo } from './drafts'
import { freezeContent, freezeContext, isContent, isContext } from './frozen-content'
import { settleValue } from './settle'
import { shownName } from './shown-name'
import type { CallState, Draft, RunContext } from './types'

const ACCEPT: PostDecision = Object.freeze({ type: 'accept' })
/** The shared resolved promise of the default decision, handed out by the innermost `next()`. */
const ACCEPT_PROMISE: Promise<PostDecision> = Promise.resolve(ACCEPT)

const BLOCKED_INFO: ToolErrorInfo = Object.freeze({ name: 'PolicyBlocked', code: 'TOOL_BLOCKED' })

function toDraftResult(draft: Draft): DraftResult {
  return draft.isError
    ? { isError: true, error: draft.failure, content: draft.content }
    : { isError: false, value: draft.value, content: draft.content }
}

function isPostDecision(value: unknown): value is PostDecision {
  if (value === null || typeof value !== 'object') return false
  const d = value as { type?: unknown; feedback?: unknown }
  return d.type === 'accept' || (d.type === 'block' && (typeof d.feedback === 'string' || isContent(d.feedback)))
}

/** The message of block feedback: text blocks joined with `\n`, any other block as `[<type> content]`. */
function feedbackMessage(feedback: readonly ContentBlock[]): string {
  return feedback.map((block) => (block.type === 'text' ? block.text : `[${block.type} content]`)).join('\n')
}

/**
 * A block: the feedback is the content, verbatim (a string is one text block) within the
 * content caps of rendered results; empty feedback gives the library message as `Error: …`
 * content, naming the tool by its {@link shownName} (`info.toolName` keeps the registry's `tool`).
 * See `PostDecision`.
 */
function blockDraft(tool: string, feedback: string | readonly ContentBlock[], info: ToolErrorInfo | undefined, run: RunContext): Draft {
  const blocks: readonly ContentBlock[] = typeof feedback === 'string' ? (feedback === '' ? [] : [{ type: 'text', text: feedback }]) : feedback
  const withTool = policyInfo(tool, info, BLOCKED_INFO)
  const message = feedbackMessage(blocks)
  if (message.trim() === '' && blocks.every((block) => block.type === 'text')) return failFromInfo(messages.blocked(shownName(tool, run)), withTool)
  return { isError: true, failure: { message: capMessage(message), info: withTool }, content: freezeContent(capContent(blocks, run.host.config.contentLimits)) }
}

/**
 * Stage 4 — post-execute: the `tools/post-execute` waterfall for every call that reached
 * stage 2 (denials included). Accept may replace content or value (never both); block turns
 * the outcome into a valueless `TOOL_BLOCKED` failure. Never throws or rejects.
 *
 * Returns `undefined` when the stage finished synchronously, else a promise of its end.
 */
export function postExecute(state: CallState, run: RunContext): void | Promise<void> {
  if (!state.reachedPolicy || run.hooks.post.length === 0) return
  const exec = state.exec!
  return runOnceStage(run.hooks.post, exec, toDraftResult(state.draft!), ACCEPT, ACCEPT_PROMISE, state, run, applyPost, postExecuteFailed)
}

/** A `tools/post-execute` listener threw or rejected: the result is blocked. */
function postExecuteFailed(state: CallState, run: RunContext, error: unknown): void {
  state.draft = policyError('TOOL_BLOCKED', shownName(state.exec!.name, run), 'tools/post-execute', describeThrown(error))
}

/** The rest of stage 4 once the waterfall answered `raw`. */
function applyPost(state: CallState, run: RunContext, raw: unknown): void {
  const exec = state.exec!
  const draft = state.draft!
  const name = exec.name
  if (!isPostDecision(raw)) {
    state.draft = policyError('TOOL_BLOCKED', shownName(name, run), 'tools/post-execute', `a tools/post-execute listener returned ${describeValue(raw)} instead of accept or block (with feedback: a string or content blocks)`)
    return
  }
  const decision = raw
  if (decision.type === 'block') {
    state.draft = blockDraft(name, decision.feedback, decision.info, run)
    return
  }
  const { content, value, contexts } = decision
  if (content !== undefined && value !== undefined) {
    state.draft = policyError('TOOL_BLOCKED', shownName(name, run), 'tools/post-execute', 'a decision may replace content or value, not both')
    return
  }
  let next: Draft = draft
  if (value !== undefined) {
    if (draft.isError) {
      state.draft = policyError('TOOL_BLOCKED', shownName(name, run), 'tools/post-execute', 'a failed call has no value to replace')
      return
    }
    next = settleValue(state, value, run)
    if (draft.contexts !== undefined) next = { ...next, contexts: draft.contexts }
  } else if (content !== undefined) {
    if (!isContent(content)) {
      state.draft = policyError('TOOL_BLOCKED', shownName(name, run), 'tools/post-execute', 'replacement content must be an array of text or image blocks')
      return
    }
    // Replaced content is not the cut content: the cut record (if any) no longer applies.
    next = draft.isError ? { ...draft, content: freezeContent(content) } : { isError: false, value: draft.value, content: freezeContent(content), ...(draft.contexts === undefined ? {} : { contexts: draft.contexts }) }
  }
  if (contexts !== undefined && (!Array.isArray(contexts) || !contexts.every(isContext))) {
    state.draft = policyError('TOOL_BLOCKED', shownName(name, run), 'tools/post-execute', 'contexts must be an array of { source: string, content: ContentBlock[] }')
    return
  }
  if (contexts !== undefined && contexts.length > 0) next = { ...next, contexts: Object.freeze([...(draft.contexts ?? []), ...contexts.map(freezeContext)]) }
  state.draft = next
}
