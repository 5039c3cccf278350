/**
 * The opt-in hard limit (ARCHITECTURE §7): a body that ignores its signal is abandoned
 * `graceMs` after the signal fired; it is counted, reported through `tools/abandoned`, and its
 * late outcome is dropped. Off by default: quiescence (the body is awaited) is the default.
 */
import { describe, expect, test, vi } from 'vitest'
import { defineTool, type ToolResult } from '@deepseek-ai/dsh-tools'
import { call, MemorySessionLog, signalIgnoringTool, sleep } from '@deepseek-ai/dsh-tool-testkit'
import { DEFAULT_GRACE_MS, TimeoutPolicy, timeoutStats, type TimeoutPolicyConfig, type ToolAbandonedEvent } from '../src/index'
import { codeOf, probeTool, textOf, track, useFakeTimerHarness } from './fixtures/tools'

const harness = useFakeTimerHarness()

async function boot(config: TimeoutPolicyConfig) {
  const h = await harness()
  const { tool, finished } = signalIgnoringTool()
  h.ctx.tools.register({ ...tool, timeoutMs: 100 })
  const log = new MemorySessionLog()
  const agent = h.agent('worker', { log })
  await h.ctx.plugin(TimeoutPolicy, config)
  const events: ToolAbandonedEvent[] = []
  h.ctx.on('tools/abandoned', (event) => {
    events.push(event)
  })
  const results: ToolResult[] = []
  h.ctx.on('tools/result', (result) => {
    results.push(result)
  })
  return { h, finished, log, agent, events, results }
}

