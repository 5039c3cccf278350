/**
 * A stream run (`executeToolStream`, native package) traced like any batch: one `execute_tools`
 * span with the stream run's batch id and the turn's final call count, its call spans under it.
 */
import { afterEach, expect, test } from 'vitest'
import { Context } from 'cordis'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { ToolRegistry, defineTool } from '@deepseek-ai/dsh-tools'
import { NativeExecutor, executeToolStream, type OpenAIChatChunkWire } from '@deepseek-ai/dsh-tool-executor-native'
import { ToolTracing } from '@deepseek-ai/dsh-tool-otel'

let ctx: Context | undefined
afterEach(async () => {
  await ctx?.fiber.dispose()
  ctx = undefined
})

const begin = (index: number, id: string, text: string): OpenAIChatChunkWire =>
  ({ choices: [{ index: 0, delta: { tool_calls: [{ index, id, type: 'function', function: { name: 'echo', arguments: JSON.stringify({ text }) } }] }, finish_reason: null }] }) as unknown as OpenAIChatChunkWire
const finish = { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] } as unknown as OpenAIChatChunkWire

test('a stream run has one batch span (final size, stream batch id) holding its call spans', async () => {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  ctx = new Context()
  await ctx.plugin(ToolRegistry, {})
  await ctx.plugin(NativeExecutor, {})
  await ctx.plugin(ToolTracing, { tracerProvider: provider })
  ctx.tools.register(defineTool({ name: 'echo', description: 'Echoes text.', parameters: { text: { type: 'string', required: true } }, execute: ({ text }) => text, isConcurrencySafe: () => true }))
  const outcome = await executeToolStream(ctx, { provider: 'openai-chat', stream: [begin(0, 'c1', 'a'), begin(1, 'c2', 'b'), begin(2, 'c3', 'c'), finish] }).outcome
  expect(outcome.results.map((r) => r.isError)).toEqual([false, false, false])
  const spans = exporter.getFinishedSpans()
  const batches = spans.filter((s) => s.name === 'execute_tools')
  expect(batches.length).toBe(1)
  const batch = batches[0]!
  expect(batch.attributes).toEqual({ 'dsh.tools.batch.id': expect.stringMatching(/^stream-batch-\d+$/), 'dsh.tools.batch.size': 3, 'dsh.tools.executor': 'native', 'dsh.scope.id': 'deployment', 'dsh.tools.batch.errors': 0 })
  const calls = spans.filter((s) => s.name === 'execute_tool echo')
  expect(calls.map((s) => s.attributes['gen_ai.tool.call.id']).sort()).toEqual(['c1', 'c2', 'c3'])
  expect(calls.map((s) => s.parentSpanContext?.spanId)).toEqual([batch.spanContext().spanId, batch.spanContext().spanId, batch.spanContext().spanId])
  await provider.shutdown()
})
