/**
 * `@deepseek-ai/dsh-tool-otel` — OpenTelemetry for dsh-tools, following the GenAI semantic
 * conventions: tracing (`ToolTracing`: a span per tool call, `execute_tool <tool name>`, a span
 * per batch, PTC sub-call spans nested under their `run_code` span) and metrics (`ToolMetrics`:
 * the `gen_ai.execute_tool.duration` histogram). Depends only on `@opentelemetry/api`.
 *
 * @example
 * import { ToolMetrics, ToolTracing } from '@deepseek-ai/dsh-tool-otel'
 * await ctx.plugin(ToolTracing, {})
 * await ctx.plugin(ToolMetrics, {})
 */
export { ToolTracing, ToolTracingConfigError, TOOL_TRACING_NAME, TOOL_TRACING_VERSION } from './plugin'
export { ToolTracing as default } from './plugin'
export type { ToolTracingConfig } from './plugin'
export { ToolSpans } from './tracing'
export type { ToolSpansOptions } from './tracing'
export { ToolDurations, ToolMetrics, ToolMetricsConfigError, TOOL_DURATION_BUCKETS, TOOL_METRICS_NAME } from './metrics'
export type { ToolMetricsConfig } from './metrics'
export * from './attributes'
