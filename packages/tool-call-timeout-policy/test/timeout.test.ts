/**
 * The wrapper's outcome contract (ARCHITECTURE §7): who fired first decides the code, the body
 * gets a derived signal only when there is a budget, and the caller's signal is back in place
 * after the wrapper.
 */
import { describe, expect, test, vi } from 'vitest'
import { defineTool } from '@deepseek-ai/dsh-tools'
import { call, MemorySessionLog, sleep, type Harness } from '@deepseek-ai/dsh-tool-testkit'
import { TimeoutPolicy, type TimeoutPolicyConfig } from '../src/index'
import { codeOf, probeTool, textOf, track, useFakeTimerHarness } from './fixtures/tools'

const harness = useFakeTimerHarness()

async function boot(config: TimeoutPolicyConfig = {}): Promise<Harness> {
  const h = await harness()
  await h.ctx.plugin(TimeoutPolicy, config)
  return h
}

describe('the deadline fires first → TOOL_TIMEOUT', () => {
  test('a cooperative tool overrunning its timeoutMs settles at the deadline with the exact model-facing text', async () => {
    const h = await boot()
    const { tool, runs } = probeTool({ timeoutMs: 100 })
    h.ctx.tools.register(tool)
    const pending = track(h.execute([call('probe', { ms: 1_000 }, 'c1')]))
    await vi.advanceTimersByTimeAsync(99)
    expect(pending.settled).toBe(false)
    expect(runs[0]!.signal.aborted).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    const [result] = await pending.promise
    expect(result).toEqual({
      callId: 'c1',
      isError: true,
      error: { message: 'tool call timed out after 100ms', info: { name: 'ToolError', code: 'TOOL_TIMEOUT' } },
      content: [{ type: 'text', text: 'Error: tool call timed out after 100ms' }],
      meta: { toolName: 'probe' },
    })
    // The body saw the deadline's reason: a TimeoutError carrying the same message.
    expect(runs[0]!.reason).toBeInstanceOf(DOMException)
    expect((runs[0]!.reason as DOMException).name).toBe('TimeoutError')
    expect((runs[0]!.reason as DOMException).message).toBe('tool call timed out after 100ms')
  })

  test.each([
    ['its own AbortError', 'own-abort'],
    ['a provider error with its own string code', 'provider'],
    ['nothing: it returns a value normally after the abort', 'return'],
  ] as const)('the tool answers the deadline with %s → still TOOL_TIMEOUT, no value reaches the result', async (_label, onAbort) => {
    const h = await boot()
    const { tool, runs } = probeTool({ timeoutMs: 50, onAbort })
    h.ctx.tools.register(tool)
    const pending = h.execute([call('probe', { ms: 1_000 }, 'c1')])
    await vi.advanceTimersByTimeAsync(50)
    const [result] = await pending
    expect(runs[0]!.end).toBe(onAbort === 'return' ? 'returned' : 'threw')
    expect(codeOf(result)).toBe('TOOL_TIMEOUT')
    expect(textOf(result)).toBe('Error: tool call timed out after 50ms')
    expect(result).not.toHaveProperty('value')
    expect(JSON.stringify(result)).not.toMatch(/partial|ECONNRESET|aborted/)
  })

  test('the caller aborting while the timed-out body is still cleaning up does not turn TOOL_TIMEOUT into ABORTED', async () => {
    const h = await boot()
    const seen: unknown[] = []
    h.ctx.tools.register(
      defineTool({
        name: 'cleanup',
        description: 'Takes 40 ms to clean up after an abort.',
        parameters: {},
        output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
        timeoutMs: 100,
        async execute(_args, exec) {
          try {
            await sleep(1_000, exec.signal)
            return 'done'
          } catch (reason) {
            seen.push(reason)
            await sleep(40) // cleanup that does not observe the signal
            throw reason
          }
        },
      }),
    )
    const controller = new AbortController()
    const pending = track(h.execute([call('cleanup', {}, 'c1')], { signal: controller.signal }))
    await vi.advanceTimersByTimeAsync(100) // deadline fires
    await vi.advanceTimersByTimeAsync(20)
    controller.abort(new Error('user pressed stop')) // caller aborts during the cleanup
    expect(pending.settled).toBe(false)
    await vi.advanceTimersByTimeAsync(20)
    const [result] = await pending.promise
    expect((seen[0] as DOMException).name).toBe('TimeoutError')
    expect(codeOf(result)).toBe('TOOL_TIMEOUT')
    expect(textOf(result)).toBe('Error: tool call timed out after 100ms')
  })
})

describe('the caller aborts first → the registry keeps ABORTED', () => {
  test.each([
    ['rethrows the reason', 'rethrow', 'ABORTED'],
    ['throws its own AbortError', 'own-abort', 'ABORTED'],
    ['returns a value anyway', 'return', 'ABORTED'],
    ['fails with its own provider error (a tool failure stays more specific)', 'provider', 'ECONNRESET'],
  ] as const)('the body %s → %s', async (_label, onAbort, expected) => {
    const h = await boot()
    const { tool, runs } = probeTool({ timeoutMs: 100, onAbort })
    h.ctx.tools.register(tool)
    const controller = new AbortController()
    const reason = new Error('user pressed stop')
    const pending = h.execute([call('probe', { ms: 1_000 }, 'c1')], { signal: controller.signal })
    await vi.advanceTimersByTimeAsync(30)
    controller.abort(reason)
    const [result] = await pending
    // The caller's reason reached the body through the deadline signal.
    expect(runs[0]!.reason).toBe(reason)
    expect(codeOf(result)).toBe(expected)
    if (expected === 'ABORTED') expect(textOf(result)).toBe('Error: Tool call was cancelled')
    // The deadline never fires afterwards.
    await vi.advanceTimersByTimeAsync(500)
    expect(vi.getTimerCount()).toBe(0)
  })
})

