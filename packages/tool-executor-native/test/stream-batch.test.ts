/**
 * A stream run is a batch like `ctx.tools.execute()`'s: `tools/batch-start` / `tools/batch-end`
 * (with `streaming: true`, the runner's batch id, results in call order), the registry's per-batch
 * result budget on `outcome.results`, and the native executor's `onDispose` reaching it.
 */
import { getEventListeners } from 'node:events'
import { afterEach, describe, expect, test } from 'vitest'
import { Context } from 'cordis'
import { ToolRegistry, defineRawTool, type JsonObject, type ToolBatchEvent, type ToolResult, type ToolRegistryConfig } from '@deepseek-ai/dsh-tools'
import { ExecutorDisposedError, createNativeExecutor, executeToolStream, type NativeExecutorConfig, type OpenAIChatChunkWire, type ToolStreamOutcome } from '../src'

let ctx: Context | undefined
let log: string[]
let held: (() => void)[]

afterEach(async () => {
  await ctx?.fiber.dispose()
  ctx = undefined
})

/** A context with the registry (`registry` config) and a native executor mounted with `executor`; returns its unmount. */
async function setup(registry: ToolRegistryConfig = {}, executor: NativeExecutorConfig = {}): Promise<() => Promise<void>> {
  log = []
  held = []
  ctx = new Context()
  await ctx.plugin(ToolRegistry, registry)
  const unmount = ctx.tools.mount(createNativeExecutor(executor))
  ctx.tools.register(
    defineRawTool({
      name: 'probe',
      description: 'Returns `size` x characters; `hold` runs until aborted.',
      inputSchema: { type: 'object', properties: { tag: { type: 'string' }, size: { type: 'integer' }, hold: { type: 'boolean' } }, required: ['tag'] },
      isConcurrencySafe: () => true,
      execute: (args, exec) => {
        log.push(`body:${String(args.tag)}:${exec.batchId}`)
        if (args.hold !== true) return 'x'.repeat(typeof args.size === 'number' ? args.size : 1)
        return new Promise<string>((resolve, reject) => {
          held.push(() => resolve('released'))
          exec.signal.addEventListener('abort', () => reject(exec.signal.reason), { once: true })
        })
      },
    }),
  )
  ctx.on('tools/batch-start', (event: ToolBatchEvent) => log.push(`batch-start:${event.batchId}:${event.streaming === true}:${event.calls.length}:${event.executor}`))
  ctx.on('tools/result', (result: ToolResult) => log.push(`result:${result.callId}`))
  ctx.on('tools/batch-end', (event: ToolBatchEvent, results: readonly ToolResult[]) => log.push(`batch-end:${event.batchId}:${event.calls.length}:${results.map((r) => r.callId).join(',')}`))
  return unmount
}

const chunk = (toolCalls: JsonObject[] | undefined, finish: string | null = null, content?: string): OpenAIChatChunkWire =>
  ({ choices: [{ index: 0, delta: { ...(toolCalls === undefined ? {} : { tool_calls: toolCalls }), ...(content === undefined ? {} : { content }) }, finish_reason: finish }] }) as unknown as OpenAIChatChunkWire
const begin = (index: number, id: string, args: JsonObject): OpenAIChatChunkWire => chunk([{ index, id, type: 'function', function: { name: 'probe', arguments: JSON.stringify(args) } }])
const codes = (outcome: ToolStreamOutcome) => outcome.results.map((r) => (r.isError ? r.error.info.code : 'ok'))
const batchOf = (entry: string | undefined): string => /stream-batch-\d+/.exec(entry ?? '')?.[0] ?? 'none'

/**
 * `entries` are one batch of calls a, b: batch-start (with `known` calls) first, bodies in call
 * order under its id, results in call order, batch-end last with both results. (Whether b's body
 * starts before a's result is scheduling, not contract.)
 */
function expectBatch(entries: readonly string[], known: number): void {
  const id = batchOf(entries[0])
  expect(id).toMatch(/^stream-batch-\d+$/)
  expect(entries[0]).toBe(`batch-start:${id}:true:${known}:native`)
  expect(entries.at(-1)).toBe(`batch-end:${id}:2:a,b`)
  expect(entries.filter((e) => e.startsWith('body:'))).toEqual([`body:a:${id}`, `body:b:${id}`])
  expect(entries.filter((e) => e.startsWith('result:'))).toEqual(['result:a', 'result:b'])
  expect(entries.length).toBe(6)
}

/** A stream that yields `chunks` then waits for its `return()` (an open connection), leaving nothing pending after it. */
function hangingStream(chunks: readonly OpenAIChatChunkWire[]): AsyncIterable<OpenAIChatChunkWire> & { closed: boolean } {
  let i = 0
  let close: (() => void) | undefined
  const stream = {
    closed: false,
    [Symbol.asyncIterator]: () => ({
      next: (): Promise<IteratorResult<OpenAIChatChunkWire>> =>
        i < chunks.length ? Promise.resolve({ done: false, value: chunks[i++]! }) : new Promise((resolve) => (close = () => resolve({ done: true, value: undefined }))),
      return: (): Promise<IteratorResult<OpenAIChatChunkWire>> => {
        stream.closed = true
        close?.()
        return Promise.resolve({ done: true, value: undefined })
      },
    }),
  }
  return stream
}

