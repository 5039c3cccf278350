/**
 * Nothing is left behind (bug case B06): on every settle path the deadline's timer is cleared
 * and its listener on the outer signal removed. Plus the `Deadline` primitive on its own.
 */
import { getEventListeners } from 'node:events'
import { describe, expect, test, vi } from 'vitest'
import { defineTool } from '@deepseek-ai/dsh-tools'
import { call } from '@deepseek-ai/dsh-tool-testkit'
import { Deadline, TimeoutPolicy, budgetFor } from '../src/index'
import { codeOf, probeTool, useFakeTimerHarness } from './fixtures/tools'

const harness = useFakeTimerHarness()

describe('every settle path leaves no timer and no listener (B06)', () => {
  const paths = [
    { path: 'success', ms: 5, abortAt: undefined, throws: false, code: undefined },
    { path: 'failure', ms: 5, abortAt: undefined, throws: true, code: 'TOOL_FAILED' },
    { path: 'caller abort', ms: 1_000, abortAt: 20, throws: false, code: 'ABORTED' },
    { path: 'timeout', ms: 1_000, abortAt: undefined, throws: false, code: 'TOOL_TIMEOUT' },
  ] as const

  test.each(paths)('$path: vi.getTimerCount() is 0 and the caller signal has no abort listener once the call settled', async ({ ms, abortAt, throws, code }) => {
    const h = await harness()
    await h.ctx.plugin(TimeoutPolicy, { hardLimit: { graceMs: 500 } })
    h.ctx.tools.register(
      defineTool({
        name: 'work',
        description: 'Sleeps observing its signal, then answers or fails.',
        parameters: {},
        output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
        timeoutMs: 100,
        async execute(_args, exec) {
          await new Promise<void>((resolve, reject) => {
            const timer = setTimeout(resolve, ms)
            exec.signal.addEventListener('abort', () => {
              clearTimeout(timer)
              reject(exec.signal.reason)
            }, { once: true })
          })
          if (throws) throw new Error('failed')
          return 'done'
        },
      }),
    )
    const controller = new AbortController()
    const pending = h.execute([call('work', {}, 'c1')], { signal: controller.signal })
    await vi.advanceTimersByTimeAsync(0)
    expect(vi.getTimerCount()).toBe(2) // the body's own timer and the deadline
    if (abortAt !== undefined) {
      await vi.advanceTimersByTimeAsync(abortAt)
      controller.abort()
    }
    await vi.advanceTimersByTimeAsync(Math.min(ms, 100))
    const [result] = await pending
    expect(codeOf(result)).toBe(code)
    expect(vi.getTimerCount()).toBe(0)
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0)
  })

  test('a 5 ms call under a 30 s budget leaves nothing pending right after it settles', async () => {
    const h = await harness()
    await h.ctx.plugin(TimeoutPolicy, {})
    const { tool } = probeTool({ timeoutMs: 30_000 })
    h.ctx.tools.register(tool)
    const pending = h.execute([call('probe', { ms: 5 }, 'c1')])
    await vi.advanceTimersByTimeAsync(5)
    expect((await pending)[0]).toMatchObject({ isError: false, value: 'slept 5ms' })
    expect(vi.getTimerCount()).toBe(0)
  })
})

