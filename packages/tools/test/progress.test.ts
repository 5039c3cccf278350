/**
 * Progress from long tools: `exec.reportProgress` → `tools/progress` events, throttled per call,
 * every event before the call's result, none after it, never model content.
 */
import { afterEach, describe, expect, test } from 'vitest'
import { defineTool, ToolRegistry, type ToolExecution, type ToolProgressEvent, type ToolResult } from '@deepseek-ai/dsh-tools'
import { call, createHarness, ManualClock, type Harness } from '@deepseek-ai/dsh-tool-testkit'
import { TimeoutPolicy } from '@deepseek-ai/dsh-tool-call-timeout-policy'
import { Context } from 'cordis'

let h: Harness | undefined
let uninstall: (() => void) | undefined
afterEach(async () => {
  uninstall?.()
  uninstall = undefined
  await h?.dispose()
  h = undefined
})

/** A tool whose body the test drives: it reports through `ctl.exec` and ends on `ctl.finish`. */
function longTool(name = 'long', extra: { timeoutMs?: number; ignoreSignal?: boolean } = {}) {
  const ctl: { execs: Map<string, ToolExecution>; finish: Map<string, (value: string) => void> } = { execs: new Map(), finish: new Map() }
  const tool = defineTool({
    name,
    description: 'A long-running tool driven by the test.',
    parameters: {},
    output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
    ...(extra.timeoutMs === undefined ? {} : { timeoutMs: extra.timeoutMs }),
    isConcurrencySafe: () => true,
    execute(_args, exec) {
      ctl.execs.set(exec.callId, exec)
      return new Promise<string>((resolve, reject) => {
        ctl.finish.set(exec.callId, resolve)
        if (extra.ignoreSignal !== true) exec.signal.addEventListener('abort', () => reject(exec.signal.reason), { once: true })
      })
    },
  })
  return { tool, ctl }
}

/** Records progress events and results on one timeline. */
function record(ctx: Context): { trace: string[]; events: ToolProgressEvent[] } {
  const trace: string[] = []
  const events: ToolProgressEvent[] = []
  ctx.on('tools/progress', (event) => {
    events.push(event)
    trace.push(`progress:${event.callId}:${event.progress}${event.total === undefined ? '' : `/${event.total}`}${event.message === undefined ? '' : ` ${event.message}`}`)
  })
  ctx.on('tools/result', (result) => {
    trace.push(`result:${result.callId}`)
  })
  return { trace, events }
}

async function boot(options: Parameters<typeof createHarness>[0] = {}): Promise<{ h: Harness; clock: ManualClock }> {
  h = await createHarness(options)
  const clock = new ManualClock()
  uninstall = clock.install()
  return { h, clock }
}

/** Boots, registers the long tool, records events, submits `ids` and lets their bodies start. */
async function started(ids: readonly string[], options: Parameters<typeof createHarness>[0] = {}) {
  const { h, clock } = await boot(options)
  const { tool, ctl } = longTool()
  h.ctx.tools.register(tool)
  const { trace, events } = record(h.ctx)
  const pending = h.execute(ids.map((id) => call('long', {}, id)))
  await clock.flush()
  return { h, clock, ctl, trace, events, pending }
}

