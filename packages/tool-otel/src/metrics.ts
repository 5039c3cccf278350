/**
 * The metrics plugin: a histogram of tool call durations, following the OpenTelemetry GenAI
 * semantic conventions' tool metric (`gen_ai.execute_tool.duration`, seconds).
 */
import type { Context } from 'cordis'
import { metrics, type Attributes, type Histogram, type Meter, type MeterProvider } from '@opentelemetry/api'
import { typeLabel, unknownOption, type PolicyDecision, type ToolExecution, type ToolResult, type ToolResultEvent, assertSupportedCordis } from '@deepseek-ai/dsh-tools'
import * as A from './attributes'
import { TOOL_TRACING_NAME, TOOL_TRACING_VERSION } from './plugin'

/** The plugin's name (the default meter's instrumentation scope is the package, as for tracing). */
export const TOOL_METRICS_NAME = '@deepseek-ai/dsh-tool-otel/metrics'

/**
 * The histogram's bucket boundaries in seconds: those the GenAI semantic conventions advise for
 * operation durations (10 ms doubling up to 81.92 s).
 */
export const TOOL_DURATION_BUCKETS: readonly number[] = Object.freeze([0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92])

/** `ctx.plugin(ToolMetrics, config)`. Every field is optional; `null` means not given (the default). */
export interface ToolMetricsConfig {
  /** The meter to record with. Default: `meterProvider`'s, else the global provider's (`metrics.getMeter`). */
  readonly meter?: Meter
  /** A provider to take the meter from (when `meter` is absent). Default: the global one. */
  readonly meterProvider?: MeterProvider
  /**
   * The clock durations are read from, in ms (monotonic). Default `performance.now`. For tests
   * and replays.
   */
  readonly now?: () => number
}

/**
 * Thrown at plugin start (`await ctx.plugin(ToolMetrics, …)` rejects) for a bad config field:
 * `tool metrics config: /meter must be an OpenTelemetry Meter (an object with createHistogram), got <type>`,
 * `tool metrics config: /meterProvider must be an OpenTelemetry MeterProvider (an object with getMeter), got <type>`
 * or `tool metrics config: /now must be a function, got <type>`; for an unknown key,
 * `tool metrics config: /<key> is not a known option (expected meter, meterProvider, now…)`;
 * for a non-object config, `tool metrics config: must be an object, got <type>`. A `RangeError` with
 * `name: 'ToolMetricsConfigError'`; no `code`.
 */
export class ToolMetricsConfigError extends RangeError {
  override readonly name = 'ToolMetricsConfigError'
}

/** The documented fields, in the order an unknown-key message lists them. */
const METRICS_KEYS = ['meter', 'meterProvider', 'now'] as const satisfies readonly (keyof ToolMetricsConfig)[]

function hasMethod(value: unknown, method: string): boolean {
  return value !== null && typeof value === 'object' && typeof (value as Record<string, unknown>)[method] === 'function'
}

/**
 * The listener implementations behind {@link ToolMetrics}; one instance per plugin. A call is
 * timed from its policy stage (`tools/pre-execute`) to its final result (`tools/result`) — the
 * span of `ToolTracing` — and recorded once, at its result, on `gen_ai.execute_tool.duration`
 * with `gen_ai.operation.name` = `execute_tool`, `gen_ai.tool.name`, `gen_ai.tool.type` =
 * `function`, and `error.type` = the code of a failed result. A call that failed before policy
 * (unknown tool, invalid arguments) never executed: it is recorded with a duration of 0, so its
 * `error.type` still counts.
 */
export class ToolDurations {
  readonly #histogram: Histogram
  readonly #now: () => number
  /** Start times (ms) of calls between policy and result, by the execution's token. */
  readonly #started = new Map<symbol, number>()

