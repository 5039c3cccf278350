/**
 * The engine worker waits for sub-call replies by blocking on the shared wake counter
 * (`Atomics.wait` + `receiveMessageOnPort`) instead of its event loop. What must still hold while
 * it is blocked: an abort and the wall deadline end the run with their documented kind and text
 * (by the engine itself: the worker is kept), a reply slower than one bounded wait still arrives,
 * replies that come one at a time are applied as they come, and the host event loop keeps
 * running. The same holds, with the same outcomes, whether the engine first spins for a reply
 * (`replySpinMs`, default and 10 ms) or blocks at once (0), and the pool's spin gate is empty
 * after its runs. Also: the warm-up run (sub-calls included) leaves nothing behind for the next run.
 */
import type { JsonValue } from '@deepseek-ai/dsh-tools'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { stripProgramCached } from '../src/strip'
import { createQuickJsRuntime, WARM_UP_PROGRAM, WARM_UP_SUB_CALLS } from '../src/runtime/quickjs'
import { WorkerPool } from '../src/runtime/worker-host'
import { preludeCode } from '../src/runtime/prelude'
import type { RunOutput } from '../src/runtime/types'
import { addTool, failingTool, plain, SMALL_LIMITS, runProgram, sleep } from './runtime-helpers'

/** A tool that resolves only when the test says so; counts its calls. */
function gate(): { readonly binding: () => Promise<JsonValue>; open: (value: JsonValue) => void; calls: number } {
  const waiters: ((value: JsonValue) => void)[] = []
  const state = {
    calls: 0,
    binding: () => {
      state.calls++
      return new Promise<JsonValue>((resolve) => waiters.push(resolve))
    },
    open: (value: JsonValue) => {
      for (const resolve of waiters.splice(0)) resolve(value)
    },
  }
  return state
}

/** Resolves once `check` holds (polled on the host event loop), or rejects after `ms`. */
async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached')
    await sleep(5)
  }
}

describe('the engine worker blocked on a sub-call reply', () => {
  // A long grace: if the engine did not end the run by itself, the main-thread watchdog would
  // terminate the worker only after 10 s (and the worker count would show it).
  const runtime = createQuickJsRuntime({ watchdogGraceMs: 10_000 })
  beforeAll(() => runtime.warmUp(SMALL_LIMITS.memoryBytes))
  afterAll(() => runtime.dispose())

  it('ends as abort with the reason when the caller aborts; the worker is kept', async () => {
    const tool = gate()
    const controller = new AbortController()
    let settles = 0
    const pending = runProgram(runtime, 'console.log("waiting"); await tools.slow(); return "never"', {
      bindings: { slow: tool.binding },
      signal: controller.signal,
      onSettle: () => settles++,
    })
    await until(() => tool.calls === 1)
    // The engine is blocked waiting for the reply now (nothing else can run in it).
    controller.abort(new Error('user pressed stop'))
    const out = await pending
    expect(out).toMatchObject({ logs: ['waiting'], error: { kind: 'abort', message: 'the run was aborted: user pressed stop' } })
    expect(out.value).toBeUndefined()
    expect(settles).toBe(1)
    tool.open(1)
    const next = await runProgram(runtime, 'return await tools.echo({ n: 2 })', { bindings: { echo: async (arg) => arg } })
    expect(next).toMatchObject({ value: { n: 2 }, logs: [] })
    expect(runtime.stats().workersStarted).toBe(1)
  })

  it('ends as timeout at the wall deadline, naming the running call; the worker is kept', async () => {
    const tool = gate()
    const out = await runProgram(runtime, 'await tools.slow(); return "never"', { bindings: { slow: tool.binding }, limits: { computeMs: 30_000, wallMs: 300 } })
    expect(out).toMatchObject({ logs: [], error: { kind: 'timeout', message: 'wall time limit of 300 ms exceeded (1 tool call still running)' } })
    expect(tool.calls).toBe(1)
    tool.open(1)
    expect((await runProgram(runtime, 'return 3')).value).toBe(3)
    expect(runtime.stats().workersStarted).toBe(1)
  })

  it('receives a reply that takes longer than one bounded wait', async () => {
    const out = await runProgram(runtime, 'const r = await tools.late({ n: 7 }); return r.n * 6', {
      bindings: { late: async (arg) => (await sleep(350), arg) },
    })
    expect(out).toMatchObject({ value: 42, logs: [] })
  })

  it('applies replies one at a time as they arrive, and returns before a slower call settles', async () => {
    const slow = gate()
    let fastCalls = 0
    const out = await runProgram(
      runtime,
      [
        'const order = []',
        'const a = tools.fast({ tag: "a" }).then((r) => order.push(r.tag))',
        'const b = tools.later({ tag: "b" }).then((r) => order.push(r.tag))',
        'const winner = await Promise.race([tools.slow(), a.then(() => "fast")])',
        'await b',
        'return { winner, order }',
      ].join('\n'),
      {
        bindings: {
          fast: async (arg) => (fastCalls++, arg),
          later: async (arg) => (await sleep(150), arg),
          slow: slow.binding,
        },
      },
    )
    expect(out).toMatchObject({ value: { winner: 'fast', order: ['a', 'b'] }, logs: [] })
    expect(fastCalls).toBe(1)
    expect(slow.calls).toBe(1)
    slow.open(null)
  })

  it('keeps the host event loop running while the engine waits', async () => {
    // The reply needs 50 turns of the host's event loop after the engine started waiting for it:
    // the run can only finish if the host keeps turning meanwhile.
    const turns = async (n: number): Promise<number> => {
      for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve))
      return n
    }
    const out = await runProgram(runtime, 'return (await tools.late({})).turns', {
      bindings: { late: async () => ({ turns: await turns(50) }) },
    })
    expect(out.value).toBe(50)
  })
})