describe('hard limit on', () => {
  test('a signal-ignoring body is abandoned at budget + grace: TOOL_TIMEOUT, counted, reported, its late value dropped', async () => {
    const { h, finished, log, agent, events, results } = await boot({ hardLimit: { graceMs: 50 } })
    const before = timeoutStats.snapshot()
    const pending = track(h.execute([call('stubborn', { ms: 5_000 }, 'c1')], { agent: agent.agent }))

    await vi.advanceTimersByTimeAsync(149)
    expect(pending.settled).toBe(false) // the deadline fired at 100; the grace runs until 150
    await vi.advanceTimersByTimeAsync(1)
    const [result] = await pending.promise
    expect(result).toEqual({
      callId: 'c1',
      isError: true,
      error: {
        message: 'tool call timed out after 100ms',
        info: { name: 'ToolError', code: 'TOOL_TIMEOUT', reason: 'The tool did not stop within 50ms after its 100ms deadline and was abandoned; its work may still be running.' },
      },
      content: [{ type: 'text', text: 'Error: tool call timed out after 100ms' }],
      meta: { toolName: 'stubborn' },
    })
    expect(finished).toEqual([]) // settled without the body
    expect(vi.getTimerCount()).toBe(1) // only the abandoned body's own sleep: the policy's timers are gone
    expect(timeoutStats.abandoned - before.abandoned).toBe(1)
    expect(timeoutStats.abandonedRunning - before.abandonedRunning).toBe(1)
    expect(timeoutStats.timedOut - before.timedOut).toBe(1)
    expect(events).toEqual([{ callId: 'c1', toolName: 'stubborn', budgetMs: 100, graceMs: 50, cause: 'timeout', scope: agent.agent.scope, agentId: 'worker' }])
    expect(Object.isFrozen(events[0])).toBe(true)

    // The body finishes much later: nothing of it reaches a result, the log or the model.
    await vi.advanceTimersByTimeAsync(5_000)
    expect(finished).toEqual(['c1'])
    expect(timeoutStats.abandonedRunning - before.abandonedRunning).toBe(0)
    expect(timeoutStats.abandoned - before.abandoned).toBe(1)
    expect(results.map((r) => [r.callId, codeOf(r)])).toEqual([['c1', 'TOOL_TIMEOUT']])
    expect(log.trace()).toEqual(['tool/call:c1', 'tool/result:c1'])
    expect(JSON.stringify([log.events, results, result])).not.toContain('finished anyway')
    expect(vi.getTimerCount()).toBe(0)
  })

  test('hardLimit: true uses the default grace (1,000 ms)', async () => {
    const { h, agent } = await boot({ hardLimit: true })
    const pending = track(h.execute([call('stubborn', { ms: 5_000 }, 'c1')], { agent: agent.agent }))
    await vi.advanceTimersByTimeAsync(100 + DEFAULT_GRACE_MS - 1)
    expect(pending.settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(codeOf((await pending.promise)[0])).toBe('TOOL_TIMEOUT')
  })

  test('a caller abort first, then a signal-ignoring body: abandoned after the grace as ABORTED (cause "abort")', async () => {
    const { h, agent, events, finished } = await boot({ hardLimit: { graceMs: 50 } })
    const controller = new AbortController()
    const pending = track(h.execute([call('stubborn', { ms: 5_000 }, 'c1')], { agent: agent.agent, signal: controller.signal }))
    await vi.advanceTimersByTimeAsync(10)
    controller.abort()
    await vi.advanceTimersByTimeAsync(49)
    expect(pending.settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    const [result] = await pending.promise
    expect(codeOf(result)).toBe('ABORTED')
    expect(textOf(result)).toBe('Error: Tool call was cancelled')
    expect(events.map((e) => [e.callId, e.cause])).toEqual([['c1', 'abort']])
    expect(finished).toEqual([])
  })

  test('a cooperative body (stops at the deadline, or cleans up within the grace) is never abandoned', async () => {
    const { h, agent, events } = await boot({ hardLimit: { graceMs: 50 } })
    const quick = probeTool({ name: 'quick', timeoutMs: 100 })
    h.ctx.tools.register(quick.tool)
    h.ctx.tools.register(
      defineTool({
        name: 'tidy',
        description: 'Cleans up for 30 ms after an abort.',
        parameters: {},
        output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
        timeoutMs: 100,
        isConcurrencySafe: () => true,
        async execute(_args, exec) {
          await sleep(1_000, exec.signal).catch(() => sleep(30))
          return 'tidied'
        },
      }),
    )
    const before = timeoutStats.snapshot()
    const pending = h.execute([call('quick', { ms: 1_000 }, 'q'), call('tidy', {}, 't')], { agent: agent.agent })
    await vi.advanceTimersByTimeAsync(130)
    const results = await pending
    expect(results.map((r) => [r.callId, codeOf(r)])).toEqual([
      ['q', 'TOOL_TIMEOUT'],
      ['t', 'TOOL_TIMEOUT'],
    ])
    expect(events).toEqual([])
    expect(timeoutStats.abandoned).toBe(before.abandoned)
    expect(vi.getTimerCount()).toBe(0)
  })

  test('tools/abandoned is scope-filtered and a throwing listener is contained', async () => {
    const { h, agent, events } = await boot({ hardLimit: { graceMs: 0 } })
    const other = h.agent('other')
    const otherSeen: string[] = []
    other.ctx.on('tools/abandoned', (event) => {
      otherSeen.push(event.callId)
    })
    const ownSeen: string[] = []
    agent.ctx.on('tools/abandoned', () => {
      throw new Error('listener bug')
    })
    agent.ctx.on('tools/abandoned', (event) => {
      ownSeen.push(event.callId)
    })
    const warn = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    const pending = h.execute([call('stubborn', { ms: 5_000 }, 'c1')], { agent: agent.agent })
    await vi.advanceTimersByTimeAsync(101) // graceMs 0: the next timer tick (Node clamps 0 to 1 ms)
    const [result] = await pending
    warn.mockRestore()
    expect(codeOf(result)).toBe('TOOL_TIMEOUT')
    expect(events.map((e) => e.callId)).toEqual(['c1']) // deployment listener
    expect(ownSeen).toEqual(['c1']) // after the throwing one
    expect(otherSeen).toEqual([])
  })
})

describe('hard limit off (the default): quiescence', () => {
  test('a signal-ignoring body is awaited to its end; the call is still TOOL_TIMEOUT and nothing is abandoned', async () => {
    const { h, agent, finished, events } = await boot({})
    const before = timeoutStats.snapshot()
    const pending = track(h.execute([call('stubborn', { ms: 5_000 }, 'c1')], { agent: agent.agent }))
    await vi.advanceTimersByTimeAsync(4_999)
    expect(pending.settled).toBe(false)
    expect(vi.getTimerCount()).toBe(1) // only the body's own sleep: the deadline already fired
    await vi.advanceTimersByTimeAsync(1)
    const [result] = await pending.promise
    expect(finished).toEqual(['c1'])
    expect(codeOf(result)).toBe('TOOL_TIMEOUT')
    expect(JSON.stringify(result)).not.toContain('finished anyway')
    expect(events).toEqual([])
    expect(timeoutStats.abandoned).toBe(before.abandoned)
  })
})
