/**
 * Spin-then-block for the engine worker's wait for sub-call replies (`worker-main.ts`): before it
 * blocks in `Atomics.wait` on the monitor's wake counter, the engine thread busy-waits on that
 * counter for a short budget (`QuickJsRuntimeOptions.replySpinMs`). A reply that comes within the
 * budget (a tool that answers at once) is then seen without the thread being put to sleep and
 * woken again — a wake-up that costs tens of µs on a loaded virtual machine — at the price of
 * the CPU spent spinning. A wait does not spin while the thread's recent waits averaged more than
 * two budgets (slow tools: every spin would run out), so the spin costs CPU only where it pays.
 *
 * Spinning takes a CPU that the main thread, which must produce the reply, may need: with many
 * engine workers waiting at once (parallel programs), they could take every CPU. A {@link SpinGate}
 * shared by all workers of one pool caps how many spin at once ({@link defaultMaxSpinners}: one
 * CPU fewer than the process may use, at least one); a worker that finds the gate full blocks at
 * once. A spin reads the counter and the clock, nothing else: an abort raises the same counter,
 * so it ends a spin as it ends a block.
 */
import { availableParallelism } from 'node:os'

/** The largest accepted `replySpinMs` (ms). */
export const MAX_REPLY_SPIN_MS = 10

/**
 * The default spin budget (ms): 0.2 when the process may run on more than one CPU, else 0 (on one
 * CPU spinning only delays the thread that produces the reply).
 *
 * @param cpus The number of CPUs the process may use (default `os.availableParallelism()`).
 */
export function defaultReplySpinMs(cpus: number = availableParallelism()): number {
  return cpus > 1 ? 0.2 : 0
}

/**
 * How many engine workers of one pool may spin at once: `max(1, cpus - 1)`, so one CPU is left
 * for the main thread where there are several (with one CPU the default budget is 0 anyway).
 *
 * @param cpus The number of CPUs the process may use (default `os.availableParallelism()`).
 */
export function defaultMaxSpinners(cpus: number = availableParallelism()): number {
  return Math.max(1, cpus - 1)
}

const SPINNING = 0
const MAX = 1

/**
 * The pool-wide cap on spinning engine threads: an `Int32Array` over a small
 * `SharedArrayBuffer` holding how many spin now and how many may. The pool makes one and passes
 * {@link SpinGate.buffer} to every worker it starts; each side wraps it in a `SpinGate` of its own.
 */
export class SpinGate {
  readonly buffer: SharedArrayBuffer
  private readonly slots: Int32Array

  /**
   * @param max How many may spin at once (used when `buffer` is new; default {@link defaultMaxSpinners}).
   * @param buffer The buffer of an existing gate (in a worker); a new one when omitted.
   */
  constructor(max: number = defaultMaxSpinners(), buffer?: SharedArrayBuffer) {
    this.buffer = buffer ?? new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT)
    this.slots = new Int32Array(this.buffer)
    if (buffer === undefined) Atomics.store(this.slots, MAX, max)
  }

  /**
   * Takes a spinner's place: `true` when fewer than the maximum were spinning (the caller must
   * {@link SpinGate.leave} when it stops), `false` when the gate is full (nothing to give back).
   */
  enter(): boolean {
    // Compare-and-swap rather than add-then-undo: the count never passes the maximum, not even for
    // the instant a refused thread's increment would stand before it is taken back.
    const max = Atomics.load(this.slots, MAX)
    let current = Atomics.load(this.slots, SPINNING)
    while (current < max) {
      const seen = Atomics.compareExchange(this.slots, SPINNING, current, current + 1)
      if (seen === current) return true
      current = seen
    }
    return false
  }

  /** Gives back a place taken with {@link SpinGate.enter}. */
  leave(): void {
    Atomics.sub(this.slots, SPINNING, 1)
  }

  /** How many threads spin now (tests, diagnostics). */
  spinning(): number {
    return Atomics.load(this.slots, SPINNING)
  }

  /** How many may spin at once. */
  max(): number {
    return Atomics.load(this.slots, MAX)
  }
}