describe('spinning for a reply before blocking (replySpinMs)', () => {
  // 0: block at once; undefined: the default (0.2 ms on this machine's CPUs, or 0 on one); 10: the
  // longest spin, in which a tool that answers at once is nearly always seen while spinning.
  const settings = [0, undefined, 10] as const
  const runtimes = settings.map((replySpinMs) => createQuickJsRuntime({ watchdogGraceMs: 10_000, ...(replySpinMs === undefined ? {} : { replySpinMs }) }))
  beforeAll(() => Promise.all(runtimes.map((r) => r.warmUp(SMALL_LIMITS.memoryBytes))))
  afterAll(() => runtimes.forEach((r) => r.dispose()))

  /** The outputs of `run` on every runtime, in the order of `settings`. */
  const onEach = async (run: (runtime: (typeof runtimes)[number]) => Promise<RunOutput>): Promise<RunOutput[]> => {
    const outputs: RunOutput[] = []
    for (const runtime of runtimes) outputs.push(await run(runtime))
    return outputs
  }

  it('gives the same output for sequential, parallel and failing sub-calls with or without spinning', async () => {
    const program = [
      'let s = 0',
      'for (let i = 0; i < 30; i++) { const r = await tools.add({ a: i, b: 1 }); s += r.sum; if (i % 10 === 0) console.log("at", i, s) }',
      'const both = await Promise.all([tools.add({ a: 1, b: 2 }), tools.later({ a: 3, b: 4 })])',
      'let failed = ""',
      'try { await tools.fail({}) } catch (e) { failed = e instanceof ToolCallError ? e.message : "other" }',
      'return { s, both: both.map((r) => r.sum), failed }',
    ].join('\n')
    const outputs = await onEach((runtime) =>
      runProgram(runtime, program, { bindings: { add: addTool, later: async (arg) => (await sleep(20), addTool(arg)), fail: failingTool } }),
    )
    const expected = { value: { s: 465, both: [3, 7], failed: 'disk full' }, logs: ['at 0 1', 'at 10 66', 'at 20 231'] }
    expect(outputs.map(plain)).toEqual([expected, expected, expected])
    expect(outputs.map((o) => o.stats?.subCalls)).toEqual([33, 33, 33])
    expect(runtimes.map((r) => r.stats().workersStarted)).toEqual([1, 1, 1])
  })

  it('ends as abort while waiting, as timeout at the wall deadline, with the same texts; the workers are kept', async () => {
    const aborted = await onEach(async (runtime) => {
      const tool = gate()
      const controller = new AbortController()
      const pending = runProgram(runtime, 'console.log("waiting"); await tools.slow(); return "never"', { bindings: { slow: tool.binding }, signal: controller.signal })
      await until(() => tool.calls === 1)
      controller.abort(new Error('user pressed stop'))
      const out = await pending
      tool.open(1)
      return out
    })
    const abort = { logs: ['waiting'], error: { kind: 'abort', message: 'the run was aborted: user pressed stop' } }
    expect(aborted.map(plain)).toEqual([abort, abort, abort])
    const timedOut = await onEach(async (runtime) => {
      const tool = gate()
      const out = await runProgram(runtime, 'await tools.slow(); return "never"', { bindings: { slow: tool.binding }, limits: { computeMs: 30_000, wallMs: 300 } })
      tool.open(1)
      return out
    })
    const timeout = { logs: [], error: { kind: 'timeout', message: 'wall time limit of 300 ms exceeded (1 tool call still running)' } }
    expect(timedOut.map(plain)).toEqual([timeout, timeout, timeout])
    expect(runtimes.map((r) => r.stats().workersStarted)).toEqual([1, 1, 1])
  })

  it('parallel programs of one pool share its spin gate: never more spinners than its cap, none left after', async () => {
    const pool = new WorkerPool({ prelude: preludeCode(), graceMs: 10_000, recycle: true, replySpinMs: 10, maxSpinners: 1 })
    let most = 0
    let sampling = true
    const sample = async (): Promise<void> => {
      while (sampling) {
        most = Math.max(most, pool.spinning())
        await new Promise<void>((resolve) => setImmediate(resolve))
      }
    }
    const sampler = sample()
    try {
      const stripped = await stripProgramCached('let s = 0\nfor (let i = 0; i < 50; i++) s += (await tools.add({ a: i, b: 1 })).sum\nreturn s')
      if ('error' in stripped) throw new Error(stripped.error.message)
      const runOne = (): Promise<RunOutput> =>
        pool.run({
          code: stripped.code,
          input: { program: '', bindings: { add: addTool }, signal: new AbortController().signal, limits: SMALL_LIMITS },
          limits: SMALL_LIMITS,
          started: performance.now(),
        })
      const outputs = await Promise.all([runOne(), runOne(), runOne()])
      expect(outputs.map(plain)).toEqual([
        { value: 1275, logs: [] },
        { value: 1275, logs: [] },
        { value: 1275, logs: [] },
      ])
      expect(pool.workersStarted()).toBe(3)
    } finally {
      sampling = false
      await sampler
      pool.dispose()
    }
    expect(most).toBeLessThanOrEqual(1)
    expect(pool.spinning()).toBe(0)
  })
})

