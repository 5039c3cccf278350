/**
 * The span tree, recorded by the OpenTelemetry SDK's in-memory exporter, for a mixed native
 * batch (ok, denied, timed out, the body's own abort, unknown tool), a caller-aborted batch, and
 * a PTC batch whose run_code span holds its sub-call spans.
 */
import { afterEach, describe, expect, test } from 'vitest'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { SpanStatusCode } from '@opentelemetry/api'
import { defineTool } from '@deepseek-ai/dsh-tools'
import { createPtcExecutor, RUN_CODE } from '@deepseek-ai/dsh-tool-executor-ptc'
import { TimeoutPolicy } from '@deepseek-ai/dsh-tool-call-timeout-policy'
import { call, createHarness, echoTool, Gate, gatedTool, type Harness } from '@deepseek-ai/dsh-tool-testkit'
import { ToolTracing, type ToolTracingConfig } from '@deepseek-ai/dsh-tool-otel'

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

function tracing(config: Omit<ToolTracingConfig, 'tracerProvider'> = {}) {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  return { exporter, plugin: { plugin: ToolTracing, config: { ...config, tracerProvider: provider } } }
}

/** `name [error.type]` lines, children indented under their parent, in start order. */
function tree(spans: readonly ReadableSpan[]): string[] {
  const byParent = new Map<string | undefined, ReadableSpan[]>()
  const ids = new Set(spans.map((s) => s.spanContext().spanId))
  for (const s of spans) {
    const parent = s.parentSpanContext?.spanId
    const key = parent !== undefined && ids.has(parent) ? parent : undefined
    byParent.set(key, [...(byParent.get(key) ?? []), s])
  }
  const lines: string[] = []
  const walk = (parent: string | undefined, depth: number): void => {
    const children = [...(byParent.get(parent) ?? [])].sort((a, b) => String(a.attributes['gen_ai.tool.call.id'] ?? '').localeCompare(String(b.attributes['gen_ai.tool.call.id'] ?? '')))
    for (const s of children) {
      const error = s.attributes['error.type']
      lines.push(`${'  '.repeat(depth)}${s.name}${s.attributes['gen_ai.tool.call.id'] === undefined ? '' : ` (${String(s.attributes['gen_ai.tool.call.id'])})`}${error === undefined ? '' : ` [${String(error)}]`}`)
      walk(s.spanContext().spanId, depth + 1)
    }
  }
  walk(undefined, 0)
  return lines
}

const hang = defineTool({
  name: 'hang',
  description: 'Waits until cancelled.',
  parameters: {},
  output: { schema: { type: 'null' }, render: () => [] },
  timeoutMs: 20,
  isConcurrencySafe: () => true,
  execute: (_args, exec) => new Promise<null>((_resolve, reject) => exec.signal.addEventListener('abort', () => reject(exec.signal.reason), { once: true })),
})
const streamClosed = defineTool({
  name: 'stream',
  description: 'Its own stream is closed.',
  parameters: {},
  output: { schema: { type: 'null' }, render: () => [] },
  execute: () => {
    throw Object.assign(new Error('the stream was closed'), { name: 'AbortError' })
  },
})

