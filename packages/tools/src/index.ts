/**
 * `@deepseek-ai/dsh-tools` — the tool registry and execution pipeline (docs/design.md).
 *
 * Plugin entry: `ctx.plugin(ToolRegistry, config?)` provides `ctx.tools`.
 */
export * from './contracts'
export * from './executor'
export * from './durable'
export * from './events'
export * from './errors'
export * from './scope'
export * from './json'
export * from './limits'
export * from './unknown-keys'
export * from './content'
export * from './schema'
export * from './standard-schema'
export * from './json-schema'
export * from './repair'
export * from './presentation'
export { DEFAULT_PROGRESS_INTERVAL_MS, type ToolProgress, type ToolProgressEvent } from './progress'
export { createRunner, DEFAULT_MAX_PARALLEL, validateMaxParallel } from './batch'
export type { PipelineConfig } from './pipeline'
export { ToolRegistry, MAX_TIMER_MS, MAX_TOOL_NAME_LENGTH, RESERVED_TOOL_NAMES, toolNameProblem } from './registry'
export type { ToolRegistryConfig, ToolFilter, RegisterOptions, ResolveInput, ScopeRef, Disposer, ToolGroup } from './registry'
export { ToolRegistry as default } from './registry'
export { fuseSignals, type FusedSignal } from './signals'
export { shownToolName } from './tool-name'
