/** Result budgets: per-tool and per-batch model-facing caps with a store and a paging tool. */
export { CHARS_PER_TOKEN, estimateTokens } from './estimate'
export { createMemoryResultStore, DEFAULT_RESULT_STORE_BYTES, type MemoryResultStore, type MemoryResultStoreOptions, type ResultStore, type ResultStoreEntry } from './store'
export { allocateBudget } from './allocate'
export { budgetMarker, type BudgetMarkerInput } from './marker'
export { readResultTool, DEFAULT_READ_RESULT_CHARS, MAX_READ_RESULT_CHARS, type ReadResultToolOptions, type ResultPage } from './read-result-tool'
export type { ResolvedResultBudget, ResultBudgetConfig, ResultCut, ToolResultBudget } from './types'
