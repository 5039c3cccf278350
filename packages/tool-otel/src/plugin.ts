/**
 * The cordis plugin: traces the tool calls of the scope it is loaded on.
 */
import type { Context } from 'cordis'
import { trace, type Tracer, type TracerProvider } from '@opentelemetry/api'
import { showConfigValue, typeLabel, unknownOption, assertSupportedCordis } from '@deepseek-ai/dsh-tools'
import { ToolSpans } from './tracing'

/** The plugin's name, also the instrumentation scope name of the default tracer and of `ToolMetrics`' default meter. */
export const TOOL_TRACING_NAME = '@deepseek-ai/dsh-tool-otel'
/** The instrumentation scope version reported with the default tracer and `ToolMetrics`' default meter. */
export const TOOL_TRACING_VERSION = '0.1.0'

/** `ctx.plugin(ToolTracing, config)`. Every field is optional; `null` means not given (the default). */
export interface ToolTracingConfig {
  /** The tracer to use. Default: `tracerProvider`'s, else the global provider's (`trace.getTracer`). */
  readonly tracer?: Tracer
  /** A provider to take the tracer from (when `tracer` is absent). Default: the global one. */
  readonly tracerProvider?: TracerProvider
  /**
   * Record `gen_ai.tool.call.arguments` (as emitted) and `gen_ai.tool.call.result` (the
   * canonical value of a success) on call spans. Off by default: they may hold user data.
   */
  readonly captureContent?: boolean
  /** Captured strings longer than this are cut (characters). Default 8,192. */
  readonly maxCaptureChars?: number
}

/**
 * Thrown at plugin start (`await ctx.plugin(ToolTracing, …)` rejects) for a bad config field:
 * `tool tracing config: /tracer must be an OpenTelemetry Tracer (an object with startSpan), got
 * <type>`, `tool tracing config: /tracerProvider must be an OpenTelemetry TracerProvider (an
 * object with getTracer), got <type>`, `tool tracing config: /captureContent must be a boolean,
 * got <type>` or `tool tracing config: /maxCaptureChars must be a positive integer, got
 * <value>`; for an unknown key, `tool tracing
 * config: /<key> is not a known option (expected tracer, …)`; for a non-object config, `tool
 * tracing config: must be an object, got <type>`. A `RangeError` with
 * `name: 'ToolTracingConfigError'`; no `code`.
 */
export class ToolTracingConfigError extends RangeError {
  override readonly name = 'ToolTracingConfigError'
}

/** Whether `value` is an object with a `method` function (a duck-typed OpenTelemetry API object). */
function hasMethod(value: unknown, method: string): boolean {
  return value !== null && typeof value === 'object' && typeof (value as Record<string, unknown>)[method] === 'function'
}

/** The documented fields, in the order an unknown-key message lists them. */
const TRACING_KEYS = ['tracer', 'tracerProvider', 'captureContent', 'maxCaptureChars'] as const satisfies readonly (keyof ToolTracingConfig)[]

/**
 * The tracing plugin. Load it on the context of the scope to trace (the deployment for every
 * call): it observes `tools/batch-start`/`tools/batch-end` (batch spans), `tools/pre-execute`
 * (opens call spans; it always defers with `next()`), `tools/progress` and `tools/preliminary`
 * (span events) and `tools/result` (closes call spans). Requires the `tools` service.
 *
 * Start also fails with a `CordisVersionError` (`UNSUPPORTED_CORDIS`) outside cordis
 * `>=4.0.0-rc.10 <5`, naming the version found (`assertSupportedCordis` of `@deepseek-ai/dsh-tools`).
 *
 * @throws ToolTracingConfigError at start for a `tracer` without `startSpan`, a `tracerProvider`
 *   without `getTracer`, a non-boolean `captureContent`, a `maxCaptureChars` that is not a
 *   positive integer, a config that is not an object (no config
 *   or `null` means the defaults) or an unknown key (`tool tracing config: /captureContents is
 *   not a known option (expected tracer, …; did you mean "captureContent"?)`).
 *
 * @example
 * await ctx.plugin(ToolTracing, { tracerProvider: provider, captureContent: false })
 */
export const ToolTracing: {
  readonly name: typeof TOOL_TRACING_NAME
  readonly inject: ['tools']
  apply(ctx: Context, config?: ToolTracingConfig): void
} = Object.freeze({
  name: TOOL_TRACING_NAME,
  inject: ['tools'] as ['tools'],
  apply(ctx: Context, config: ToolTracingConfig | null = {}): void {
    assertSupportedCordis(ctx, 'ToolTracing')
    config ??= {}
    if (typeof config !== 'object' || Array.isArray(config)) throw new ToolTracingConfigError(`tool tracing config: must be an object, got ${typeLabel(config)}`)
    const unknown = unknownOption(config, TRACING_KEYS)
    if (unknown !== undefined) throw new ToolTracingConfigError(`tool tracing config: ${unknown.pointer} ${unknown.detail}`)
    // Checked here, not at the first call: a tracer that cannot start spans would make every
    // call's tools/pre-execute listener throw, which the pipeline reports as a policy failure.
    if (config.tracer != null && !hasMethod(config.tracer, 'startSpan')) {
      throw new ToolTracingConfigError(`tool tracing config: /tracer must be an OpenTelemetry Tracer (an object with startSpan), got ${typeLabel(config.tracer)}`)
    }
    if (config.tracerProvider != null && !hasMethod(config.tracerProvider, 'getTracer')) {
      throw new ToolTracingConfigError(`tool tracing config: /tracerProvider must be an OpenTelemetry TracerProvider (an object with getTracer), got ${typeLabel(config.tracerProvider)}`)
    }
    const captureContent = config.captureContent ?? false
    if (typeof captureContent !== 'boolean') throw new ToolTracingConfigError(`tool tracing config: /captureContent must be a boolean, got ${typeof captureContent}`)
    const maxCaptureChars = config.maxCaptureChars ?? 8_192
    if (!Number.isInteger(maxCaptureChars) || maxCaptureChars < 1) throw new ToolTracingConfigError(`tool tracing config: /maxCaptureChars must be a positive integer, got ${showConfigValue(maxCaptureChars)}`)
    const tracer = config.tracer ?? (config.tracerProvider ?? trace.getTracerProvider()).getTracer(TOOL_TRACING_NAME, TOOL_TRACING_VERSION)
    const spans = new ToolSpans({ tracer, captureContent, maxCaptureChars })
    ctx.tools.on('tools/batch-start', (event) => spans.batchStart(event))
    ctx.tools.on('tools/batch-end', (event, results) => spans.batchEnd(event, results))
    ctx.tools.on('tools/pre-execute', (exec, next) => spans.preExecute(exec, next))
    ctx.tools.on('tools/progress', (event) => spans.progress(event))
    ctx.tools.on('tools/preliminary', (event) => spans.preliminary(event))
    ctx.tools.on('tools/result', (result, event) => spans.result(result, event))
  },
})

export default ToolTracing
