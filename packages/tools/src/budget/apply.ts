/**
 * Applying budgets (internal): one result to its tool's budget at settle, and a whole batch to
 * the registry's batch budget once every result is there.
 */
import type { ContentBlock, ToolResult } from '../contracts'
import { allocateBudget } from './allocate'
import { cutPoint, fullText, keepPrefix, textChars } from './cut'
import { budgetMarker } from './marker'
import type { ResolvedResultBudget, ResultCut } from './types'
import { createMemoryResultStore } from './store'
import { MAX_READ_RESULT_CHARS } from './read-result-tool'

/** The smallest `length` a marker suggests for the next page (the largest is `read_result`'s limit, {@link MAX_READ_RESULT_CHARS}). */
const MIN_PAGE_CHARS = 1_000

let fallback: ResolvedResultBudget | undefined

/** The budget configuration of a pipeline configured without one (built by hand, not by the registry): a process-wide in-memory store, created when first needed. */
export function defaultBudget(): ResolvedResultBudget {
  fallback ??= Object.freeze({ toolMaxChars: 0, batchMaxChars: 0, store: createMemoryResultStore(), readTool: undefined })
  return fallback
}

/** A cut result's content and its record. */
export interface BudgetOutcome {
  readonly content: readonly ContentBlock[]
  readonly cut: ResultCut
}

/**
 * `content` cut to `maxChars` characters (or `maxLines` lines, `0`: no line cap) with the marker,
 * its full text put in the store; `undefined` when it fits (nothing is stored).
 */
export function cutToBudget(content: readonly ContentBlock[], maxChars: number, maxLines: number, budget: ResolvedResultBudget, callId: string, toolName: string): BudgetOutcome | undefined {
  const chars = textChars(content)
  if (chars <= maxChars && (maxLines === 0 || chars < maxLines)) return undefined
  const text = fullText(content)
  const keep = cutPoint(text, maxChars, maxLines)
  if (keep === text.length) return undefined
  const handle = budget.store.put({ text, callId, toolName })
  return cutAt(content, keep, { handle, shownChars: keep, totalChars: text.length }, budget, maxChars)
}

function cutAt(content: readonly ContentBlock[], keep: number, cut: ResultCut, budget: ResolvedResultBudget, pageChars: number): BudgetOutcome {
  const marker = budgetMarker({ shownChars: keep, totalChars: cut.totalChars, handle: cut.handle, readTool: budget.readTool, pageChars: Math.min(MAX_READ_RESULT_CHARS, Math.max(MIN_PAGE_CHARS, pageChars)) })
  return { content: keepPrefix(content, keep, marker), cut }
}

/** The content a result shows before any marker, and its cut when a budget cut it already. */
function shown(result: ToolResult): readonly ContentBlock[] {
  return result.meta?.cut === undefined ? result.content : result.content.slice(0, -1)
}

/**
 * `results` within `budget.batchMaxChars` (non-zero) characters of shown text: each success gets
 * its {@link allocateBudget} share of the budget by the sizes of its shown text; one over its
 * share is cut to it (a result cut by its tool's budget keeps its handle, with a new marker).
 * Failures (and the pending calls of a suspended batch) are neither counted nor cut. Returns
 * `results` itself when everything fits.
 */
export function applyBatchBudget(results: readonly ToolResult[], budget: ResolvedResultBudget): readonly ToolResult[] {
  // A suspended batch's pending calls have no result yet (`undefined`): neither counted nor cut.
  const sizes = results.map((r: ToolResult | undefined) => (r === undefined || r.isError ? 0 : textChars(shown(r))))
  let total = 0
  for (const size of sizes) total += size
  if (total <= budget.batchMaxChars) return results
  const shares = allocateBudget(sizes, budget.batchMaxChars)
  return Object.freeze(results.map((result, i) => (shares[i]! < sizes[i]! ? recut(result, shares[i]!, budget) : result)))
}

function recut(result: ToolResult, share: number, budget: ResolvedResultBudget): ToolResult {
  const content = shown(result)
  const text = fullText(content)
  const keep = cutPoint(text, share, 0)
  const previous = result.meta?.cut
  const handle = previous?.handle ?? budget.store.put({ text, callId: result.callId, toolName: result.meta?.toolName ?? '' })
  const outcome = cutAt(content, keep, { handle, shownChars: keep, totalChars: previous?.totalChars ?? text.length }, budget, share)
  const frozen = Object.freeze(outcome.content.map((block) => Object.freeze(block)))
  return Object.freeze({ ...result, content: frozen, meta: Object.freeze({ ...result.meta, cut: Object.freeze(outcome.cut) }) }) as ToolResult
}
