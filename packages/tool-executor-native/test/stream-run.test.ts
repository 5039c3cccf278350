/**
 * `executeToolStream` with in-process streams (async generators that wait for the tool bodies
 * where the test needs an order): option checks, start-after-stream, an output limit after a
 * call started, a finished call kept through a cut, a stream that throws, malformed markup.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { Context } from 'cordis'
import { ToolRegistry, defineRawTool, type JsonObject } from '@deepseek-ai/dsh-tools'
import { MemorySessionLog } from '@deepseek-ai/dsh-tool-testkit'
import { NativeExecutor, StreamCutError, executeToolStream, type OpenAIChatChunkWire, type ToolStreamOutcome } from '../src'

let ctx: Context
let log: string[]
let wake: (() => void)[]
/** The reason the last held body was aborted with. */
let reason: unknown

/** Resolves once `entry` is in the log (bounded: 5 s). */
function logged(entry: string): Promise<void> {
  if (log.includes(entry)) return Promise.resolve()
  return new Promise<void>((resolve) => {
    const timer = setTimeout(done, 5000)
    function done(): void {
      clearTimeout(timer)
      resolve()
    }
    wake.push(() => {
      if (log.includes(entry)) done()
    })
  })
}
function note(entry: string): void {
  log.push(entry)
  for (const w of [...wake]) w()
}

beforeEach(async () => {
  log = []
  wake = []
  reason = undefined
  ctx = new Context()
  await ctx.plugin(ToolRegistry, {})
  await ctx.plugin(NativeExecutor, {})
  ctx.tools.register(
    defineRawTool({
      name: 'probe',
      description: 'Records its start; `hold` runs until aborted.',
      inputSchema: { type: 'object', properties: { tag: { type: 'string' }, hold: { type: 'boolean' } }, required: ['tag'] },
      isConcurrencySafe: () => true,
      execute: (args, exec) => {
        note(`start:${String(args.tag)}`)
        if (args.hold !== true) {
          note(`end:${String(args.tag)}`)
          return `done ${String(args.tag)}`
        }
        return new Promise<string>((_, reject) =>
          exec.signal.addEventListener(
            'abort',
            () => {
              reason = exec.signal.reason
              reject(exec.signal.reason)
            },
            { once: true },
          ),
        )
      },
    }),
  )
})

afterEach(async () => {
  await ctx.fiber.dispose()
})

const chunk = (toolCalls: JsonObject[] | undefined, finish: string | null = null, content?: string): OpenAIChatChunkWire =>
  ({ choices: [{ index: 0, delta: { ...(toolCalls === undefined ? {} : { tool_calls: toolCalls }), ...(content === undefined ? {} : { content }) }, finish_reason: finish }] }) as unknown as OpenAIChatChunkWire
const begin = (index: number, id: string, args: string): OpenAIChatChunkWire => chunk([{ index, id, type: 'function', function: { name: 'probe', arguments: args } }])
const codes = (outcome: ToolStreamOutcome) => outcome.results.map((r) => (r.isError ? r.error.info.code : 'ok'))