  /**
   * Creates the `gen_ai.execute_tool.duration` histogram (unit `s`, buckets
   * {@link TOOL_DURATION_BUCKETS}) on `meter`.
   *
   * @param meter - the meter to record with.
   * @param now - a monotonic clock in ms (the plugin passes `config.now`, else `performance.now`).
   */
  constructor(meter: Meter, now: () => number) {
    this.#histogram = meter.createHistogram(A.METRIC_EXECUTE_TOOL_DURATION, {
      description: 'Duration of tool execution.',
      unit: 's',
      advice: { explicitBucketBoundaries: [...TOOL_DURATION_BUCKETS] },
    })
    this.#now = now
  }

  /** Calls between policy and result (started, not yet recorded). */
  get open(): number {
    return this.#started.size
  }

  /** `tools/pre-execute`: notes the start (ms, once per execution token), then defers with `next()`. */
  preExecute(exec: ToolExecution, next: () => Promise<PolicyDecision>): Promise<PolicyDecision> {
    if (!this.#started.has(exec.token)) this.#started.set(exec.token, this.#now())
    return next()
  }

  /** `tools/result`: records the call's duration in seconds (0 for a call that never reached policy). */
  result(result: ToolResult, event: ToolResultEvent): void {
    const token = event.exec?.token
    const start = token === undefined ? undefined : this.#started.get(token)
    // No start: the call failed before policy (unknown tool, invalid arguments).
    let seconds = 0
    if (start !== undefined) {
      this.#started.delete(token!)
      seconds = Math.max(0, this.#now() - start) / 1000
    }
    const attributes: Attributes = {
      [A.ATTR_GEN_AI_OPERATION_NAME]: A.OPERATION_EXECUTE_TOOL,
      [A.ATTR_GEN_AI_TOOL_NAME]: event.call.name,
      [A.ATTR_GEN_AI_TOOL_TYPE]: 'function',
    }
    if (result.isError) attributes[A.ATTR_ERROR_TYPE] = result.error.info.code
    this.#histogram.record(seconds, attributes)
  }
}

/**
 * The metrics plugin. Load it on the context of the scope to measure (the deployment for every
 * call): it observes `tools/pre-execute` (notes a call's start; it always defers with `next()`)
 * and `tools/result` (records the duration), through {@link ToolDurations}. Requires the `tools`
 * service. Works with or without `ToolTracing`.
 *
 * Start also fails with a `CordisVersionError` (`UNSUPPORTED_CORDIS`) outside cordis
 * `>=4.0.0-rc.10 <5`, naming the version found (`assertSupportedCordis` of `@deepseek-ai/dsh-tools`).
 *
 * @throws ToolMetricsConfigError at start for a `meter`, `meterProvider` or `now` of the wrong
 *   kind, a config that is not an object (no config or `null` means the defaults) or an unknown
 *   key (`tool metrics config: /meterprovider is not a known option (expected meter,
 *   meterProvider, now; did you mean "meterProvider"?)`).
 *
 * @example
 * await ctx.plugin(ToolMetrics, { meterProvider })
 */
export const ToolMetrics: {
  readonly name: typeof TOOL_METRICS_NAME
  readonly inject: ['tools']
  apply(ctx: Context, config?: ToolMetricsConfig): void
} = Object.freeze({
  name: TOOL_METRICS_NAME,
  inject: ['tools'] as ['tools'],
  apply(ctx: Context, config: ToolMetricsConfig | null = {}): void {
    assertSupportedCordis(ctx, 'ToolMetrics')
    config ??= {}
    if (typeof config !== 'object' || Array.isArray(config)) throw new ToolMetricsConfigError(`tool metrics config: must be an object, got ${typeLabel(config)}`)
    const unknown = unknownOption(config, METRICS_KEYS)
    if (unknown !== undefined) throw new ToolMetricsConfigError(`tool metrics config: ${unknown.pointer} ${unknown.detail}`)
    if (config.meter != null && !hasMethod(config.meter, 'createHistogram')) {
      throw new ToolMetricsConfigError(`tool metrics config: /meter must be an OpenTelemetry Meter (an object with createHistogram), got ${typeLabel(config.meter)}`)
    }
    if (config.meterProvider != null && !hasMethod(config.meterProvider, 'getMeter')) {
      throw new ToolMetricsConfigError(`tool metrics config: /meterProvider must be an OpenTelemetry MeterProvider (an object with getMeter), got ${typeLabel(config.meterProvider)}`)
    }
    if (config.now != null && typeof config.now !== 'function') throw new ToolMetricsConfigError(`tool metrics config: /now must be a function, got ${typeLabel(config.now)}`)
    const meter = config.meter ?? (config.meterProvider ?? metrics.getMeterProvider()).getMeter(TOOL_TRACING_NAME, TOOL_TRACING_VERSION)
    const durations = new ToolDurations(meter, config.now ?? (() => performance.now()))
    ctx.tools.on('tools/pre-execute', (exec, next) => durations.preExecute(exec, next))
    ctx.tools.on('tools/result', (result, event) => durations.result(result, event))
  },
})