describe('Deadline', () => {
  test('fires after the budget with a TimeoutError; the cause sticks when the outer aborts later', async () => {
    const outer = new AbortController()
    const d = new Deadline(outer.signal, 100)
    await vi.advanceTimersByTimeAsync(99)
    expect([d.cause, d.signal.aborted, d.pending]).toEqual([undefined, false, true])
    await vi.advanceTimersByTimeAsync(1)
    expect([d.cause, d.timedOut, d.signal.aborted, d.pending]).toEqual(['timeout', true, true, false])
    expect((d.signal.reason as DOMException).name).toBe('TimeoutError')
    outer.abort(new Error('late'))
    expect([d.cause, (d.signal.reason as DOMException).name]).toEqual(['timeout', 'TimeoutError'])
    d.dispose()
    expect(getEventListeners(outer.signal, 'abort')).toHaveLength(0)
  })

  test('an outer abort propagates its reason and clears the budget timer', () => {
    const outer = new AbortController()
    const d = new Deadline(outer.signal, 100)
    const reason = new Error('stop')
    outer.abort(reason)
    expect([d.cause, d.timedOut, d.signal.reason, d.pending, vi.getTimerCount()]).toEqual(['abort', false, reason, false, 0])
  })

  test('an already-aborted outer signal aborts the deadline at once, with no timer', () => {
    const outer = new AbortController()
    outer.abort('gone')
    const d = new Deadline(outer.signal, 100)
    expect([d.cause, d.signal.reason, vi.getTimerCount()]).toEqual(['abort', 'gone', 0])
  })

  test('with a grace, expired resolves graceMs after the signal fired; dispose cancels it', async () => {
    const outer = new AbortController()
    const d = new Deadline(outer.signal, 100, 50)
    let expired: string | undefined
    void d.expired.then((cause) => {
      expired = cause
    })
    await vi.advanceTimersByTimeAsync(149)
    expect([expired, vi.getTimerCount()]).toEqual([undefined, 1])
    await vi.advanceTimersByTimeAsync(1)
    expect(expired).toBe('timeout')

    const d2 = new Deadline(outer.signal, 100, 50)
    await vi.advanceTimersByTimeAsync(120) // fired at 100, grace pending
    expect(d2.pending).toBe(true)
    d2.dispose()
    expect([d2.pending, vi.getTimerCount()]).toEqual([false, 0])
  })

  test('dispose before anything fired clears the timer, removes the listener, and is idempotent', () => {
    const outer = new AbortController()
    const d = new Deadline(outer.signal, 100, 50)
    expect([getEventListeners(outer.signal, 'abort').length, vi.getTimerCount()]).toEqual([1, 1])
    d.dispose()
    d.dispose()
    expect([vi.getTimerCount(), getEventListeners(outer.signal, 'abort').length]).toEqual([0, 0])
    outer.abort()
    // A disposed deadline is detached from the caller: no cause, and its signal stays as it was.
    expect([d.cause, d.signal.aborted]).toEqual([undefined, false])
  })

  test('many concurrent deadlines on one caller signal share one listener on it (no MaxListenersExceededWarning)', () => {
    const outer = new AbortController()
    const deadlines = Array.from({ length: 30 }, () => new Deadline(outer.signal, 1_000))
    expect(getEventListeners(outer.signal, 'abort')).toHaveLength(1)
    outer.abort()
    expect(deadlines.map((d) => d.cause)).toEqual(new Array(30).fill('abort'))
    expect(deadlines.map((d) => d.signal.reason)).toEqual(new Array(30).fill(outer.signal.reason))
    deadlines.forEach((d) => d.dispose())
    expect([vi.getTimerCount(), getEventListeners(outer.signal, 'abort').length]).toEqual([0, 0])
  })

  test('deadlines disposed as they settle leave nothing on a long-lived caller signal', () => {
    const outer = new AbortController()
    for (let i = 0; i < 100; i++) {
      const d = new Deadline(outer.signal, 1_000)
      expect(getEventListeners(outer.signal, 'abort')).toHaveLength(1)
      d.dispose()
    }
    expect([vi.getTimerCount(), getEventListeners(outer.signal, 'abort').length]).toEqual([0, 0])
  })
})

describe('budgetFor', () => {
  test('own timeoutMs wins, else the default, else none', () => {
    expect(budgetFor({ timeoutMs: 250 }, 5_000)).toBe(250)
    expect(budgetFor({}, 5_000)).toBe(5_000)
    expect(budgetFor({}, undefined)).toBeUndefined()
    expect(budgetFor({ timeoutMs: Number.NaN }, 7)).toBe(7)
    expect(budgetFor({ timeoutMs: 2 ** 31 }, undefined)).toBeUndefined()
  })
})
