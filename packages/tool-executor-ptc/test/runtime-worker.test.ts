/**
 * The engine placements (`createQuickJsRuntime({ thread })`): built-ins that never poll the
 * interrupt handler are stopped on both; with the engine in a worker the host event loop keeps
 * running during a tight loop (bug case B20), a stuck worker is replaced, an abort stops a tight
 * loop through the shared flag, and an idle worker never keeps the process alive.
 */
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createQuickJsRuntime, type QuickJsThread } from '../src/runtime/quickjs'
import { SMALL_LIMITS, runProgram, sleep } from './runtime-helpers'

const NEVER_POLLING = [
  ['Array(2**32-1).join("")', 'return Array(2 ** 32 - 1).join("")'],
  ['[].indexOf.call({ length: 2**32-1 }, 1)', 'return [].indexOf.call({ length: 2 ** 32 - 1 }, 1)'],
  ['10n ** 1000000n', 'return (10n ** 1000000n).toString().length'],
] as const
const QUICK = { computeMs: 100, wallMs: 30_000 } as const

const runtimes = { worker: createQuickJsRuntime({ thread: 'worker' }), main: createQuickJsRuntime({ thread: 'main' }) }
beforeAll(() => Promise.all(Object.values(runtimes).map((r) => r.warmUp(SMALL_LIMITS.memoryBytes))))
afterAll(() => Object.values(runtimes).forEach((r) => r.dispose()))

describe.each(['worker', 'main'] as const)('thread %s: built-ins that never poll the interrupt handler', (thread: QuickJsThread) => {
  it.each(NEVER_POLLING)('stops %s as timeout; the next run works', async (_name, program) => {
    const runtime = runtimes[thread]
    const out = await runProgram(runtime, program, { limits: QUICK })
    expect(out).toMatchObject({ logs: [], error: { kind: 'timeout', message: 'compute time limit of 100 ms exceeded' } })
    expect(out.value).toBeUndefined()
    const next = await runProgram(runtime, 'return await tools.echo({ n: 1 })', { bindings: { echo: async (arg) => arg } })
    expect(next).toMatchObject({ value: { n: 1 }, logs: [] })
  })
})

describe('thread worker', () => {
  const runtime = runtimes.worker

  it('is the default placement', () => {
    const fresh = createQuickJsRuntime()
    expect(fresh.stats().thread).toBe('worker')
    expect(createQuickJsRuntime({ thread: 'main' }).stats().thread).toBe('main')
    expect(() => createQuickJsRuntime({ thread: 'other' as QuickJsThread })).toThrow(new RangeError('thread must be "worker" or "main", got "other"'))
    expect(() => createQuickJsRuntime({ thread: {} as QuickJsThread })).toThrow(new RangeError('thread must be "worker" or "main", got an object'))
    expect(() => createQuickJsRuntime({ watchdogGraceMs: '5' as never })).toThrow(new RangeError('watchdogGraceMs must be a finite number of ms >= 0, got "5"'))
  })

  it('keeps the host event loop running during while (true) {} (B20)', async () => {
    let ticks = 0
    let ticksWhileRunning = -1
    const interval = setInterval(() => ticks++, 5)
    try {
      const out = await runProgram(runtime, 'while (true) {}', { limits: { computeMs: 300, wallMs: 30_000 } })
      ticksWhileRunning = ticks
      expect(out.error).toEqual({ kind: 'timeout', message: 'compute time limit of 300 ms exceeded' })
    } finally {
      clearInterval(interval)
    }
    expect(ticksWhileRunning).toBeGreaterThan(0)
  })

  it('runs a concurrent program to completion while another is stuck in a built-in', async () => {
    const order: string[] = []
    // The second program needs a second worker, which starts cold (hundreds of ms on a loaded machine).
    const stuck = runProgram(runtime, 'return Array(2 ** 32 - 1).join("")', { limits: { computeMs: 2_000, wallMs: 30_000 } }).then((o) => {
      order.push(`stuck:${o.error?.kind}`)
    })
    const quick = runProgram(runtime, 'return (await tools.one()) + 1', { bindings: { one: async () => 1 } }).then((o) => {
      order.push(`quick:${String(o.value)}`)
    })
    await Promise.all([stuck, quick])
    expect(order).toEqual(['quick:2', 'stuck:timeout'])
  })

  it('replaces a worker the watchdog terminated, keeps lines of earlier entries, and counts its instances as dropped', async () => {
    const fresh = createQuickJsRuntime()
    try {
      expect((await runProgram(fresh, 'return 1')).value).toBe(1)
      expect(fresh.stats()).toMatchObject({ workersStarted: 1, modules: { created: 1, dropped: 0, idle: 1, inUse: 0 } })
      const out = await runProgram(fresh, 'console.log("a"); await tools.noop(); console.log("b"); Array(2 ** 32 - 1).join("")', {
        bindings: { noop: async () => null },
        limits: QUICK,
      })
      // "b" was printed in the entry that got stuck: it died with the worker.
      expect(out).toMatchObject({ logs: ['a'], error: { kind: 'timeout', message: 'compute time limit of 100 ms exceeded' } })
      expect(out.stats?.subCalls).toBe(1)
      expect(fresh.stats()).toMatchObject({ workersStarted: 1, modules: { created: 1, dropped: 1, idle: 0, inUse: 0 } })
      expect((await runProgram(fresh, 'return 2')).value).toBe(2)
      expect(fresh.stats()).toMatchObject({ workersStarted: 2, modules: { created: 2, dropped: 1, idle: 1, inUse: 0 } })
    } finally {
      fresh.dispose()
    }
  })

  it('stops a tight loop on abort through the shared flag, without replacing the worker', async () => {
    const fresh = createQuickJsRuntime()
    try {
      await fresh.warmUp(SMALL_LIMITS.memoryBytes)
      const controller = new AbortController()
      let settles = 0
      const pending = runProgram(fresh, 'console.log("looping"); await tools.noop(); for (;;) {}', {
        bindings: { noop: async () => null },
        limits: { computeMs: 30_000, wallMs: 30_000 },
        signal: controller.signal,
        onSettle: () => settles++,
      })
      await sleep(100)
      controller.abort(new Error('user pressed stop'))
      const out = await pending
      expect(out).toMatchObject({ logs: ['looping'], error: { kind: 'abort', message: 'the run was aborted: user pressed stop' } })
      expect(settles).toBe(1)
      expect(fresh.stats().workersStarted).toBe(1)
      expect((await runProgram(fresh, 'return 3')).value).toBe(3)
      expect(fresh.stats().workersStarted).toBe(1)
    } finally {
      fresh.dispose()
    }
  })

  it('leaves no handle behind: a process that ran programs exits by itself', () => {
    const root = fileURLToPath(new URL('../../../', import.meta.url))
    const script = fileURLToPath(new URL('./fixtures/exit-after-run.ts', import.meta.url))
    const child = spawnSync(`${root}node_modules/.bin/tsx`, ['--conditions=dsh-source', script], { cwd: root, encoding: 'utf8', timeout: 60_000 })
    expect(child.stderr).toBe('')
    expect(child.status).toBe(0)
    expect(child.stdout.trim()).toBe('[6,"timeout","worker"]')
  })
})
