/**
 * The engine's spin-then-block wait for a reply (`reply-spin.ts`), without threads: the default
 * budget and cap by CPU count, the pool-wide gate's cap, and `waitForReply` against a fake wake
 * counter and a fake clock — it returns as soon as the counter moved, never spins or blocks
 * longer than its timeout in total, does not spin at a 0 timeout or budget or with the gate full,
 * and gives its gate place back on every way out. Also the main thread's give-back for a worker
 * terminated while it spun.
 */
import { describe, expect, it } from 'vitest'
import { EntryMonitor } from '../src/runtime/entry-monitor'
import { defaultMaxSpinners, defaultReplySpinMs, MAX_REPLY_SPIN_MS, releaseSpinOf, SpinGate, waitForReply, type WakeCounter } from '../src/runtime/reply-spin'

/** A wake counter that moves at its `movesAtRead`-th read (never when undefined) and records what happened. */
function fakeCounter(movesAtRead?: number): WakeCounter & { reads: number; waits: [bigint, number][]; marks: boolean[] } {
  let spinning = false
  const counter = {
    reads: 0,
    waits: [] as [bigint, number][],
    marks: [] as boolean[],
    wakeCount: () => {
      counter.reads++
      return movesAtRead !== undefined && counter.reads >= movesAtRead ? 1n : 0n
    },
    waitForWake: (seen: bigint, timeoutMs: number) => void counter.waits.push([seen, timeoutMs]),
    setSpinning: (on: boolean) => {
      spinning = on
      counter.marks.push(on)
    },
    isSpinning: () => spinning,
  }
  return counter
}

/** A clock that starts at 1,000 ms and advances `stepMs` on every read; counts its reads. */
function fakeClock(stepMs: number): { now: () => number; reads: () => number } {
  let t = 1_000
  let reads = 0
  return {
    now: () => {
      reads++
      const v = t
      t += stepMs
      return v
    },
    reads: () => reads,
  }
}

describe('defaults by CPU count', () => {
  it('spins 0.2 ms with more than one CPU, not at all with one', () => {
    expect(defaultReplySpinMs(1)).toBe(0)
    expect(defaultReplySpinMs(2)).toBe(0.2)
    expect(defaultReplySpinMs(16)).toBe(0.2)
    expect(MAX_REPLY_SPIN_MS).toBe(10)
  })

  it('lets one spinner fewer than the CPUs spin at once, at least one', () => {
    expect(defaultMaxSpinners(1)).toBe(1)
    expect(defaultMaxSpinners(2)).toBe(1)
    expect(defaultMaxSpinners(4)).toBe(3)
  })
})

describe('SpinGate', () => {
  it('with max 1 refuses a second spinner until the first leaves; the count is back to 0 after both', () => {
    const gate = new SpinGate(1)
    expect(gate.max()).toBe(1)
    expect(gate.enter()).toBe(true)
    expect(gate.spinning()).toBe(1)
    expect(gate.enter()).toBe(false)
    expect(gate.spinning()).toBe(1)
    gate.leave()
    expect(gate.spinning()).toBe(0)
    expect(gate.enter()).toBe(true)
    gate.leave()
    expect(gate.spinning()).toBe(0)
  })

  it('is shared through its buffer: a gate over the same buffer sees the same places', () => {
    const pool = new SpinGate(2)
    const worker = new SpinGate(undefined, pool.buffer)
    expect(worker.max()).toBe(2)
    expect(worker.enter()).toBe(true)
    expect(pool.enter()).toBe(true)
    expect(worker.enter()).toBe(false)
    expect(pool.spinning()).toBe(2)
    worker.leave()
    pool.leave()
    expect(pool.spinning()).toBe(0)
  })
})

