/**
 * The engine worker waits for sub-call replies by blocking on the shared wake counter
 * (`Atomics.wait` + `receiveMessageOnPort`) instead of its event loop. What must still hold while
 * it is blocked: an abort and the wall deadline end the run with their documented kind and text
 * (by the engine itself: the worker is kept), a reply slower than one bounded wait still arrives,
 * replies that come one at a time are applied as they come, and the host event loop keeps
 * running. Also: the warm-up run (sub-calls included) leaves nothing behind for the next run.
 */
import type { JsonValue } from '@deepseek-ai/dsh-tools'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { stripProgramCached } from '../src/strip'
import { createQuickJsRuntime, WARM_UP_PROGRAM, WARM_UP_SUB_CALLS } from '../src/runtime/quickjs'
import { SMALL_LIMITS, runProgram, sleep } from './runtime-helpers'

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