describe('a mixed native batch', () => {
  test('one batch span; a call span per call with GenAI attributes; error.type = the result code', async () => {
    const { exporter, plugin } = tracing()
    h = await createHarness({ plugins: [{ plugin: TimeoutPolicy, config: {} }, plugin] })
    h.ctx.tools.register(echoTool())
    h.ctx.tools.register(hang)
    h.ctx.tools.register(streamClosed)
    h.ctx.tools.register(echoTool({ name: 'rm' }))
    h.ctx.tools.guard((exec) => (exec.name === 'rm' ? 'not here' : undefined))
    const { agent } = h.agentWithLog('agent-1')
    const results = await h.execute(
      [call('echo', { text: 'hi' }, 'c1'), call('rm', { text: 'x' }, 'c2'), call('hang', {}, 'c3'), call('stream', {}, 'c4'), call('nope', {}, 'c5'), call('echo', '{"text":', 'c6')],
      { agent },
    )
    expect(results.map((r) => (r.isError ? r.error.info?.code : 'ok'))).toEqual(['ok', 'TOOL_DENIED', 'TOOL_TIMEOUT', 'ABORTED', 'UNKNOWN_TOOL', 'INVALID_ARGS'])
    const spans = exporter.getFinishedSpans()
    expect(tree(spans)).toEqual([
      'execute_tools',
      '  execute_tool echo (c1)',
      '  execute_tool rm (c2) [TOOL_DENIED]',
      '  execute_tool hang (c3) [TOOL_TIMEOUT]',
      '  execute_tool stream (c4) [ABORTED]',
      '  execute_tool nope (c5) [UNKNOWN_TOOL]',
      '  execute_tool echo (c6) [INVALID_ARGS]',
    ])
    const batch = spans.find((s) => s.name === 'execute_tools')!
    expect(batch.attributes).toEqual({ 'dsh.tools.batch.id': expect.stringMatching(/^batch-\d+$/), 'dsh.tools.batch.size': 6, 'dsh.tools.executor': 'native', 'dsh.scope.id': 'agent-1', 'gen_ai.agent.id': 'agent-1', 'dsh.tools.batch.errors': 5 })
    const ok = spans.find((s) => s.attributes['gen_ai.tool.call.id'] === 'c1')!
    expect(ok.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'echo',
      'gen_ai.tool.call.id': 'c1',
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.description': 'Echo the arguments back.',
      'gen_ai.agent.id': 'agent-1',
      'dsh.tools.batch.id': batch.attributes['dsh.tools.batch.id'],
    })
    expect(ok.status.code).toBe(SpanStatusCode.UNSET)
    // Calls that failed before policy (no execution view) still name the batch's agent.
    const unknown = spans.find((s) => s.attributes['gen_ai.tool.call.id'] === 'c5')!
    expect(unknown.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'nope',
      'gen_ai.tool.call.id': 'c5',
      'gen_ai.tool.type': 'function',
      'gen_ai.agent.id': 'agent-1',
      'dsh.tools.batch.id': batch.attributes['dsh.tools.batch.id'],
      'error.type': 'UNKNOWN_TOOL',
    })
    const invalid = spans.find((s) => s.attributes['gen_ai.tool.call.id'] === 'c6')!
    expect(invalid.attributes['gen_ai.agent.id']).toBe('agent-1')
    const timedOut = spans.find((s) => s.attributes['gen_ai.tool.call.id'] === 'c3')!
    expect(timedOut.status).toEqual({ code: SpanStatusCode.ERROR, message: 'tool call timed out after 20ms' })
    // Content capture is off by default.
    expect(spans.some((s) => 'gen_ai.tool.call.arguments' in s.attributes || 'gen_ai.tool.call.result' in s.attributes)).toBe(false)
  })

  test('a caller abort: the running call’s span is ABORTED, the unstarted one ABORTED_BEFORE_DISPATCH', async () => {
    const { exporter, plugin } = tracing()
    h = await createHarness({ plugins: [plugin], native: { maxParallelCalls: 1 } })
    const gate = new Gate()
    h.ctx.tools.register(gatedTool(gate))
    const controller = new AbortController()
    const pending = h.execute([call('gated', { id: 'a' }, 'c1'), call('gated', { id: 'b' }, 'c2')], { signal: controller.signal })
    await gate.started(1)
    controller.abort()
    await pending
    expect(tree(exporter.getFinishedSpans())).toEqual(['execute_tools', '  execute_tool gated (c1) [ABORTED]', '  execute_tool gated (c2) [ABORTED_BEFORE_DISPATCH]'])
  })

  test('captureContent records arguments and values, cut at maxCaptureChars', async () => {
    const { exporter, plugin } = tracing({ captureContent: true, maxCaptureChars: 12 })
    h = await createHarness({ plugins: [plugin] })
    h.ctx.tools.register(echoTool())
    await h.execute([call('echo', { text: 'hello' }, 'c1')])
    const span = exporter.getFinishedSpans().find((s) => s.attributes['gen_ai.tool.call.id'] === 'c1')!
    expect(span.attributes['gen_ai.tool.call.arguments']).toBe('{"text":"hel…[4 more chars]')
    expect(span.attributes['gen_ai.tool.call.result']).toBe('{"text":"hel…[4 more chars]')
  })

  test('progress becomes span events on the call span', async () => {
    const { exporter, plugin } = tracing()
    h = await createHarness({ plugins: [plugin], registry: { progressIntervalMs: 0 } })
    h.ctx.tools.register(
      defineTool({
        name: 'work',
        description: 'Works in steps.',
        parameters: {},
        output: { schema: { type: 'null' }, render: () => [] },
        execute(_args, exec) {
          exec.reportProgress({ progress: 1, total: 2, message: 'half' })
          exec.reportProgress({ progress: 2, total: 2 })
          return null
        },
      }),
    )
    await h.execute([call('work', {}, 'c1')])
    const span = exporter.getFinishedSpans().find((s) => s.attributes['gen_ai.tool.call.id'] === 'c1')!
    expect(span.events.map((e) => [e.name, e.attributes])).toEqual([
      ['dsh.tool.progress', { progress: 1, total: 2, message: 'half' }],
      ['dsh.tool.progress', { progress: 2, total: 2 }],
    ])
  })

  test('preliminary results become span events in yield order; their values only with captureContent', async () => {
    const count = defineTool({
      name: 'count',
      description: 'Counts, reporting each step.',
      parameters: { n: { type: 'integer', required: true } },
      async *execute({ n }) {
        for (let i = 1; i <= n; i++) yield { step: i, note: 'x'.repeat(10) }
        return `counted to ${n}`
      },
    })
    for (const captureContent of [false, true]) {
      const { exporter, plugin } = tracing({ captureContent, maxCaptureChars: 12 })
      h = await createHarness({ plugins: [plugin] })
      h.ctx.tools.register(count)
      const [r] = await h.execute([call('count', { n: 2 }, 'c1')])
      expect(r).toMatchObject({ isError: false, value: 'counted to 2' })
      const span = exporter.getFinishedSpans().find((s) => s.attributes['gen_ai.tool.call.id'] === 'c1')!
      expect(span.events.map((e) => [e.name, e.attributes])).toEqual(
        captureContent
          ? [
              ['dsh.tool.preliminary', { sequence: 1, value: '{"step":1,"n…[18 more chars]' }],
              ['dsh.tool.preliminary', { sequence: 2, value: '{"step":2,"n…[18 more chars]' }],
            ]
          : [
              ['dsh.tool.preliminary', { sequence: 1 }],
              ['dsh.tool.preliminary', { sequence: 2 }],
            ],
      )
      await h.dispose()
      h = undefined
    }
  })

  test('bad config fails plugin start', async () => {
    h = await createHarness()
    await expect(h.ctx.plugin(ToolTracing, { maxCaptureChars: 0 })).rejects.toThrow('tool tracing config: /maxCaptureChars must be a positive integer, got 0')
    await expect(h.ctx.plugin(ToolTracing, { maxCaptureChars: '8' as never })).rejects.toThrow('tool tracing config: /maxCaptureChars must be a positive integer, got "8"')
  })

  test('a tracer or tracerProvider of the wrong shape fails plugin start (README "Configuration"), not every later call', async () => {
    h = await createHarness()
    const tracer = h.ctx.plugin(ToolTracing, { tracer: 5 as never })
    await expect(tracer).rejects.toThrow('tool tracing config: /tracer must be an OpenTelemetry Tracer (an object with startSpan), got number')
    await expect(tracer).rejects.toBeInstanceOf(RangeError)
    await expect(tracer).rejects.toMatchObject({ name: 'ToolTracingConfigError' })
    await expect(h.ctx.plugin(ToolTracing, { tracer: {} as never })).rejects.toThrow('tool tracing config: /tracer must be an OpenTelemetry Tracer (an object with startSpan), got object')
    await expect(h.ctx.plugin(ToolTracing, { tracerProvider: {} as never })).rejects.toThrow('tool tracing config: /tracerProvider must be an OpenTelemetry TracerProvider (an object with getTracer), got object')
    // Nothing was left registered: a call still runs.
    h.ctx.tools.register(echoTool())
    const [result] = await h.execute([call('echo', { text: 'hi' }, 'c1')])
    expect(result?.isError).toBe(false)
  })

  test('null for tracer or tracerProvider means not given, as for captureContent and maxCaptureChars', async () => {
    for (const nulls of [{ tracer: null }, { tracer: null, captureContent: null, maxCaptureChars: null }]) {
      // tracer: null → the tracer comes from tracerProvider.
      const { exporter, plugin } = tracing(nulls as never)
      h = await createHarness({ plugins: [plugin] })
      h.ctx.tools.register(echoTool())
      await h.execute([call('echo', { text: 'hi' }, 'c1')])
      expect(tree(exporter.getFinishedSpans())).toEqual(['execute_tools', '  execute_tool echo (c1)'])
      expect(exporter.getFinishedSpans()[0]!.attributes['gen_ai.tool.call.arguments']).toBeUndefined()
      await h.dispose()
    }
    // tracerProvider: null beside a tracer → the tracer; null for both → the global provider's.
    const exporter = new InMemorySpanExporter()
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
    h = await createHarness({ plugins: [{ plugin: ToolTracing, config: { tracer: provider.getTracer('t'), tracerProvider: null } as never }] })
    h.ctx.tools.register(echoTool())
    await h.execute([call('echo', { text: 'hi' }, 'c1')])
    expect(tree(exporter.getFinishedSpans())).toEqual(['execute_tools', '  execute_tool echo (c1)'])
    await h.ctx.plugin(ToolTracing, { tracer: null, tracerProvider: null } as never)
    expect(h.listeners()['tools/result']).toBe(2)
  })

  test('an unknown key or a non-object config fails plugin start; every documented key is accepted', async () => {
    h = await createHarness()
    const known = 'tracer, tracerProvider, captureContent, maxCaptureChars'
    const typo = h.ctx.plugin(ToolTracing, { captureContents: true } as ToolTracingConfig)
    await expect(typo).rejects.toThrow(`tool tracing config: /captureContents is not a known option (expected ${known}; did you mean "captureContent"?)`)
    await expect(typo).rejects.toMatchObject({ name: 'ToolTracingConfigError' })
    await expect(typo).rejects.toBeInstanceOf(RangeError)
    await expect(h.ctx.plugin(ToolTracing, { exporter: {} } as ToolTracingConfig)).rejects.toThrow(`tool tracing config: /exporter is not a known option (expected ${known})`)
    await expect(h.ctx.plugin(ToolTracing, 'on' as never)).rejects.toThrow('tool tracing config: must be an object, got string')
    await expect(h.ctx.plugin(ToolTracing, [] as never)).rejects.toThrow('tool tracing config: must be an object, got array')
    const provider = new BasicTracerProvider()
    // README "Configuration": every field, and the README example's config.
    await h.ctx.plugin(ToolTracing, { tracer: provider.getTracer('t'), tracerProvider: provider, captureContent: true, maxCaptureChars: 100 })
    await h.ctx.plugin(ToolTracing, { tracerProvider: provider, captureContent: false })
    await h.ctx.plugin(ToolTracing)
    await h.ctx.plugin(ToolTracing, null as never)
    expect(h.listeners()['tools/result']).toBe(4)
  })
})

