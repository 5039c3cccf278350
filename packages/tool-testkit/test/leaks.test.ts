/**
 * Leak checks (ARCHITECTURE §7, §11; bug case B06): thousands of calls under the timeout
 * policy — successes inside their budget, timeouts, caller aborts, queued calls cancelled —
 * leave no timer, no abort listener and no pending promise behind, and a one-shot script
 * exits on its own.
 */
import { spawnSync } from 'node:child_process'
import { setMaxListeners } from 'node:events'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, test } from 'vitest'
import type { ToolResult } from '@deepseek-ai/dsh-tools'
import { TimeoutPolicy } from '@deepseek-ai/dsh-tool-call-timeout-policy'
import {
  abortListenerCount,
  activeResources,
  call,
  createHarness,
  echoTool,
  Gate,
  gatedTool,
  hangTool,
  resourceGrowth,
  trackPromises,
  type Harness,
} from '@deepseek-ai/dsh-tool-testkit'

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

const code = (r: ToolResult) => (r.isError ? (r.error.info?.code ?? '?') : 'ok')

function tally(results: readonly ToolResult[]): Record<string, number> {
  const out: Record<string, number> = {}
  for (const r of results) out[code(r)] = (out[code(r)] ?? 0) + 1
  return out
}

describe('leaks', () => {
  test('4,000 calls with timeouts and aborts leave no timers, abort listeners or pending promises', async () => {
    h = await createHarness({ native: { maxParallelCalls: 100 }, plugins: [{ plugin: TimeoutPolicy, config: {} }] })
    const gate = new Gate()
    h.ctx.tools.register({ ...echoTool(), timeoutMs: 600_000 }) // succeeds at once: its 10-minute timer must be cleared
    h.ctx.tools.register(hangTool({ name: 'hang', timeoutMs: 1 })) // times out
    h.ctx.tools.register({ ...gatedTool(gate), timeoutMs: 600_000 }) // held until the caller aborts
    const batchOf = (b: number) =>
      Array.from({ length: 200 }, (_, i) => {
        const id = `b${b}-${i}`
        if (i % 10 === 0) return call('hang', {}, id)
        if (i % 10 === 1) return call('gated', {}, id)
        return call('echo', { text: id }, id)
      })
    // Warm up (module-level lazies, ajv compilation) before measuring.
    await h.execute([call('echo', {}, 'warm'), call('hang', {}, 'warm-h')])
    const before = activeResources()
    const signals: AbortSignal[] = []
    const totals: Record<string, number> = {}

    const report = await trackPromises(async () => {
      for (let b = 0; b < 20; b++) {
        const controller = new AbortController()
        // 100 concurrent timed calls each listen on the caller's signal (the timeout policy's
        // deadline): above Node's default of 10 that prints MaxListenersExceededWarning.
        setMaxListeners(200, controller.signal)
        signals.push(controller.signal)
        const abortLater = b % 2 === 1
        const started = gate.starts.length
        const pending = h!.execute(batchOf(b), { signal: controller.signal })
        if (abortLater) {
          // Abort once a few gated bodies hold their slots: running ones become ABORTED, queued ones ABORTED_BEFORE_DISPATCH.
          await gate.started(started + 5)
          controller.abort()
        } else {
          // Without an abort the gated calls are released as they start.
          const release = setInterval(() => gate.releaseAll(), 1)
          try {
            await pending
          } finally {
            clearInterval(release)
          }
        }
        for (const [k, v] of Object.entries(tally(await pending))) totals[k] = (totals[k] ?? 0) + v
      }
    })

    expect(Object.values(totals).reduce((a, b) => a + b, 0)).toBe(4_000)
    expect(totals.TOOL_TIMEOUT).toBeGreaterThanOrEqual(200) // every hang of the 10 un-aborted batches
    expect(totals.ABORTED).toBeGreaterThan(0)
    expect(totals.ABORTED_BEFORE_DISPATCH).toBeGreaterThan(0)
    expect(totals.ok).toBeGreaterThanOrEqual(10 * 180)
    expect(Object.keys(totals).sort()).toEqual(['ABORTED', 'ABORTED_BEFORE_DISPATCH', 'TOOL_TIMEOUT', 'ok'])
    expect(gate.live).toBe(0)

    expect(report.created).toBeGreaterThan(4_000)
    expect(report.pending).toBe(0)
    expect(signals.map(abortListenerCount)).toEqual(signals.map(() => 0))
    expect(resourceGrowth(before, activeResources())).toEqual({})
  })

  test('the leak detectors detect: a held body is a pending promise, an open listener and a live timer', async () => {
    h = await createHarness()
    const gate = new Gate()
    h.ctx.tools.register(gatedTool(gate))
    const controller = new AbortController()
    const before = activeResources()
    let pending: Promise<readonly ToolResult[]> | undefined
    const report = await trackPromises(async () => {
      pending = h!.execute([call('gated', {}, 'held')], { signal: controller.signal })
      await gate.started(1)
    })
    const timer = setTimeout(() => undefined, 60_000)
    try {
      expect(report.pending).toBeGreaterThan(0)
      expect(abortListenerCount(controller.signal)).toBe(1) // the gate listens for the abort
      expect(resourceGrowth(before, activeResources())).toEqual({ Timeout: 1 })
    } finally {
      clearTimeout(timer)
      controller.abort()
      await pending
    }
    expect(abortListenerCount(controller.signal)).toBe(0)
  })

  test('a one-shot script exits on its own, without dispose or process.exit (B06)', () => {
    const root = fileURLToPath(new URL('../../../', import.meta.url))
    const script = fileURLToPath(new URL('./fixtures/one-shot.ts', import.meta.url))
    // The export condition that maps workspace packages to their TypeScript sources.
    const exports = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { exports: { '.': Record<string, string> } }).exports['.']
    const condition = Object.keys(exports).find((k) => exports[k] === './src/index.ts')!
    const child = spawnSync(`${root}node_modules/.bin/tsx`, [`--conditions=${condition}`, script], {
      cwd: root,
      encoding: 'utf8',
      // A leaked 10-minute timer would keep the child alive far past this; it is then killed (status null).
      timeout: 25_000,
    })
    expect({ status: child.status, signal: child.signal, stderr: child.stderr }).toEqual({ status: 0, signal: null, stderr: '' })
    expect(child.stdout).toBe('[["a","ok"],["b","TOOL_TIMEOUT"],["c","ABORTED"]]\n')
  })
})