/** What {@link waitForReply} waits on: the engine's wake counter (an `EntryMonitor`). */
export interface WakeCounter {
  /** The counter's current value. */
  wakeCount(): bigint
  /** Blocks until the counter differs from `seen` (at once when it already does) or `timeoutMs` passed. */
  waitForWake(seen: bigint, timeoutMs: number): void
  /**
   * Records (in memory the main thread can read) whether this thread holds a place in the gate,
   * so that a place held by a thread terminated while spinning can be given back
   * ({@link releaseSpinOf}).
   */
  setSpinning(on: boolean): void
  /** Whether the thread recorded that it holds a place. */
  isSpinning(): boolean
}

/**
 * How one engine thread spins before it blocks: the budget (ms, 0: never), the pool's gate, and
 * how long its recent waits took (ms; written by {@link waitForReply}, start it at 0).
 */
export interface ReplySpin {
  readonly ms: number
  readonly gate: SpinGate
  /**
   * How long this thread's recent waits took (until the counter moved, or their timeout): a
   * moving average, each wait weighing {@link RECENT_WAIT_WEIGHT}, so one slow reply among quick
   * ones does not stop the spin, and a run of slow ones does within a few waits.
   */
  recentWaitMs: number
}

/** The weight of the newest wait in {@link ReplySpin.recentWaitMs}. */
export const RECENT_WAIT_WEIGHT = 1 / 4

/**
 * The spin runs while recent waits averaged at most this many budgets: a blocked wait also counts
 * the thread's wake-up (tens of µs on a loaded machine), so replies that a spin would catch can
 * average somewhat more than one budget.
 */
export const SPIN_WHILE_RECENT_WAITS_WITHIN = 2

function recordWait(spin: ReplySpin, ms: number): void {
  spin.recentWaitMs += (ms - spin.recentWaitMs) * RECENT_WAIT_WEIGHT
}

/**
 * How a {@link waitForReply} ended: `spun` the counter moved while it spun; `blocked` it blocked
 * (after spinning or without); `spent` the spin used up the whole timeout, so it did not block.
 */
export type ReplyWaitEnd = 'spun' | 'blocked' | 'spent'

/**
 * Waits until `counter` differs from `seen` or `timeoutMs` passed: spins (reads the counter and
 * the clock, nothing else) for up to `spin.ms` and returns as soon as the counter moved; otherwise
 * blocks ({@link WakeCounter.waitForWake}) for what is left of `timeoutMs`. The spin never lasts
 * longer than `timeoutMs`, and there is none when either is 0, when this thread's recent waits
 * averaged more than {@link SPIN_WHILE_RECENT_WAITS_WITHIN} budgets (its replies come slower than a
 * spin: spinning would only burn CPU; quicker replies bring the average down and the spin back),
 * or when the gate is full. The gate's place is given back on every way out of the spin.
 *
 * @param now The clock (ms, monotonic), injectable for tests.
 */
export function waitForReply(counter: WakeCounter, seen: bigint, timeoutMs: number, spin: ReplySpin, now: () => number = () => performance.now()): ReplyWaitEnd {
  const budget = Math.min(spin.ms, timeoutMs)
  if (!(budget > 0)) {
    counter.waitForWake(seen, timeoutMs)
    return 'blocked'
  }
  const started = now()
  if (spin.recentWaitMs > SPIN_WHILE_RECENT_WAITS_WITHIN * spin.ms || !spin.gate.enter()) {
    counter.waitForWake(seen, timeoutMs)
    recordWait(spin, now() - started)
    return 'blocked'
  }
  let elapsed = 0
  counter.setSpinning(true)
  try {
    do {
      if (counter.wakeCount() !== seen) {
        recordWait(spin, elapsed)
        return 'spun'
      }
      elapsed = now() - started
    } while (elapsed < budget)
  } finally {
    counter.setSpinning(false)
    spin.gate.leave()
  }
  const left = timeoutMs - elapsed
  if (!(left > 0)) {
    recordWait(spin, elapsed)
    return 'spent'
  }
  counter.waitForWake(seen, left)
  recordWait(spin, now() - started)
  return 'blocked'
}

/**
 * Main thread, once an engine worker has exited: gives back the gate place the worker held if it
 * was terminated while spinning (a worker gives its place back itself on every other way out).
 * Whether it held one is what it recorded last ({@link WakeCounter.setSpinning}): it records
 * after taking the place and before giving it back, so a place is never given back twice.
 */
export function releaseSpinOf(counter: Pick<WakeCounter, 'isSpinning' | 'setSpinning'>, gate: SpinGate): void {
  if (!counter.isSpinning()) return
  counter.setSpinning(false)
  gate.leave()
}
