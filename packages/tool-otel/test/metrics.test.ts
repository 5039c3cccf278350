/**
 * The `gen_ai.execute_tool.duration` histogram, read back through the OpenTelemetry metrics
 * SDK: one data point set per tool and outcome code, durations from the policy stage to the
 * result (an injected clock, so the sums are exact), PTC sub-calls measured as their own tools,
 * the advised buckets, config errors, and no listener left after disposal.
 */
import { afterEach, describe, expect, test } from 'vitest'
import { MeterProvider, MetricReader, type HistogramMetricData } from '@opentelemetry/sdk-metrics'
import { defineTool } from '@deepseek-ai/dsh-tools'
import { createPtcExecutor, RUN_CODE } from '@deepseek-ai/dsh-tool-executor-ptc'
import { call, createHarness, echoTool, type Harness } from '@deepseek-ai/dsh-tool-testkit'
import { ToolDurations, ToolMetrics, TOOL_DURATION_BUCKETS, type ToolMetricsConfig } from '@deepseek-ai/dsh-tool-otel'

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

/** A reader collected on demand (no export interval). */
class TestReader extends MetricReader {
  protected async onShutdown(): Promise<void> {}
  protected async onForceFlush(): Promise<void> {}
}

/** A fake monotonic clock tools move forward. */
class FakeNow {
  ms = 1_000
  readonly now = (): number => this.ms
}

function metricsPlugin(config: Omit<ToolMetricsConfig, 'meterProvider'> = {}) {
  const reader = new TestReader()
  const provider = new MeterProvider({ readers: [reader] })
  return { reader, plugin: { plugin: ToolMetrics, config: { ...config, meterProvider: provider } } }
}

/** The duration histogram's points as `tool [error.type]: count, sum` lines, sorted. */
async function points(reader: MetricReader): Promise<{ lines: string[]; boundaries: readonly number[]; unit: string; scope: string }> {
  const { resourceMetrics } = await reader.collect()
  const scopes = resourceMetrics.scopeMetrics
  const scope = scopes.find((s) => s.metrics.some((m) => m.descriptor.name === 'gen_ai.execute_tool.duration'))!
  const metric = scope.metrics.find((m) => m.descriptor.name === 'gen_ai.execute_tool.duration') as HistogramMetricData
  const lines = metric.dataPoints.map((p) => {
    const a = p.attributes
    expect(a['gen_ai.operation.name']).toBe('execute_tool')
    expect(a['gen_ai.tool.type']).toBe('function')
    const error = a['error.type'] === undefined ? '' : ` [${String(a['error.type'])}]`
    return `${String(a['gen_ai.tool.name'])}${error}: ${p.value.count}, ${Number(p.value.sum).toFixed(3)}`
  })
  return { lines: lines.sort(), boundaries: metric.dataPoints[0]?.value.buckets.boundaries ?? [], unit: metric.descriptor.unit, scope: scope.scope.name }
}