describe('PTC', () => {
  test('sub-call spans (ok, denied, timed out, invalid arguments) nest under their run_code span', async () => {
    const { exporter, plugin } = tracing()
    h = await createHarness({ executor: createPtcExecutor({ limits: { wallMs: 5_000, computeMs: 2_000 } }), plugins: [{ plugin: TimeoutPolicy, config: {} }, plugin] })
    h.ctx.tools.register(echoTool())
    h.ctx.tools.register(echoTool({ name: 'rm' }))
    h.ctx.tools.register(hang)
    h.ctx.tools.guard((exec) => (exec.name === 'rm' ? 'not here' : undefined))
    const code = [
      'const out = [await tools.echo({ text: "a" })]',
      'for (const f of [() => tools.rm({ text: "x" }), () => tools.hang({}), () => tools.echo({ text: 5 })]) {',
      '  try { await f() } catch (e) { out.push(String(e.message)) }',
      '}',
      'return out.length',
    ].join('\n')
    const { agent } = h.agent('agent-p')
    const [r] = await h.execute([{ callId: 'run1', name: RUN_CODE, arguments: JSON.stringify({ code, description: 'mixed' }) }], { agent })
    expect(r!.content).toEqual([{ type: 'text', text: '4' }])
    const spans = exporter.getFinishedSpans()
    expect(tree(spans)).toEqual([
      'execute_tools',
      '  execute_tool run_code (run1)',
      '    execute_tool echo (run1:code:1)',
      '    execute_tool rm (run1:code:2) [TOOL_DENIED]',
      '    execute_tool hang (run1:code:3) [TOOL_TIMEOUT]',
      '    execute_tool echo (run1:code:4) [INVALID_ARGS]',
    ])
    expect(spans.find((s) => s.attributes['gen_ai.tool.call.id'] === 'run1:code:4')!.attributes['dsh.tool.call.parent_id']).toBe('run1')
    // Every call span names the agent, the sub-call that failed before policy too.
    expect(spans.filter((s) => s.name !== 'execute_tools').map((s) => s.attributes['gen_ai.agent.id'])).toEqual(Array(5).fill('agent-p'))
    expect(spans.find((s) => s.name === 'execute_tools')!.attributes['dsh.tools.executor']).toBe('ptc')
  })
})