describe('batch events of a stream run', () => {
  test('batch-start (streaming, the calls known then) precedes the first body; batch-end follows the last result with every result in call order', async () => {
    await setup()
    const chunks = [begin(0, 'a', { tag: 'a' }), begin(1, 'b', { tag: 'b' }), chunk(undefined, 'tool_calls')]
    const outcome = await executeToolStream(ctx!, { provider: 'openai-chat', stream: chunks }).outcome
    expectBatch(log, 1)
    expect(codes(outcome)).toEqual(['ok', 'ok'])
  })

  test('eager: false opens the batch when the first call starts, after the stream; a turn without calls is no batch', async () => {
    await setup()
    await executeToolStream(ctx!, { provider: 'openai-chat', stream: [chunk(undefined, 'stop', 'hello')] }).outcome
    expect(log).toEqual([])
    await executeToolStream(ctx!, { provider: 'openai-chat', stream: [begin(0, 'a', { tag: 'a' }), begin(1, 'b', { tag: 'b' }), chunk(undefined, 'tool_calls')], eager: false }).outcome
    expectBatch(log, 1)
  })

  test('a cut turn whose calls never started still opens and closes its batch with the truncation failures', async () => {
    await setup()
    const outcome = await executeToolStream(ctx!, { provider: 'openai-chat', stream: [begin(0, 'a', { tag: 'a' }), chunk(undefined, 'length')] }).outcome
    expect(codes(outcome)).toEqual(['TRUNCATED_RESPONSE'])
    const id = batchOf(log[0])
    expect(log).toEqual([`batch-start:${id}:true:1:native`, `batch-end:${id}:1:a`])
  })
})

describe('the per-batch budget on a stream run', () => {
  test('outcome.results and batch-end are cut to fair shares; the yielded items are the unbudgeted results', async () => {
    await setup({ resultBudget: { batchMaxChars: 1_000 } })
    const chunks = [begin(0, 'a', { tag: 'a', size: 100 }), begin(1, 'b', { tag: 'b', size: 3_000 }), begin(2, 'c', { tag: 'c', size: 5_000 }), chunk(undefined, 'tool_calls')]
    let ended: readonly ToolResult[] = []
    ctx!.on('tools/batch-end', (_event: ToolBatchEvent, results: readonly ToolResult[]) => (ended = results))
    const run = executeToolStream(ctx!, { provider: 'openai-chat', stream: chunks })
    const yielded: number[] = []
    for await (const { result } of run) yielded.push(result.isError ? -1 : (result.content[0] as { text: string }).text.length)
    const outcome = await run.outcome
    expect(yielded).toEqual([100, 3_000, 5_000])
    expect(outcome.results.map((r) => r.meta?.cut?.shownChars)).toEqual([undefined, 450, 450])
    expect(outcome.results.map((r) => r.meta?.cut?.totalChars)).toEqual([undefined, 3_000, 5_000])
    expect(ended).toBe(outcome.results)
    expect(Object.isFrozen(outcome.results)).toBe(true)
  })
})

describe('unmounting the native executor during a stream run', () => {
  test('cancel: the stream closes, the running call settles ABORTED with EXECUTOR_DISPOSED, the rest by the truncation rules', async () => {
    const unmount = await setup({}, { onDispose: 'cancel' })
    let reason: unknown
    ctx!.on('tools/result', (result: ToolResult) => {
      if (result.isError) reason = result.error.info.code
    })
    const stream = hangingStream([begin(0, 'a', { tag: 'a', hold: true }), begin(1, 'b', { tag: 'b' })])
    const user = new AbortController()
    const run = executeToolStream(ctx!, { provider: 'openai-chat', stream, signal: user.signal })
    while (log.length < 2) await new Promise((r) => setImmediate(r))
    expect(getEventListeners(user.signal, 'abort').length).toBe(1)
    await unmount()
    const outcome = await run.outcome
    expect(stream.closed).toBe(true)
    expect(outcome.streamEnded).toBe(false)
    expect(outcome.streamError).toBeInstanceOf(ExecutorDisposedError)
    expect(outcome.streamError).toMatchObject({ name: 'AbortError', code: 'EXECUTOR_DISPOSED' })
    expect(codes(outcome)).toEqual(['ABORTED', 'TRUNCATED_RESPONSE'])
    expect(reason).toBe('ABORTED')
    const id = batchOf(log[0])
    expect(log.at(-1)).toBe(`batch-end:${id}:2:a,b`)
    expect(held.length).toBe(1)
    expect(getEventListeners(user.signal, 'abort').length).toBe(0)
  })

  test('drain: disposal waits for the stream run, which keeps reading and settles normally', async () => {
    const unmount = await setup({}, { onDispose: 'drain' })
    const stream = hangingStream([begin(0, 'a', { tag: 'a', hold: true }), chunk([{ index: 1, id: 'b', type: 'function', function: { name: 'probe', arguments: '{"tag":' } }])])
    const run = executeToolStream(ctx!, { provider: 'openai-chat', stream })
    while (log.length < 2) await new Promise((r) => setImmediate(r))
    let disposed = false
    const disposal = unmount().then(() => (disposed = true))
    held[0]!()
    while (!log.includes('result:a')) await new Promise((r) => setImmediate(r))
    expect([disposed, stream.closed]).toEqual([false, false])
    await stream[Symbol.asyncIterator]().return!()
    await disposal
    expect(disposed).toBe(true)
    const outcome = await run.outcome
    expect(codes(outcome)).toEqual(['ok', 'TRUNCATED_ARGUMENTS'])
    expect(outcome.streamEnded).toBe(true)
  })

})