describe('warmUp() runs sub-calls and leaves no state behind', () => {
  it('the next run sees only its own tools and a clean global; one worker and one instance', async () => {
    const runtime = createQuickJsRuntime()
    try {
      await runtime.warmUp(SMALL_LIMITS.memoryBytes)
      expect(WARM_UP_PROGRAM).toContain('tools.echo')
      expect(WARM_UP_SUB_CALLS).toBeGreaterThan(0)
      const out = await runProgram(
        runtime,
        'return { tools: Object.keys(tools), echo: typeof tools.echo, sum: typeof sum, both: typeof both, globals: Object.getOwnPropertyNames(globalThis).filter((k) => /sum|both|echo|fail/.test(k)) }',
        { bindings: { only: async () => null } },
      )
      expect(out).toMatchObject({ value: { tools: ['only'], echo: 'function', sum: 'undefined', both: 'undefined', globals: [] }, logs: [] })
      // `tools.echo` is the unknown-tool function of this run, not the warm-up's binding.
      const unknown = await runProgram(runtime, 'try { await tools.echo({}) } catch (e) { return e.message }')
      expect(unknown).toMatchObject({ value: 'Unknown tool "echo". No tools are available.', logs: [] })
      expect(runtime.stats()).toMatchObject({ activeRuns: 0, workersStarted: 1, modules: { created: 1, dropped: 0, inUse: 0 } })
    } finally {
      runtime.dispose()
    }
  })

  it('strips without the cache when asked (as the warm-up does): the result is not kept', async () => {
    const source = 'return "only stripped once uncached"'
    const uncached = await stripProgramCached(source, { cache: false })
    const first = await stripProgramCached(source)
    expect(first).toEqual(uncached)
    expect(first).not.toBe(uncached)
    expect(await stripProgramCached(source)).toBe(first)
  })
})