describe('delivery and ordering', () => {
  test('the first update is delivered synchronously with the call, tool, parent-less ids and a frozen payload', async () => {
    const { h, clock } = await boot()
    const { tool, ctl } = longTool()
    h.ctx.tools.register(tool)
    const { events } = record(h.ctx)
    const { agent } = h.agentWithLog('a1')
    const pending = h.execute([call('long', {}, 'c1')], { agent })
    await clock.flush()
    ctl.execs.get('c1')!.reportProgress({ progress: 1, total: 4, message: 'reading' })
    expect(events).toHaveLength(1)
    const e = events[0]!
    expect({ callId: e.callId, tool: e.tool, progress: e.progress, total: e.total, message: e.message, sequence: e.sequence, coalesced: e.coalesced, parentCallId: e.parentCallId }).toEqual({
      callId: 'c1',
      tool: 'long',
      progress: 1,
      total: 4,
      message: 'reading',
      sequence: 1,
      coalesced: 0,
      parentCallId: undefined,
    })
    expect(Object.keys(e)).toEqual(['callId', 'tool', 'progress', 'sequence', 'coalesced', 'scope', 'exec', 'total', 'message', 'agent'])
    expect(e.agent).toBe(agent)
    expect(e.exec.callId).toBe('c1')
    expect(Object.isFrozen(e)).toBe(true)
    ctl.finish.get('c1')!('done')
    const [result] = await clock.settle(pending)
    expect(result!.content).toEqual([{ type: 'text', text: 'done' }])
  })

  test('two parallel calls: each call’s events precede its result, and results stay in model order', async () => {
    const { clock, ctl, trace, pending } = await started(['c1', 'c2'])
    ctl.execs.get('c2')!.reportProgress({ progress: 10 })
    ctl.execs.get('c1')!.reportProgress({ progress: 1 })
    ctl.finish.get('c2')!('b')
    await clock.flush()
    ctl.execs.get('c1')!.reportProgress({ progress: 2 }) // within c1's interval: held
    ctl.finish.get('c1')!('a')
    await clock.settle(pending)
    expect(trace).toEqual(['progress:c2:10', 'progress:c1:1', 'progress:c1:2', 'result:c1', 'result:c2'])
  })

  test('progress never reaches model content or the session log', async () => {
    const { h, clock } = await boot()
    const { tool, ctl } = longTool()
    h.ctx.tools.register(tool)
    record(h.ctx)
    const { agent, log } = h.agentWithLog('a1')
    const pending = h.execute([call('long', {}, 'c1')], { agent })
    await clock.flush()
    ctl.execs.get('c1')!.reportProgress({ progress: 50, total: 100, message: 'halfway' })
    ctl.finish.get('c1')!('done')
    const [result] = await clock.settle(pending)
    expect(result!.content).toEqual([{ type: 'text', text: 'done' }])
    expect(JSON.stringify(log.events)).not.toContain('halfway')
    expect(log.trace()).toEqual(['tool/call:c1', 'tool/result:c1'])
  })
})

describe('throttling (default 100 ms per call)', () => {
  test('updates inside the interval coalesce to the latest, delivered when the interval ends', async () => {
    const { clock, ctl, events, pending } = await started(['c1'])
    const exec = ctl.execs.get('c1')!
    exec.reportProgress({ progress: 0 }) // t=0: delivered at once
    await clock.advance(10)
    exec.reportProgress({ progress: 1 })
    await clock.advance(20)
    exec.reportProgress({ progress: 2 })
    await clock.advance(20)
    exec.reportProgress({ progress: 3 }) // t=50
    expect(events.map((e) => e.progress)).toEqual([0])
    await clock.advance(49) // t=99
    expect(events.map((e) => e.progress)).toEqual([0])
    await clock.advance(1) // t=100: the latest of the held updates
    expect(events.map((e) => [e.progress, e.sequence, e.coalesced])).toEqual([
      [0, 1, 0],
      [3, 2, 2],
    ])
    exec.reportProgress({ progress: 4 }) // t=100: held until t=200
    await clock.advance(100)
    expect(events.map((e) => e.progress)).toEqual([0, 3, 4])
    await clock.advance(150) // t=350: the interval after t=200 passed with nothing held
    exec.reportProgress({ progress: 5 }) // so this one goes out at once
    expect(events.map((e) => [e.progress, e.sequence, e.coalesced])).toEqual([
      [0, 1, 0],
      [3, 2, 2],
      [4, 3, 0],
      [5, 4, 0],
    ])
    ctl.finish.get('c1')!('done')
    await clock.settle(pending)
    expect(clock.pending).toBe(0)
  })

  test('each call is throttled on its own', async () => {
    const { clock, ctl, trace, pending } = await started(['c1', 'c2'])
    ctl.execs.get('c1')!.reportProgress({ progress: 1 })
    ctl.execs.get('c2')!.reportProgress({ progress: 1 })
    ctl.execs.get('c1')!.reportProgress({ progress: 2 })
    expect(trace).toEqual(['progress:c1:1', 'progress:c2:1'])
    await clock.advance(100)
    expect(trace).toEqual(['progress:c1:1', 'progress:c2:1', 'progress:c1:2'])
    ctl.finish.get('c1')!('a')
    ctl.finish.get('c2')!('b')
    await clock.settle(pending)
  })

  test('progressIntervalMs: 0 delivers every update synchronously and arms no timer', async () => {
    const { clock, ctl, events, pending } = await started(['c1'], { registry: { progressIntervalMs: 0 } })
    for (let i = 0; i < 5; i++) ctl.execs.get('c1')!.reportProgress({ progress: i })
    expect(events.map((e) => e.progress)).toEqual([0, 1, 2, 3, 4])
    expect(clock.pending).toBe(0)
    ctl.finish.get('c1')!('done')
    await clock.settle(pending)
  })

  test('an invalid progressIntervalMs is a RangeError at plugin start', async () => {
    const root = new Context()
    await expect(root.plugin(ToolRegistry, { progressIntervalMs: -1 })).rejects.toThrow('tools config: progressIntervalMs must be a number of ms from 0 to 2147483647, got -1')
  })

  test('every registry config RangeError shows a string quoted, so "250" does not read as the number 250', async () => {
    const root = new Context()
    await expect(root.plugin(ToolRegistry, { progressIntervalMs: '250' as never })).rejects.toThrow('tools config: progressIntervalMs must be a number of ms from 0 to 2147483647, got "250"')
    await expect(root.plugin(ToolRegistry, { maxArgumentBytes: '4096' as never })).rejects.toThrow('tools config: maxArgumentBytes must be an integer of at least 2 bytes, got "4096"')
    await expect(root.plugin(ToolRegistry, { contentLimits: { maxChars: '100' as never } })).rejects.toThrow('tools config: contentLimits.maxChars must be a non-negative integer (0 disables it), got "100"')
    await expect(root.plugin(ToolRegistry, { repair: { jsonStrings: 'true' as never } })).rejects.toThrow('tools config: repair.jsonStrings must be a boolean, got "true"')
  })
})