describe('waitForReply', () => {
  it('returns as soon as the counter moved while spinning, without blocking; the place is given back', () => {
    const counter = fakeCounter(3)
    const gate = new SpinGate(1)
    const clock = fakeClock(0.01)
    expect(waitForReply(counter, 0n, 100, { ms: 0.2, gate, recentWaitMs: 0 }, clock.now)).toBe('spun')
    expect(counter.reads).toBe(3)
    expect(counter.waits).toEqual([])
    expect(counter.marks).toEqual([true, false])
    expect(gate.spinning()).toBe(0)
  })

  it('spins for the budget, then blocks for the rest of the timeout: both together are the timeout', () => {
    const counter = fakeCounter()
    const gate = new SpinGate(1)
    const clock = fakeClock(0.0625)
    expect(waitForReply(counter, 0n, 100, { ms: 0.25, gate, recentWaitMs: 0 }, clock.now)).toBe('blocked')
    // Reads at 0, 0.0625, 0.125, 0.1875 (elapsed after each: 0.0625 … 0.25, the last ends the spin).
    expect(counter.reads).toBe(4)
    expect(counter.waits).toEqual([[0n, 99.75]])
    expect(counter.marks).toEqual([true, false])
    expect(gate.spinning()).toBe(0)
  })

  it('spins no longer than a timeout shorter than the budget, and then does not block', () => {
    const counter = fakeCounter()
    const gate = new SpinGate(1)
    const clock = fakeClock(0.0625)
    expect(waitForReply(counter, 0n, 0.125, { ms: 10, gate, recentWaitMs: 0 }, clock.now)).toBe('spent')
    expect(counter.reads).toBe(2)
    expect(counter.waits).toEqual([])
    expect(gate.spinning()).toBe(0)
  })

  it('does not spin at a 0 timeout or a 0 budget: it blocks at once with the whole timeout', () => {
    for (const [timeoutMs, ms] of [
      [0, 0.2],
      [100, 0],
      [-1, 0.2],
    ] as const) {
      const counter = fakeCounter(1)
      const gate = new SpinGate(1)
      const clock = fakeClock(0.01)
      expect(waitForReply(counter, 0n, timeoutMs, { ms, gate, recentWaitMs: 0 }, clock.now)).toBe('blocked')
      expect(counter.reads).toBe(0)
      expect(clock.reads()).toBe(0)
      expect(counter.waits).toEqual([[0n, timeoutMs]])
      expect(counter.marks).toEqual([])
      expect(gate.spinning()).toBe(0)
    }
  })

  it('blocks at once when the gate is full (another thread spins), without taking a place', () => {
    const gate = new SpinGate(1)
    expect(gate.enter()).toBe(true)
    const counter = fakeCounter()
    const clock = fakeClock(0.01)
    expect(waitForReply(counter, 0n, 100, { ms: 0.2, gate, recentWaitMs: 0 }, clock.now)).toBe('blocked')
    expect(counter.reads).toBe(0)
    expect(counter.marks).toEqual([])
    expect(counter.waits).toEqual([[0n, 100]])
    expect(gate.spinning()).toBe(1)
    gate.leave()
    expect(gate.spinning()).toBe(0)
  })

  it('does not spin while recent waits averaged more than two budgets, and spins again once quicker waits bring the average down', () => {
    const counter = fakeCounter()
    const gate = new SpinGate(1)
    const clock = fakeClock(0.0625)
    const spin = { ms: 0.25, gate, recentWaitMs: 0 }
    // Spins 0.25 ms, blocks; the clock read after the block says the whole wait took 0.3125 ms:
    // one wait weighs a quarter of the average.
    expect(waitForReply(counter, 0n, 100, spin, clock.now)).toBe('blocked')
    expect(spin.recentWaitMs).toBe(0.078125)
    expect(counter.reads).toBe(4)
    // A single slow wait among quick ones does not stop the spin (0.078125 ≤ 0.5) …
    expect(waitForReply(counter, 0n, 100, spin, clock.now)).toBe('blocked')
    expect(counter.reads).toBe(8)
    // … an average past two budgets does: the next wait blocks at once (no read of the counter) …
    spin.recentWaitMs = 0.625
    expect(waitForReply(counter, 0n, 100, spin, clock.now)).toBe('blocked')
    expect(counter.reads).toBe(8)
    expect(counter.waits).toEqual([
      [0n, 99.75],
      [0n, 99.75],
      [0n, 100],
    ])
    // … and that quick wait (0.0625 ms) brings the average to 0.484375 ms, within two budgets: the one after spins again.
    expect(spin.recentWaitMs).toBe(0.484375)
    expect(waitForReply(counter, 0n, 100, spin, clock.now)).toBe('blocked')
    expect(counter.reads).toBe(12)
    expect(counter.marks).toEqual([true, false, true, false, true, false])
    expect(gate.spinning()).toBe(0)
  })

  it('records how long a wait that ended in its spin took', () => {
    // Moves at the third read: after two clock reads past the start (0.0625 ms each).
    const spin = { ms: 0.25, gate: new SpinGate(1), recentWaitMs: 0.5 }
    expect(waitForReply(fakeCounter(3), 0n, 100, spin, fakeClock(0.0625).now)).toBe('spun')
    expect(spin.recentWaitMs).toBe(0.40625)
  })

  it('gives the place back when the spin throws', () => {
    const gate = new SpinGate(1)
    const counter = fakeCounter()
    const failing: WakeCounter = {
      ...counter,
      wakeCount: () => {
        throw new Error('read failed')
      },
    }
    expect(() => waitForReply(failing, 0n, 100, { ms: 0.2, gate, recentWaitMs: 0 }, fakeClock(0.01).now)).toThrow('read failed')
    expect(counter.marks).toEqual([true, false])
    expect(gate.spinning()).toBe(0)
  })

  it('over a real monitor: a counter that already moved ends the spin at its first read', () => {
    const monitor = new EntryMonitor()
    const seen = monitor.wakeCount()
    monitor.wakeEngine()
    const gate = new SpinGate(1)
    expect(waitForReply(monitor, seen, 100, { ms: 10, gate, recentWaitMs: 0 })).toBe('spun')
    expect(monitor.isSpinning()).toBe(false)
    expect(gate.spinning()).toBe(0)
  })
})

describe('releaseSpinOf (main thread, after a worker exited)', () => {
  it('gives back the place of a worker that recorded it held one, once; nothing otherwise', () => {
    const monitor = new EntryMonitor()
    const gate = new SpinGate(1)
    releaseSpinOf(monitor, gate)
    expect(gate.spinning()).toBe(0)
    // As a worker terminated in the middle of its spin leaves them.
    expect(gate.enter()).toBe(true)
    monitor.setSpinning(true)
    releaseSpinOf(monitor, gate)
    expect(gate.spinning()).toBe(0)
    expect(monitor.isSpinning()).toBe(false)
    releaseSpinOf(monitor, gate)
    expect(gate.spinning()).toBe(0)
  })
})
