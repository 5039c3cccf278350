/**
 * The shared per-call stages (docs/design.md, "Packages"; docs/design.md, "The batch and the pipeline"):
 *
 *   prepare → tools/pre-execute → guards → tools/execute (wrappers → body) → output validation
 *   → render → tools/post-execute → finalizeContent → tools/result
 *
 * Each stage is a named function that runs at most once per call. The batch runner
 * (`batch.ts`) decides when each stage runs; the files of `pipeline/` decide what it does, one
 * concept each, and this file is their entry: it re-exports what the registry and the runner use.
 */
export type { Listener } from './chains'
export type { StageHooks, PipelineHost, PipelineConfig, RunContext, CallState, Draft } from './pipeline/types'
export { MalformedEntry, normalizeEntry, lookUp, createState, prepareArguments } from './pipeline/prepare'
export { policy } from './pipeline/policy'
export { dispatch, type DispatchEnd } from './pipeline/dispatch'
export { postExecute } from './pipeline/post-execute'
export { finalize } from './pipeline/finalize'
export { observe, appendLog } from './pipeline/observe'
export { defectState, internalFailure } from './pipeline/defects'
