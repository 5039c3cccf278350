import { afterEach, describe, expect, test } from 'vitest'
import { z } from 'zod'
import { defineTool, type ToolResult } from '@deepseek-ai/dsh-tools'
import { call, createHarness, echoTool, objectCall, type Harness } from '@deepseek-ai/dsh-tool-testkit'

// A batch's calls are looked up when the batch is submitted; each call's arguments (JSON text;
// an object the caller holds is taken at submission) are parsed, validated and checked when the
// call reaches policy (after the previous call's body started).
// The outcomes are those of preparing every call at once; only the time the arguments are
// handled moves, so a large batch (or many batches at once) does not hold every call's parsed
// arguments and execution before the first body runs.

let h: Harness
afterEach(async () => {
  await h?.dispose()
})

/** Synchronous listeners on every stage, recording `stage:callId`. */
function instrument(h: Harness, trace: string[]): void {
  h.ctx.tools.on('tools/pre-execute', (exec, next) => {
    trace.push(`pre:${exec.callId}`)
    return next()
  })
  h.ctx.tools.guard((exec) => {
    trace.push(`guard:${exec.callId}`)
    return undefined
  })
  h.ctx.tools.on('tools/execute', (exec, next) => {
    trace.push(`wrap:${exec.callId}`)
    return next()
  })
  h.ctx.tools.on('tools/post-execute', (exec, draft, next) => {
    trace.push(`post:${exec.callId}:${draft.isError ? 'error' : 'ok'}`)
    return next()
  })
}

/**
 * A tool whose argument check (a zod refinement: Standard Schema tools check their arguments
 * with their library at prepare) and body record `check:<n>` / `body:<callId>`; `n` < 0 fails
 * the check.
 */
function checked(trace: string[], parallel: boolean) {
  return defineTool({
    name: 'work',
    description: 'Checked tool.',
    parameters: z.object({ n: z.number().int() }).refine((args) => {
      trace.push(`check:${args.n}`)
      return args.n >= 0
    }, 'n must not be negative'),
    output: { schema: z.number().int(), render: (_args, value) => [{ type: 'text', text: String(value) }] },
    isConcurrencySafe: () => parallel,
    execute(args, exec) {
      trace.push(`body:${exec.callId}`)
      return args.n
    },
  })
}

const codes = (results: readonly ToolResult[]): (string | undefined)[] => results.map((r) => (r.isError ? r.error.info?.code : 'ok'))