describe('no events after the result', () => {
  test('a held update is delivered before the result, and its timer is cleared', async () => {
    const { clock, ctl, trace, pending } = await started(['c1'])
    const exec = ctl.execs.get('c1')!
    exec.reportProgress({ progress: 1 })
    exec.reportProgress({ progress: 2, message: 'almost' })
    ctl.finish.get('c1')!('done')
    await clock.flush()
    expect(trace).toEqual(['progress:c1:1', 'progress:c1:2 almost', 'result:c1'])
    expect(clock.pending).toBe(0)
    await clock.settle(pending)
  })

  test('reports after the result (a retained view) are ignored', async () => {
    const { clock, ctl, trace, pending } = await started(['c1'])
    ctl.finish.get('c1')!('done')
    await clock.settle(pending)
    ctl.execs.get('c1')!.reportProgress({ progress: 9 })
    await clock.advance(1_000)
    expect(trace).toEqual(['result:c1'])
    expect(clock.pending).toBe(0)
  })

  test('a body abandoned by a hard timeout keeps reporting: nothing follows its TOOL_TIMEOUT result', async () => {
    const { h, clock } = await boot({ plugins: [{ plugin: TimeoutPolicy, config: { hardLimit: { graceMs: 50 } } }] })
    const { tool, ctl } = longTool('stubborn', { timeoutMs: 1_000, ignoreSignal: true })
    h.ctx.tools.register(tool)
    const { trace } = record(h.ctx)
    const pending = h.execute([call('stubborn', {}, 'c1')])
    await clock.flush()
    ctl.execs.get('c1')!.reportProgress({ progress: 1 })
    await clock.advance(500)
    ctl.execs.get('c1')!.reportProgress({ progress: 2 })
    const [result] = await clock.settle(pending)
    expect((result as Extract<ToolResult, { isError: true }>).error.info?.code).toBe('TOOL_TIMEOUT')
    ctl.execs.get('c1')!.reportProgress({ progress: 3 })
    ctl.finish.get('c1')!('late')
    await clock.advance(1_000)
    expect(trace).toEqual(['progress:c1:1', 'progress:c1:2', 'result:c1'])
  })

  test('an aborted call: the held update still precedes the ABORTED result', async () => {
    const { h, clock } = await boot()
    const { tool, ctl } = longTool()
    h.ctx.tools.register(tool)
    const { trace } = record(h.ctx)
    const controller = new AbortController()
    const pending = h.execute([call('long', {}, 'c1')], { signal: controller.signal })
    await clock.flush()
    ctl.execs.get('c1')!.reportProgress({ progress: 1 })
    ctl.execs.get('c1')!.reportProgress({ progress: 2 })
    controller.abort()
    const [result] = await clock.settle(pending)
    expect((result as Extract<ToolResult, { isError: true }>).error.info?.code).toBe('ABORTED')
    expect(trace).toEqual(['progress:c1:1', 'progress:c1:2', 'result:c1'])
  })
})

