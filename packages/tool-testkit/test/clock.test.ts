/**
 * ManualClock: deterministic time for timeout tests.
 */
import { afterEach, describe, expect, test } from 'vitest'
import type { ToolResult } from '@deepseek-ai/dsh-tools'
import { TimeoutPolicy } from '@deepseek-ai/dsh-tool-call-timeout-policy'
import { call, createHarness, FakeTimer, hangTool, ManualClock, realTimers, slowTool, type Harness } from '@deepseek-ai/dsh-tool-testkit'

let h: Harness | undefined
let uninstall: (() => void) | undefined
afterEach(async () => {
  uninstall?.()
  uninstall = undefined
  await h?.dispose()
  h = undefined
})

const code = (r: ToolResult | undefined) => (r?.isError ? r.error.info?.code : 'ok')

describe('ManualClock', () => {
  test('fires timers in due order (ties in creation order) only when advanced', async () => {
    const clock = new ManualClock(1_000)
    const fired: string[] = []
    clock.setTimeout(() => fired.push('b@20'), 20)
    clock.setTimeout(() => fired.push('a@10'), 10)
    clock.setTimeout(() => fired.push('c@20'), 20)
    const cleared = clock.setTimeout(() => fired.push('never'), 5)
    clock.clearTimeout(cleared)
    expect(clock.pendingDelays()).toEqual([10, 20, 20])
    expect(await clock.advance(9)).toBe(0)
    expect(fired).toEqual([])
    expect(await clock.advance(11)).toBe(3)
    expect(fired).toEqual(['a@10', 'b@20', 'c@20'])
    expect([clock.now, clock.pending, clock.fired]).toEqual([1_020, 0, 3])
  })

  test('a timer created by a callback inside the window fires in the same advance; promise work between firings runs', async () => {
    const clock = new ManualClock()
    const seen: number[] = []
    clock.setTimeout(() => {
      seen.push(clock.now)
      void Promise.resolve().then(() => clock.setTimeout(() => seen.push(clock.now), 5))
    }, 10)
    await clock.advance(100)
    expect(seen).toEqual([10, 15])
    expect(clock.now).toBe(100)
  })

  test('delays below 1 ms or non-finite are 1 ms, like Node; refresh() restarts; handles look like Node timeouts', async () => {
    const clock = new ManualClock()
    const t = clock.setTimeout(() => undefined, Number.NaN)
    expect(t).toBeInstanceOf(FakeTimer)
    expect([t.delay, t.hasRef(), t.unref().hasRef(), +t]).toEqual([1, true, false, t.id])
    await clock.advance(0)
    expect(clock.pending).toBe(1)
    const r = clock.setTimeout(() => undefined, 10)
    await clock.advance(5)
    r.refresh()
    expect(clock.pendingDelays()).toEqual([10])
    expect(await clock.next()).toBe(true)
    expect(await clock.next()).toBe(false)
    await expect(clock.advance(-1)).rejects.toThrow('ManualClock.advance: ms must be a non-negative number, got -1')
  })

  test('settle() drives timers until the promise settles, and names a hang', async () => {
    const clock = new ManualClock()
    const done = new Promise<string>((resolve) => clock.setTimeout(() => clock.setTimeout(() => resolve('after 30'), 20), 10))
    await expect(clock.settle(done)).resolves.toBe('after 30')
    expect(clock.now).toBe(30)
    await expect(clock.settle(new Promise(() => undefined))).rejects.toThrow('ManualClock.settle: the promise is still pending and no timer is scheduled')
    const rejecting = new Promise((_r, reject) => clock.setTimeout(() => reject(new Error('late failure')), 5))
    await expect(clock.settle(rejecting)).rejects.toThrow('late failure')
  })

  test('install() replaces the global setTimeout/clearTimeout (and Date.now on request) and restores them', async () => {
    const clock = new ManualClock(5_000)
    const restore = clock.install({ date: true })
    let fired = false
    const handle = setTimeout(() => {
      fired = true
    }, 1_000)
    expect(handle).toBeInstanceOf(FakeTimer)
    expect(Date.now()).toBe(5_000)
    await clock.advance(1_000)
    expect([fired, Date.now()]).toEqual([true, 6_000])
    const cleared = setTimeout(() => undefined, 10)
    clearTimeout(cleared)
    expect(clock.pending).toBe(0)
    restore()
    restore()
    expect(setTimeout).toBe(realTimers.setTimeout)
    expect(Date.now()).not.toBe(6_000)
  })
})

describe('timeouts on a manual clock', () => {
  test('the timeout policy’s deadline fires when the clock reaches timeoutMs, not before; its timer is gone after', async () => {
    const clock = new ManualClock()
    uninstall = clock.install()
    h = await createHarness({ plugins: [{ plugin: TimeoutPolicy, config: {} }] })
    h.ctx.tools.register(hangTool({ timeoutMs: 5_000 }))
    const pending = h.execute([call('hang', {}, 'h1')])
    await clock.flush()
    expect(clock.pendingDelays()).toEqual([5_000])
    await clock.advance(4_999)
    let settled = false
    void pending.then(() => (settled = true))
    await clock.flush()
    expect(settled).toBe(false)
    const [r] = await clock.settle(pending)
    expect(clock.now).toBe(5_000)
    expect(r).toMatchObject({ isError: true, error: { message: 'tool call timed out after 5000ms' } })
    expect(clock.pending).toBe(0)
  })

  test('a call that finishes inside its budget leaves no timer behind (B06 shape)', async () => {
    const clock = new ManualClock()
    uninstall = clock.install()
    h = await createHarness({ plugins: [{ plugin: TimeoutPolicy, config: {} }] })
    h.ctx.tools.register({ ...slowTool({ defaultMs: 100 }), timeoutMs: 30_000 })
    const [r] = await clock.settle(h.execute([call('slow', {}, 's1')]))
    expect(code(r)).toBe('ok')
    expect(clock.now).toBe(100)
    expect(clock.pending).toBe(0)
  })
})