describe('a batch prepares each call when it reaches policy', () => {
  test('parallel-safe calls: each call\'s arguments are checked after the previous body started', async () => {
    h = await createHarness()
    const trace: string[] = []
    instrument(h, trace)
    h.ctx.tools.register(checked(trace, true))
    const results = await h.execute([call('work', { n: 1 }, 'c1'), call('work', { n: 2 }, 'c2'), call('work', { n: 3 }, 'c3')])
    expect(codes(results)).toEqual(['ok', 'ok', 'ok'])
    // Completion (post-execute) waits for the library's output validation (a promise).
    expect(trace).toEqual([
      'check:1', 'pre:c1', 'guard:c1', 'wrap:c1', 'body:c1',
      'check:2', 'pre:c2', 'guard:c2', 'wrap:c2', 'body:c2',
      'check:3', 'pre:c3', 'guard:c3', 'wrap:c3', 'body:c3',
      'post:c1:ok', 'post:c2:ok', 'post:c3:ok',
    ])
  })

  test('sequential calls: policy still runs ahead of the running call, and prepares each call as it reaches it', async () => {
    h = await createHarness()
    const trace: string[] = []
    instrument(h, trace)
    h.ctx.tools.register(checked(trace, false))
    const results = await h.execute([call('work', { n: 1 }, 'c1'), call('work', { n: 2 }, 'c2'), call('work', { n: 3 }, 'c3')])
    expect(codes(results)).toEqual(['ok', 'ok', 'ok'])
    expect(trace).toEqual([
      'check:1', 'pre:c1', 'guard:c1', 'wrap:c1', 'body:c1',
      'check:2', 'pre:c2', 'guard:c2',
      'check:3', 'pre:c3', 'guard:c3',
      'post:c1:ok', 'wrap:c2', 'body:c2', 'post:c2:ok', 'wrap:c3', 'body:c3', 'post:c3:ok',
    ])
  })

  test('an argument failure is still a prepare failure: no policy, dispatch or post-execute for that call', async () => {
    h = await createHarness()
    const trace: string[] = []
    instrument(h, trace)
    h.ctx.tools.register(checked(trace, true))
    const results = await h.execute([call('work', { n: 1 }, 'c1'), call('work', { n: -1 }, 'c2'), call('work', '{"n":', 'c3'), call('work', { n: 'x' }, 'c4'), call('nope', {}, 'c5')])
    expect(codes(results)).toEqual(['ok', 'INVALID_ARGS', 'INVALID_ARGS', 'INVALID_ARGS', 'UNKNOWN_TOOL'])
    expect(results[1]!.isError && results[1]!.error.message).toBe('Invalid arguments for tool "work": (root): n must not be negative')
    expect(trace).toEqual(['check:1', 'pre:c1', 'guard:c1', 'wrap:c1', 'body:c1', 'check:-1', 'post:c1:ok'])
  })

  test('a caller abort after submission reaches every call at policy, as when all were prepared at submission', async () => {
    h = await createHarness()
    const trace: string[] = []
    instrument(h, trace)
    h.ctx.tools.register(checked(trace, true))
    const controller = new AbortController()
    const pending = h.execute([call('work', { n: 1 }, 'c1'), call('work', { n: -1 }, 'c2'), call('work', { n: 3 }, 'c3')], { signal: controller.signal })
    controller.abort()
    const results = await pending
    expect(codes(results)).toEqual(['ABORTED_BEFORE_DISPATCH', 'INVALID_ARGS', 'ABORTED_BEFORE_DISPATCH'])
    // The signal was not aborted at submission: the calls prepare, reach policy (the listener
    // runs, then the stage sees the abort) and post-execute; none dispatches.
    expect(trace).toEqual(['check:1', 'pre:c1', 'post:c1:error', 'check:-1', 'check:3', 'pre:c3', 'post:c3:error'])
  })

  test('a batch submitted with an aborted signal fails each valid call in prepare (no policy, no post-execute)', async () => {
    h = await createHarness()
    const trace: string[] = []
    instrument(h, trace)
    h.ctx.tools.register(checked(trace, true))
    const results = await h.execute([call('work', { n: 1 }, 'c1'), call('work', { n: -1 }, 'c2'), call('work', '{', 'c3')], { signal: AbortSignal.abort() })
    expect(codes(results)).toEqual(['ABORTED_BEFORE_DISPATCH', 'INVALID_ARGS', 'INVALID_ARGS'])
    expect(results[0]!.isError && results[0]!.error.message).toBe('Tool call was cancelled before it started')
    expect(trace).toEqual(['check:1', 'check:-1'])
  })
})

describe('deferring a call\'s arguments keeps the outcome of preparing it at submission', () => {
  test('object arguments are taken at submission: the caller changing them while an earlier call runs changes nothing', async () => {
    h = await createHarness()
    const trace: string[] = []
    h.ctx.tools.register(checked(trace, true))
    // Providers that send objects (Anthropic `tool_use.input`): the caller still holds them.
    const second = { n: 2 }
    const third = { n: 3 }
    h.ctx.tools.on('tools/pre-execute', (exec, next) => {
      if (exec.callId === 'c1') {
        second.n = -2
        third.n = 30
      }
      return next()
    })
    const results = await h.execute([objectCall('work', { n: 1 }, 'c1'), objectCall('work', second, 'c2'), objectCall('work', third, 'c3')])
    expect(codes(results)).toEqual(['ok', 'ok', 'ok'])
    expect(results.map((r) => (r.isError ? r.error.message : r.value))).toEqual([1, 2, 3])
    expect(trace).toEqual(['check:1', 'check:2', 'check:3', 'body:c1', 'body:c2', 'body:c3'])
  })

  test('object arguments: the session log, exec.rawArguments and tools/result see the submitted copy, not the caller\'s later changes', async () => {
    h = await createHarness()
    h.ctx.tools.register(echoTool())
    const args = { text: 'original', value: { k: 1 } }
    const raw: unknown[] = []
    h.ctx.tools.on('tools/pre-execute', (exec, next) => {
      raw.push(exec.rawArguments)
      return next()
    })
    const observed: unknown[] = []
    h.ctx.on('tools/result', (_result, event) => void observed.push(event.call.arguments))
    const { agent, log } = h.agentWithLog('a1')
    const pending = h.execute([objectCall('echo', args, 'c1')], { agent })
    args.text = 'mutated'
    args.value.k = 2
    const [r] = await pending
    const submitted = { text: 'original', value: { k: 1 } }
    expect(r!.isError ? r!.error.message : r!.value).toEqual(submitted)
    expect(raw).toEqual([submitted])
    expect(observed).toEqual([submitted])
    const entry = log.calls()[0]!
    expect(entry.arguments).toEqual(submitted)
    expect(Object.isFrozen(entry.arguments)).toBe(true)
    // The caller's own object is left as it is (not frozen by the pipeline).
    expect(Object.isFrozen(args)).toBe(false)
  })
})