describe('gen_ai.execute_tool.duration', () => {
  test('one point set per tool and outcome; durations from policy to result, in seconds', async () => {
    const clock = new FakeNow()
    const { reader, plugin } = metricsPlugin({ now: clock.now })
    h = await createHarness({ plugins: [plugin] })
    h.ctx.tools.register(echoTool())
    h.ctx.tools.register(
      defineTool({
        name: 'slow',
        description: 'Takes 1.5 s on the fake clock, or fails after 0.25 s.',
        parameters: { fail: { type: 'boolean' } },
        output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
        execute(args) {
          clock.ms += args.fail === true ? 250 : 1_500
          if (args.fail === true) throw Object.assign(new Error('upstream closed'), { code: 'ECONNRESET' })
          return 'done'
        },
      }),
    )
    h.ctx.tools.register(echoTool({ name: 'rm' }))
    h.ctx.tools.guard((exec) => (exec.name === 'rm' ? 'not here' : undefined))
    const results = await h.execute([
      call('echo', { text: 'a' }, 'c1'),
      call('slow', {}, 'c2'),
      call('slow', {}, 'c3'),
      call('slow', { fail: true }, 'c4'),
      call('rm', { text: 'x' }, 'c5'),
      call('nope', {}, 'c6'),
      call('echo', '{"text":', 'c7'),
    ])
    expect(results.map((r) => (r.isError ? r.error.info?.code : 'ok'))).toEqual(['ok', 'ok', 'ok', 'ECONNRESET', 'TOOL_DENIED', 'UNKNOWN_TOOL', 'INVALID_ARGS'])
    const { lines, boundaries, unit, scope } = await points(reader)
    expect(lines).toEqual([
      'echo [INVALID_ARGS]: 1, 0.000',
      'echo: 1, 0.000',
      'nope [UNKNOWN_TOOL]: 1, 0.000',
      'rm [TOOL_DENIED]: 1, 0.000',
      'slow [ECONNRESET]: 1, 0.250',
      'slow: 2, 3.000',
    ])
    expect(unit).toBe('s')
    expect(scope).toBe('@deepseek-ai/dsh-tool-otel')
    expect(boundaries).toEqual([...TOOL_DURATION_BUCKETS])
    expect(TOOL_DURATION_BUCKETS).toEqual([0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92])
  })

  test('PTC: run_code and each sub-call are measured as their own tools', async () => {
    const clock = new FakeNow()
    const { reader, plugin } = metricsPlugin({ now: clock.now })
    h = await createHarness({ executor: createPtcExecutor(), plugins: [plugin] })
    h.ctx.tools.register(
      defineTool({
        name: 'tick',
        description: 'Moves the fake clock `ms` forward.',
        parameters: { ms: { type: 'integer', required: true } },
        output: { schema: { type: 'integer' }, render: (_a, v) => [{ type: 'text', text: String(v) }] },
        execute(args) {
          clock.ms += args.ms
          return clock.ms
        },
      }),
    )
    const code = 'await tools.tick({ ms: 100 }); await tools.tick({ ms: 50 }); await tools.tick({ ms: "x" }).catch(() => 0); return "ok"'
    const [r] = await h.execute([{ callId: 'p1', name: RUN_CODE, arguments: JSON.stringify({ code, description: 'ticks' }) }])
    expect(r!.content).toEqual([{ type: 'text', text: 'ok' }])
    const { lines } = await points(reader)
    expect(lines).toEqual(['run_code: 1, 0.150', 'tick [INVALID_ARGS]: 1, 0.000', 'tick: 2, 0.150'])
  })

  test('ToolDurations wired by hand: a call is open from policy to result, then recorded once', async () => {
    const clock = new FakeNow()
    const reader = new TestReader()
    const durations = new ToolDurations(new MeterProvider({ readers: [reader] }).getMeter('custom'), clock.now)
    h = await createHarness()
    h.ctx.tools.on('tools/pre-execute', (exec, next) => durations.preExecute(exec, next))
    h.ctx.tools.on('tools/result', (result, event) => durations.result(result, event))
    const openDuringCall: number[] = []
    h.ctx.tools.register(
      defineTool({
        name: 'probe',
        description: 'Reports how many calls are open, 40 ms on the fake clock.',
        parameters: {},
        output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
        execute() {
          openDuringCall.push(durations.open)
          clock.ms += 40
          return 'ok'
        },
      }),
    )
    await h.execute([call('probe', {}, 'c1'), call('nope', {}, 'c2')])
    expect(openDuringCall).toEqual([1])
    expect(durations.open).toBe(0)
    const { lines, scope } = await points(reader)
    expect(lines).toEqual(['nope [UNKNOWN_TOOL]: 1, 0.000', 'probe: 1, 0.040'])
    expect(scope).toBe('custom')
  })

  test('every documented key is accepted (README table and example); no config and null too', async () => {
    h = await createHarness()
    const meterProvider = new MeterProvider()
    await h.ctx.plugin(ToolMetrics, { meter: meterProvider.getMeter('m'), meterProvider, now: () => 0 })
    await h.ctx.plugin(ToolMetrics, { meterProvider })
    await h.ctx.plugin(ToolMetrics)
    await h.ctx.plugin(ToolMetrics, null as never)
    expect(h.listeners()['tools/result']).toBe(4)
  })

  test('null for meter, meterProvider or now means not given: the meter comes from meterProvider', async () => {
    const { reader, plugin } = metricsPlugin({ meter: null, now: null } as never)
    h = await createHarness({ plugins: [plugin] })
    h.ctx.tools.register(echoTool())
    await h.execute([call('echo', { text: 'hi' }, 'c1')])
    const { lines, scope } = await points(reader)
    expect([lines.map((l) => l.split(':')[0]), scope]).toEqual([['echo'], '@deepseek-ai/dsh-tool-otel'])
    await h.ctx.plugin(ToolMetrics, { meter: null, meterProvider: null, now: null } as never)
    expect(h.listeners()['tools/result']).toBe(2)
  })

  test('bad config fails plugin start naming the field; disposal leaves no listener', async () => {
    h = await createHarness()
    await expect(h.ctx.plugin(ToolMetrics, { meter: {} as never })).rejects.toThrow('tool metrics config: /meter must be an OpenTelemetry Meter (an object with createHistogram), got object')
    await expect(h.ctx.plugin(ToolMetrics, { meterProvider: 'x' as never })).rejects.toThrow('tool metrics config: /meterProvider must be an OpenTelemetry MeterProvider (an object with getMeter), got string')
    await expect(h.ctx.plugin(ToolMetrics, { now: 5 as never })).rejects.toThrow('tool metrics config: /now must be a function, got number')
    const typo = h.ctx.plugin(ToolMetrics, { meterprovider: {} } as ToolMetricsConfig)
    await expect(typo).rejects.toThrow('tool metrics config: /meterprovider is not a known option (expected meter, meterProvider, now; did you mean "meterProvider"?)')
    await expect(typo).rejects.toMatchObject({ name: 'ToolMetricsConfigError' })
    await expect(typo).rejects.toBeInstanceOf(RangeError)
    await expect(h.ctx.plugin(ToolMetrics, { buckets: [1] } as ToolMetricsConfig)).rejects.toThrow('tool metrics config: /buckets is not a known option (expected meter, meterProvider, now)')
    await expect(h.ctx.plugin(ToolMetrics, 5 as never)).rejects.toThrow('tool metrics config: must be an object, got number')
    const { plugin } = metricsPlugin()
    const fork = h.ctx.plugin(plugin.plugin, plugin.config)
    await fork
    expect(h.listeners()).toEqual({ 'tools/pre-execute': 1, 'tools/result': 1 })
    await fork.dispose()
    expect(h.listeners()).toEqual({})
  })
})
