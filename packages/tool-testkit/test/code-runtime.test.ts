/**
 * FakeCodeRuntime: scripted programs for PTC tests.
 */
import { describe, expect, test } from 'vitest'
import type { JsonValue } from '@deepseek-ai/dsh-tools'
import { FakeCodeRuntime, type FakeCodeRunInput, type FakeCodeRunLimits } from '@deepseek-ai/dsh-tool-testkit'

const limits: FakeCodeRunLimits = { computeMs: 5_000, wallMs: 60_000, memoryBytes: 1 << 26, outputBytes: 1 << 16, valueBytes: 1 << 22, maxSubCalls: 1_000 }

function input(bindings: FakeCodeRunInput['bindings'], extra: Partial<FakeCodeRunInput> = {}): FakeCodeRunInput {
  return { program: 'return 1', bindings, signal: new AbortController().signal, limits, ...extra }
}

const echo = async (args: JsonValue) => args
const tick = () => new Promise((r) => setImmediate(r))

describe('FakeCodeRuntime', () => {
  test('plays logs, parallel calls, awaitAll and a computed return', async () => {
    const runtime = new FakeCodeRuntime()
    runtime.enqueue([
      { log: 'start' },
      { call: 'echo', args: { n: 1 } },
      { call: 'echo', args: { n: 2 } },
      { awaitAll: 'all' },
      { log: 'done' },
      { return: (s) => s.calls.map((c) => c.value ?? null) },
    ])
    const out = await runtime.run(input({ echo }))
    expect(out).toEqual({ value: [{ n: 1 }, { n: 2 }], logs: ['start', 'done'], stats: { subCalls: 2, computeMs: 0, wallMs: out.stats!.wallMs } })
    expect(runtime.runs[0]).toMatchObject({ program: 'return 1', bindingNames: ['echo'], calls: [{ name: 'echo', status: 'fulfilled' }, { name: 'echo', status: 'fulfilled' }] })
    expect(runtime.language).toBe('javascript')
    expect(runtime.isolation).toBe('none')
  })

  test('calls overlap until awaited: both bindings are in flight before either settles', async () => {
    const runtime = new FakeCodeRuntime()
    const releases: (() => void)[] = []
    const held = (args: JsonValue) => new Promise<JsonValue>((resolve) => releases.push(() => resolve(args)))
    runtime.enqueue([{ call: 'held', args: 'a' }, { call: 'held', args: 'b' }, { awaitAll: 'all' }, { return: 'ok' }])
    const running = runtime.run(input({ held }))
    await tick()
    expect(releases).toHaveLength(2)
    releases.forEach((r) => r())
    expect((await running).value).toBe('ok')
  })

  test('an awaited rejection fails the run as exception with the message; allSettled does not', async () => {
    const runtime = new FakeCodeRuntime()
    const fail = async () => {
      throw new Error('Tool "fail" failed: boom')
    }
    runtime.enqueue([{ log: 'x' }, { call: 'fail', await: true }, { return: 'unreachable' }])
    runtime.enqueue([{ call: 'fail' }, { awaitAll: 'settled' }, { return: (s) => s.calls[0]!.error ?? null }])
    runtime.enqueue([{ call: 'missing', await: true }])
    expect(await runtime.run(input({ fail }))).toMatchObject({ logs: ['x'], error: { kind: 'exception', message: 'Tool "fail" failed: boom' } })
    expect((await runtime.run(input({ fail }))).value).toBe('Tool "fail" failed: boom')
    expect((await runtime.run(input({}))).error).toEqual({ kind: 'exception', message: 'tools.missing is not a function' })
    expect(runtime.queued).toBe(0)
  })

  test('throw, fail with any kind, and an empty script (no value)', async () => {
    const runtime = new FakeCodeRuntime()
    runtime.enqueue([{ throw: 'TypeError: x is undefined' }], [{ log: 'a' }, { fail: { kind: 'memory', message: 'out of memory' } }], [])
    expect((await runtime.run(input({}))).error).toEqual({ kind: 'exception', message: 'TypeError: x is undefined' })
    expect(await runtime.run(input({}))).toMatchObject({ logs: ['a'], error: { kind: 'memory', message: 'out of memory' } })
    const empty = await runtime.run(input({}))
    expect([empty.value, empty.error, empty.logs]).toEqual([undefined, undefined, []])
  })

  test('hang waits for the signal and ends as abort; onSettle runs once, before run resolves; no call is forwarded after', async () => {
    const runtime = new FakeCodeRuntime()
    const controller = new AbortController()
    const order: string[] = []
    runtime.enqueue([{ log: 'waiting' }, { hang: true }, { call: 'echo' }])
    const running = runtime.run(input({ echo: async (a) => (order.push('echo'), a) }, { signal: controller.signal, onSettle: () => order.push('settle') }))
    await tick()
    controller.abort(new Error('caller stopped'))
    const out = await running
    order.push('resolved')
    expect(out).toMatchObject({ logs: ['waiting'], error: { kind: 'abort', message: 'caller stopped' } })
    expect(order).toEqual(['settle', 'resolved'])
  })

  test('a function script sees the input; the fallback plays when the queue is empty; maxSubCalls is enforced', async () => {
    const runtime = new FakeCodeRuntime({ language: 'typescript', isolation: 'wasm', fallback: (i) => [{ return: i.program }] })
    expect((await runtime.run(input({}, { program: 'print(1)' }))).value).toBe('print(1)')
    runtime.enqueue([{ call: 'echo' }, { call: 'echo' }, { awaitAll: 'all' }])
    const out = await runtime.run(input({ echo }, { limits: { ...limits, maxSubCalls: 1 } }))
    expect(out.error).toEqual({ kind: 'exception', message: 'sub-call limit reached (1)' })
    expect(runtime.runs[1]!.calls).toHaveLength(1)
    expect(runtime.runs[1]!.limits.maxSubCalls).toBe(1)
  })

  test('yield lets other work interleave between steps', async () => {
    const runtime = new FakeCodeRuntime()
    let outside = 0
    runtime.enqueue([{ yield: 2 }, { return: (s) => (s.logs.length === 0 ? outside : -1) }])
    const running = runtime.run(input({}))
    outside = 7
    expect((await running).value).toBe(7)
  })
})