describe('an abort during submission', () => {
  test('a caller abort while the batch is being submitted fails every later call in prepare, as when each call was prepared as it was submitted', async () => {
    h = await createHarness()
    const trace: string[] = []
    h.ctx.tools.register(checked(trace, true))
    h.ctx.tools.on('tools/pre-execute', (exec) => {
      trace.push(`pre:${exec.callId}`)
      return { type: 'deny', reason: 'not today' }
    })
    h.ctx.tools.on('tools/post-execute', (exec, draft, next) => {
      trace.push(`post:${exec.callId}`)
      return next()
    })
    const controller = new AbortController()
    // A session log that aborts the turn once it has recorded the first call (say, it could not persist it).
    const log = {
      append(event: { readonly type: string; readonly callId: string }): void {
        trace.push(`log:${event.type}:${event.callId}`)
        if (event.type === 'tool/call' && event.callId === 'c1') controller.abort()
      },
    }
    const results = await h.execute([call('work', { n: 1 }, 'c1'), call('work', { n: 2 }, 'c2'), call('work', { n: -3 }, 'c3')], { signal: controller.signal, log })
    expect(codes(results)).toEqual(['TOOL_DENIED', 'ABORTED_BEFORE_DISPATCH', 'INVALID_ARGS'])
    // c1 was prepared before the abort: it reaches policy (denied before the abort is looked at)
    // and post-execute. c2 and c3 were submitted after it: they fail in prepare, no listener runs.
    expect(trace.filter((t) => !t.startsWith('check:') && !t.startsWith('log:tool/result'))).toEqual(['log:tool/call:c1', 'log:tool/call:c2', 'log:tool/call:c3', 'pre:c1', 'post:c1'])
    expect(trace.filter((t) => t.startsWith('check:')).sort()).toEqual(['check:-3', 'check:1', 'check:2'])
  })
})

describe('lookups during submission', () => {
  // The runner reuses its last lookup for the next call of the same name only while the
  // registry's version is unchanged and the tool set undisposed: a change made while the batch
  // is being submitted (here by the session log's append of the first call) is seen by the
  // later calls of the same name.
  test('a registration disposed after the first call was logged: the later calls of its name are UNKNOWN_TOOL', async () => {
    h = await createHarness()
    const trace: string[] = []
    const dispose = h.ctx.tools.register(checked(trace, false))
    const log = {
      append(event: { readonly type: string; readonly callId: string }): void {
        if (event.type === 'tool/call' && event.callId === 'c1') dispose()
      },
    }
    const results = await h.execute([call('work', { n: 1 }, 'c1'), call('work', { n: 2 }, 'c2'), call('work', { n: 3 }, 'c3')], { log })
    // Without a tool set, the tool c1 was looked up as stays its own.
    expect(codes(results)).toEqual(['ok', 'UNKNOWN_TOOL', 'UNKNOWN_TOOL'])
    expect(trace.filter((t) => t.startsWith('body:'))).toEqual(['body:c1'])
  })

  test('a tool set disposed after the first call was logged: every call of the batch is UNKNOWN_TOOL, no body runs', async () => {
    h = await createHarness()
    const trace: string[] = []
    h.ctx.tools.register(checked(trace, false))
    const toolSet = await h.tools.resolve()
    const log = {
      append(event: { readonly type: string; readonly callId: string }): void {
        if (event.type === 'tool/call' && event.callId === 'c1') toolSet.dispose()
      },
    }
    const results = await h.execute([call('work', { n: 1 }, 'c1'), call('work', { n: 2 }, 'c2'), call('work', { n: 3 }, 'c3')], { log, toolSet })
    expect(codes(results)).toEqual(['UNKNOWN_TOOL', 'UNKNOWN_TOOL', 'UNKNOWN_TOOL'])
    expect(trace.filter((t) => t.startsWith('body:'))).toEqual([])
  })
})
