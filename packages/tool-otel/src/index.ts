/**
 * `@deepseek-ai/dsh-tool-otel` — OpenTelemetry tracing for dsh-tools: a span per tool call
 * following the GenAI semantic conventions (`execute_tool <tool name>`), a span per batch, PTC
 * sub-call spans nested under their `run_code` span. Depends only on `@opentelemetry/api`.
 *
 * @example
 * import { ToolTracing } from '@deepseek-ai/dsh-tool-otel'
 * await ctx.plugin(ToolTracing, {})
 */
export { ToolTracing, ToolTracingConfigError, TOOL_TRACING_NAME, TOOL_TRACING_VERSION } from './plugin'
export { ToolTracing as default } from './plugin'
export type { ToolTracingConfig } from './plugin'
export { ToolSpans } from './tracing'
export type { ToolSpansOptions } from './tracing'
export * from './attributes'