describe('bad input and failing listeners', () => {
  test('a malformed update throws a TypeError naming the tool and field (the call fails with it)', async () => {
    const { h, clock } = await boot()
    const bad = [
      [{ progress: Number.NaN }, 'reportProgress on "bad": /progress must be a finite number, got NaN'],
      [{ progress: 1, total: Number.NEGATIVE_INFINITY }, 'reportProgress on "bad": /total must be a finite number when present, got -Infinity'],
      [{ progress: 1, total: '10' }, 'reportProgress on "bad": /total must be a finite number when present, got string'],
      [{ progress: 1, message: 3 }, 'reportProgress on "bad": /message must be a string when present, got number'],
      [null, 'reportProgress on "bad" takes { progress: number, total?: number, message?: string }, got null'],
    ] as const
    let i = 0
    h.ctx.tools.register(
      defineTool({
        name: 'bad',
        description: 'Reports malformed progress.',
        parameters: {},
        output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
        execute(_args, exec) {
          exec.reportProgress(bad[i++]![0] as never)
          return 'unreachable'
        },
      }),
    )
    record(h.ctx)
    const texts: string[] = []
    for (let n = 0; n < bad.length; n++) {
      const [result] = await clock.settle(h.execute([call('bad', {}, `c${n}`)]))
      texts.push(result!.content.map((b) => (b.type === 'text' ? b.text : '')).join(''))
    }
    expect(texts).toEqual(bad.map(([, message]) => `Error: ${message}`))
  })

  test('without listeners reportProgress still validates and costs no timer', async () => {
    const { h, clock } = await boot()
    const { tool, ctl } = longTool()
    h.ctx.tools.register(tool)
    const pending = h.execute([call('long', {}, 'c1')])
    await clock.flush()
    ctl.execs.get('c1')!.reportProgress({ progress: 1 })
    ctl.execs.get('c1')!.reportProgress({ progress: 2 })
    expect(clock.pending).toBe(0)
    expect(() => ctl.execs.get('c1')!.reportProgress({ progress: Number.POSITIVE_INFINITY })).toThrow('reportProgress on "long": /progress must be a finite number, got Infinity')
    ctl.finish.get('c1')!('done')
    const [result] = await clock.settle(pending)
    expect(result!.isError).toBe(false)
  })

  test('a throwing or rejecting listener is contained; later listeners and the call are unaffected', async () => {
    const { h, clock } = await boot()
    const { tool, ctl } = longTool()
    h.ctx.tools.register(tool)
    h.ctx.on('tools/progress', () => {
      throw new Error('listener broke')
    })
    h.ctx.on('tools/progress', (() => Promise.reject(new Error('async listener broke'))) as never)
    const { events } = record(h.ctx)
    const pending = h.execute([call('long', {}, 'c1')])
    await clock.flush()
    ctl.execs.get('c1')!.reportProgress({ progress: 1 })
    ctl.finish.get('c1')!('done')
    const [result] = await clock.settle(pending)
    expect(events.map((e) => e.progress)).toEqual([1])
    expect(result!.isError).toBe(false)
  })

  test('listeners are scope-filtered: an agent’s listener sees only that agent’s calls', async () => {
    const { h, clock } = await boot()
    const { tool, ctl } = longTool()
    h.ctx.tools.register(tool)
    const a1 = h.agent('a1')
    const a2 = h.agent('a2')
    const seen: string[] = []
    a1.ctx.on('tools/progress', (event) => {
      seen.push(event.callId)
    })
    const p1 = h.execute([call('long', {}, 'x1')], { agent: a1.agent })
    const p2 = h.execute([call('long', {}, 'x2')], { agent: a2.agent })
    await clock.flush()
    ctl.execs.get('x1')!.reportProgress({ progress: 1 })
    ctl.execs.get('x2')!.reportProgress({ progress: 1 })
    ctl.finish.get('x1')!('a')
    ctl.finish.get('x2')!('b')
    await clock.settle(Promise.all([p1, p2]))
    expect(seen).toEqual(['x1'])
  })
})