describe('executeToolStream', () => {
  test('bad options throw at once, naming the field', () => {
    const stream = [] as OpenAIChatChunkWire[]
    expect(() => executeToolStream(ctx, { provider: 'mistral', stream } as never)).toThrow(
      new RangeError('executeToolStream: /provider must be one of openai-chat, deepseek, openai-compatible, openai-responses, anthropic, gemini, got "mistral"'),
    )
    expect(() => executeToolStream(ctx, { provider: 'openai-chat', stream: 42 as never })).toThrow(new TypeError('executeToolStream: /stream must be an async iterable or iterable of openai-chat chunks, got number'))
    expect(() => executeToolStream(ctx, { provider: 'openai-chat', stream, signal: {} as never })).toThrow(new TypeError('executeToolStream: /signal must be an AbortSignal'))
    expect(() => executeToolStream(ctx, { provider: 'openai-chat', stream, maxParallelCalls: 0 })).toThrow(new RangeError('maxParallelCalls must be an integer from 1 to 1000, got 0'))
  })

  test('eager: false starts nothing before the stream ends; the outcome is the eager one', async () => {
    const chunks = [begin(0, 'a', '{"tag":"a"}'), begin(1, 'b', '{"tag":"b"}'), chunk(undefined, 'tool_calls')]
    const lazy = await executeToolStream(ctx, { provider: 'openai-chat', stream: chunks, eager: false }).outcome
    const eager = await executeToolStream(ctx, { provider: 'openai-chat', stream: chunks }).outcome
    expect([lazy.startedEarly, eager.startedEarly]).toEqual([0, 2])
    expect(lazy.results.map((r) => r.content)).toEqual(eager.results.map((r) => r.content))
    expect(lazy.calls).toEqual(eager.calls)
    expect(codes(lazy)).toEqual(['ok', 'ok'])
  })

  test('finish_reason length after a call started: it is aborted (STREAM_CUT reason); the complete call that did not start fails TRUNCATED_RESPONSE', async () => {
    async function* stream(): AsyncGenerator<OpenAIChatChunkWire> {
      yield begin(0, 'a', '{"tag":"a","hold":true}')
      yield begin(1, 'b', '{"tag":"b"}')
      await logged('start:a')
      yield chunk(undefined, 'length')
    }
    const outcome = await executeToolStream(ctx, { provider: 'openai-chat', stream: stream() }).outcome
    expect(outcome.parsed.status).toBe('truncated')
    expect(outcome.streamEnded).toBe(true)
    expect(codes(outcome)).toEqual(['ABORTED', 'TRUNCATED_RESPONSE'])
    expect(reason).toBeInstanceOf(StreamCutError)
    expect(reason).toMatchObject({ name: 'AbortError', code: 'STREAM_CUT', message: 'the model stream was cut at its output limit' })
    expect(log).toEqual(['start:a'])
  })

  test('a call that finished before the stream was cut keeps its result; the call being written fails TRUNCATED_ARGUMENTS', async () => {
    async function* stream(): AsyncGenerator<OpenAIChatChunkWire> {
      yield begin(0, 'a', '{"tag":"a"}')
      yield begin(1, 'b', '{"tag":')
      await logged('end:a')
    }
    const run = executeToolStream(ctx, { provider: 'openai-chat', stream: stream() })
    const seen: string[] = []
    for await (const item of run) seen.push(`${item.index}:${item.call.callId}:${item.result.isError ? item.result.error.info.code : 'ok'}`)
    const outcome = await run.outcome
    expect(seen).toEqual(['0:a:ok', '1:b:TRUNCATED_ARGUMENTS'])
    expect(outcome.results[0]?.content).toEqual([{ type: 'text', text: 'done a' }])
    expect(outcome.parsed.finish.kind).toBe('missing')
  })

  test('a stream that throws: started calls are cancelled, streamError is what it threw', async () => {
    const reset = new Error('socket hang up')
    async function* stream(): AsyncGenerator<OpenAIChatChunkWire> {
      yield begin(0, 'a', '{"tag":"a","hold":true}')
      yield begin(1, 'b', '{"tag":"b"}')
      await logged('start:a')
      throw reset
    }
    const outcome = await executeToolStream(ctx, { provider: 'openai-chat', stream: stream() }).outcome
    expect({ ended: outcome.streamEnded, error: outcome.streamError, codes: codes(outcome) }).toEqual({ ended: false, error: reset, codes: ['ABORTED', 'TRUNCATED_RESPONSE'] })
  })

  test('an abort stops the read at once, even while the stream waits for its next chunk; the stream is closed', async () => {
    const controller = new AbortController()
    let release = (): void => undefined
    let closed = false
    async function* stream(): AsyncGenerator<OpenAIChatChunkWire> {
      try {
        yield begin(0, 'a', '{"tag":"a","hold":true}')
        yield begin(1, 'b', '{"tag":')
        await logged('start:a')
        controller.abort(new Error('user pressed stop'))
        // The model would go on writing; this stream only goes on when the test releases it.
        await new Promise<void>((resolve) => (release = resolve))
        yield chunk(undefined, 'tool_calls')
      } finally {
        closed = true
      }
    }
    const outcome = await executeToolStream(ctx, { provider: 'openai-chat', stream: stream(), signal: controller.signal }).outcome
    expect({ ended: outcome.streamEnded, error: (outcome.streamError as Error).message, codes: codes(outcome) }).toEqual({ ended: false, error: 'user pressed stop', codes: ['ABORTED', 'TRUNCATED_ARGUMENTS'] })
    expect(reason).toBe(controller.signal.reason)
    // return() was called while the generator waited: it runs its finally once it resumes.
    release()
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(closed).toBe(true)
  })

  test('the session log gets tool/call as each call starts and tool/result in model order; exec.batchId names the run', async () => {
    const session = new MemorySessionLog()
    const batchIds: string[] = []
    ctx.on('tools/pre-execute', (exec) => {
      batchIds.push(String(exec.batchId))
      return { type: 'allow' }
    })
    async function* stream(): AsyncGenerator<OpenAIChatChunkWire> {
      yield begin(0, 'a', '{"tag":"a"}')
      yield begin(1, 'b', '{"tag":"b"}')
      await logged('end:a')
      session.append({ type: 'tool/call', callId: 'marker', name: 'stream-end', arguments: {} })
      yield chunk(undefined, 'tool_calls')
    }
    await executeToolStream(ctx, { provider: 'openai-chat', stream: stream(), log: session }).outcome
    expect(session.events.map((e) => `${e.type} ${e.callId}`)).toEqual(['tool/call a', 'tool/result a', 'tool/call marker', 'tool/call b', 'tool/result b'])
    expect(batchIds).toHaveLength(2)
    expect(batchIds[0]).toMatch(/^stream-batch-\d+$/)
    expect(batchIds[1]).toBe(batchIds[0])
  })

  test('text with malformed tool-call markup and no structured calls: nothing runs, no results', async () => {
    const outcome = await executeToolStream(ctx, { provider: 'deepseek', stream: [chunk(undefined, null, '<tool_call>{"name": "probe", "arguments": {"tag": </tool_call>'), chunk(undefined, 'stop')] }).outcome
    expect([outcome.parsed.status, outcome.calls.length, outcome.results.length, outcome.startedEarly]).toEqual(['malformed-markup', 0, 0, 0])
  })
})

