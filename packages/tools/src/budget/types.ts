/**
 * The public shapes of result budgets: a tool's own budget, the registry's budget configuration
 * and the record of a cut on a result's metadata.
 */
import type { ResultStore } from './store'

/** A tool's model-facing budget (`ToolDefinition.resultBudget`). */
export interface ToolResultBudget {
  /**
   * Most characters (UTF-16 code units) of the result's text shown to the model (its text blocks
   * joined with `\n`); the rest is cut with a marker and kept in the registry's {@link ResultStore}.
   * A positive integer.
   */
  readonly maxChars: number
}

/**
 * The registry's result budgets (`ToolRegistryConfig.resultBudget`). Absent: only tools with their
 * own `resultBudget` are budgeted, into an in-memory store of the registry.
 */
export interface ResultBudgetConfig {
  /** The budget of every tool without its own `resultBudget` (MCP tools included), in characters. A non-negative integer; `0` (default): none. */
  readonly toolMaxChars?: number
  /**
   * The budget of one `ctx.tools.execute()` batch across its successful results, in characters,
   * shared by max-min fair shares (`allocateBudget`). A non-negative integer; `0` (default): none.
   */
  readonly batchMaxChars?: number
  /** Where cut results are kept. Default: `createMemoryResultStore()` (in process, 64 MiB, LRU). */
  readonly store?: ResultStore
  /**
   * The name of the paging tool the marker tells the model to call (register `readResultTool(store)`
   * under it). Absent (default): the marker names the handle but offers no tool.
   */
  readonly readTool?: string
}

/** The validated {@link ResultBudgetConfig} the pipeline reads (`ctx.tools.config.resultBudget`: its `store` is the one in force, the default in-memory one when none was given). */
export interface ResolvedResultBudget {
  readonly toolMaxChars: number
  readonly batchMaxChars: number
  readonly store: ResultStore
  readonly readTool: string | undefined
}

/** What a budget cut from a result (`ToolResultMeta.cut`). Never model content. */
export interface ResultCut {
  /** The {@link ResultStore} handle of the full text. */
  readonly handle: string
  /** Characters of the full text shown before the marker (the next page's offset). */
  readonly shownChars: number
  /** Characters of the full text (text blocks joined with `\n`). */
  readonly totalChars: number
}
