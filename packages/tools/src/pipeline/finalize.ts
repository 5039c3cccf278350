/**
 * Stage 5 — finalize (internal): the definition's `finalizeContent`, then the frozen result
 * with its metadata.
 */
import type { JsonValue, ToolResult, ToolResultMeta } from '../contracts'
import { describeThrown, messages } from '../errors'
import { snapshotJson } from '../json'
import { describeValue, fail } from './drafts'
import { freezeContent, isContent, shallowCopy } from './frozen-content'
import { shownName } from './shown-name'
import type { CallState, Draft, RunContext } from './types'
import type { ResultCut } from '../budget/types'

/**
 * Stage 5 — finalize: the snapshotted `finalizeContent` exactly once, then the frozen result.
 * A throwing finalizer turns the outcome into a `TOOL_FAILED` failure (not finalized again).
 */
export function finalize(state: CallState, run: RunContext): ToolResult {
  // A policy stage may have reported progress for a call that never dispatched: close it here too.
  state.exec?.closeProgress()
  let draft = state.draft!
  // Settle built the result already (see `succeed` in settle.ts) and no later stage replaced it.
  if (draft === state.prebuilt && state.annotations === undefined) return state.prebuilt
  const finalizeContent = state.finalize
  if (finalizeContent !== undefined) {
    try {
      const content: unknown = finalizeContent.call(state.tool?.definition, draft.content, { callId: state.call.callId, toolName: state.call.name, isError: draft.isError })
      // `undefined` keeps the content: a finalizer may observe without transforming.
      if (content !== undefined) {
        if (!isContent(content)) throw new TypeError(`finalizeContent must return an array of text or image blocks, or undefined to keep the content (got ${describeValue(content)})`)
        draft = { ...draft, content: freezeContent(content) }
      }
    } catch (error) {
      draft = fail('TOOL_FAILED', messages.renderFailed(shownName(state.call.name, run), `finalizeContent threw: ${describeThrown(error)}`))
    }
  }
  const meta = resultMeta(state, draft)
  // Built as literals (same keys, same order) rather than by spreading: V8 makes object spread
  // of these shapes cost microseconds per result (docs/benchmarks.md, "Optimisations"). The
  // common success carries its metadata in the literal: a property added afterwards moves the
  // object to a new shape and an out-of-object property store, before the freeze.
  if (!draft.isError && draft.contexts === undefined && meta !== undefined) {
    return Object.freeze({ callId: state.call.callId, content: draft.content, isError: false, value: draft.value, meta }) as ToolResult
  }
  const result: Record<string, unknown> = draft.isError
    ? { callId: state.call.callId, content: draft.content, isError: true, error: Object.freeze({ message: draft.failure.message, info: Object.freeze(shallowCopy(draft.failure.info)) }) }
    : { callId: state.call.callId, content: draft.content, isError: false, value: draft.value }
  if (draft.contexts !== undefined) result.contexts = draft.contexts
  if (meta !== undefined) result.meta = meta
  return Object.freeze(result) as unknown as ToolResult
}

function resultMeta(state: CallState, draft: Draft): ToolResultMeta | undefined {
  const tool = state.tool
  if (tool === undefined) return undefined
  const definition = tool.definition
  let presentation: JsonValue | undefined
  if (!draft.isError && definition.output.presentationMeta !== undefined && state.exec !== undefined) {
    try {
      const p = definition.output.presentationMeta(state.exec.arguments, draft.value)
      if (p !== undefined) {
        const snap = snapshotJson(p)
        if (snap.ok) presentation = snap.value
      }
    } catch {
      presentation = undefined
    }
  }
  const annotations = state.annotations
  const cut = draft.isError ? undefined : draft.cut
  if (presentation === undefined && state.repairs === undefined && annotations === undefined && cut === undefined) {
    // The common case: only the tool name, one frozen object per definition.
    return tool.plainMeta()
  }
  // Assigned rather than spread (same keys, same order): see `shallowCopy`.
  const meta: { toolName: string; presentation?: JsonValue; repairs?: readonly string[]; annotations?: Readonly<Record<string, JsonValue>>; cut?: ResultCut } = { toolName: definition.name }
  if (presentation !== undefined) meta.presentation = presentation
  if (state.repairs !== undefined) meta.repairs = state.repairs
  if (annotations !== undefined) {
    // Detached: a late annotate() (after the result was built) changes nothing.
    meta.annotations = Object.freeze(Object.fromEntries(annotations))
    state.annotations = undefined
  }
  if (cut !== undefined) meta.cut = cut
  return Object.freeze(meta)
}