describe('executeToolStream and the mounted executor', () => {
  test('no executor: NoExecutorError; another executor: a TypeError naming it', async () => {
    const bare = new Context()
    await bare.plugin(ToolRegistry, {})
    try {
      expect(() => executeToolStream(bare, { provider: 'openai-chat', stream: [] })).toThrow(
        'No tool executor is mounted for scope "deployment" or its ancestors; mount one (native or PTC) before executing a batch',
      )
      bare.tools.mount({ name: 'ptc', describe: (input) => ({ tools: input.schemas, sections: [] }), execute: async () => [] })
      expect(() => executeToolStream(bare, { provider: 'openai-chat', stream: [] })).toThrow(
        new TypeError('executeToolStream runs calls as the native executor does, but scope "deployment" is served by the "ptc" executor: parse the stream (its accumulator) and run the batch with ctx.tools.execute'),
      )
    } finally {
      await bare.fiber.dispose()
    }
  })

  test("the pool bound defaults to the native executor's maxParallelCalls", async () => {
    const serial = new Context()
    await serial.plugin(ToolRegistry, {})
    await serial.plugin(NativeExecutor, { maxParallelCalls: 1 })
    const order: string[] = []
    serial.tools.register(
      defineRawTool({
        name: 'probe',
        description: 'Parallel-safe, takes a few ms.',
        inputSchema: { type: 'object', properties: { tag: { type: 'string' } }, required: ['tag'] },
        isConcurrencySafe: () => true,
        execute: async (args) => {
          order.push(`start:${String(args.tag)}`)
          await new Promise((resolve) => setTimeout(resolve, 5))
          order.push(`end:${String(args.tag)}`)
          return 'ok'
        },
      }),
    )
    try {
      const chunks = [begin(0, 'a', '{"tag":"a"}'), begin(1, 'b', '{"tag":"b"}'), chunk(undefined, 'tool_calls')]
      await executeToolStream(serial, { provider: 'openai-chat', stream: chunks }).outcome
      expect(order).toEqual(['start:a', 'end:a', 'start:b', 'end:b'])
      order.length = 0
      await executeToolStream(serial, { provider: 'openai-chat', stream: chunks, maxParallelCalls: 2 }).outcome
      expect(order).toEqual(['start:a', 'start:b', 'end:a', 'end:b'])
    } finally {
      await serial.fiber.dispose()
    }
  })
})