describe('the signal the body and the other stages see', () => {
  test('no budget (no timeoutMs, no default): the body gets the caller\'s own signal, untouched', async () => {
    const h = await boot()
    const { tool, runs } = probeTool()
    h.ctx.tools.register(tool)
    const controller = new AbortController()
    const pending = h.execute([call('probe', { ms: 10 }, 'c1')], { signal: controller.signal })
    await vi.advanceTimersByTimeAsync(10)
    const [result] = await pending
    expect(result).toMatchObject({ isError: false, value: 'slept 10ms' })
    expect(runs[0]!.signal).toBe(controller.signal)
  })

  test('with a budget the body gets a derived signal; later wrappers see it, earlier ones and post-execute see the caller\'s again', async () => {
    const h = await harness()
    const controller = new AbortController()
    const trace: string[] = []
    const who = (signal: AbortSignal, deadline: AbortSignal | undefined): string => (signal === controller.signal ? 'caller' : signal === deadline ? 'deadline' : 'other')
    let deadline: AbortSignal | undefined
    // Registered before the policy: outermost.
    h.ctx.on('tools/execute', async (exec, next) => {
      trace.push(`outer before: ${who(exec.signal, deadline)}`)
      try {
        return await next()
      } finally {
        trace.push(`outer after: ${who(exec.signal, deadline)}`)
      }
    })
    await h.ctx.plugin(TimeoutPolicy, {})
    // Registered after the policy: inside the deadline.
    h.ctx.on('tools/execute', async (exec, next) => {
      deadline = exec.signal
      trace.push(`inner: ${who(exec.signal, deadline)} aborted=${exec.signal.aborted}`)
      return next()
    })
    h.ctx.on('tools/post-execute', (exec, _draft, next) => {
      trace.push(`post-execute: ${who(exec.signal, deadline)}`)
      return next()
    })
    h.ctx.on('tools/result', (_result, event) => {
      trace.push(`result: ${who(event.exec!.signal, deadline)}`)
    })
    const { tool, runs } = probeTool({ timeoutMs: 100 })
    h.ctx.tools.register(tool)
    for (const ms of [10, 1_000]) {
      trace.push(`-- ${ms}ms`)
      const pending = h.execute([call('probe', { ms }, `c${ms}`)], { signal: controller.signal })
      await vi.advanceTimersByTimeAsync(100)
      await pending
    }
    expect(trace).toEqual([
      '-- 10ms',
      'outer before: caller',
      'inner: deadline aborted=false',
      'outer after: caller',
      'post-execute: caller',
      'result: caller',
      '-- 1000ms',
      'outer before: caller',
      'inner: deadline aborted=false',
      'outer after: caller',
      'post-execute: caller',
      'result: caller',
    ])
    // The body's signal follows the deadline (the registry fuses it with the caller's).
    expect(runs.map((r) => r.signal === controller.signal)).toEqual([false, false])
    expect(runs.map((r) => r.end)).toEqual(['returned', 'threw'])
  })

  test('defaultTimeoutMs applies only to tools without their own timeoutMs', async () => {
    const h = await boot({ defaultTimeoutMs: 50 })
    const own = probeTool({ name: 'own', timeoutMs: 200 })
    const fallback = probeTool({ name: 'fallback' })
    h.ctx.tools.register(own.tool)
    h.ctx.tools.register(fallback.tool)
    const pending = h.execute([call('own', { ms: 120 }, 'a'), call('fallback', { ms: 120 }, 'b'), call('own', { ms: 500 }, 'c')])
    await vi.advanceTimersByTimeAsync(200)
    const results = await pending
    expect(results.map((r) => [r.callId, codeOf(r) ?? 'ok', textOf(r)])).toEqual([
      ['a', 'ok', 'slept 120ms'], // 120 ms > the 50 ms default, but its own 200 ms budget wins
      ['b', 'TOOL_TIMEOUT', 'Error: tool call timed out after 50ms'],
      ['c', 'TOOL_TIMEOUT', 'Error: tool call timed out after 200ms'],
    ])
  })

  test('the session log and tools/result record exactly the timeout content, once', async () => {
    const h = await boot()
    const { tool } = probeTool({ timeoutMs: 100, onAbort: 'return' })
    h.ctx.tools.register(tool)
    const log = new MemorySessionLog()
    const observed: string[] = []
    h.ctx.on('tools/result', (result) => {
      observed.push(`${result.callId}:${textOf(result)}`)
    })
    const { agent } = h.agent('a1', { log })
    const pending = h.execute([call('probe', { ms: 1_000 }, 'c1')], { agent })
    await vi.advanceTimersByTimeAsync(100)
    await pending
    expect(log.trace()).toEqual(['tool/call:c1', 'tool/result:c1'])
    expect(log.ofType('tool/result')[0]).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Error: tool call timed out after 100ms' }] })
    expect(observed).toEqual(['c1:Error: tool call timed out after 100ms'])
  })
})
