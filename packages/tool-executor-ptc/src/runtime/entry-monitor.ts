/**
 * A heartbeat the engine thread shares with the main thread when QuickJS runs in a worker
 * (`worker-host.ts`, `worker-main.ts`): one `SharedArrayBuffer` the worker writes on every
 * sandbox entry and exit (a few `Atomics.store`s, no message), and the main thread reads from a
 * timer to decide whether an entry overran its budget and the worker must be terminated. The main
 * thread also raises the abort flag in it, which the engine's interrupt handler polls, so an
 * abort stops a tight loop without waiting for the worker's event loop.
 *
 * Times are absolute microseconds (`performance.timeOrigin + performance.now()`), comparable
 * across threads.
 *
 * The engine thread, while its program waits on nothing but replies, waits on a wake counter
 * that the main thread raises after posting replies or an abort ({@link EntryMonitor.wakeEngine}):
 * it reads the counter in a short spin, then blocks in `Atomics.wait` on it (`reply-spin.ts`).
 * While it spins it holds a place in its pool's spin gate, which it records here
 * ({@link EntryMonitor.setSpinning}) so that the main thread can give the place back if the
 * worker is terminated meanwhile.
 */
import type { ModulePoolStats } from './module-pool'

const ENTRY_DEADLINE = 0
const ENTRY_START = 1
const COMPUTE_USED = 2
const WALL_DEADLINE = 3
const ABORT = 4
/** Slots of the run (cleared by {@link EntryMonitor.reset}); the pool counters follow. */
const RUN_SLOTS = 5
const POOL_CREATED = 5
const POOL_DROPPED = 6
const POOL_IDLE = 7
const POOL_IN_USE = 8
/** Host functions of the current run that the main thread invoked and that have not settled. */
const HOST_RUNNING = 9
/** Raised (incremented) by the main thread when the engine must look up: a reply was posted, or an abort. */
const WAKE = 10
/** 1 while the engine thread holds a place in its pool's spin gate (`reply-spin.ts`); not a run slot. */
const SPINNING = 11
const SLOTS = 12

/** Absolute time in microseconds, comparable between threads of one process. */
export function nowUs(): bigint {
  return BigInt(Math.round((performance.timeOrigin + performance.now()) * 1000))
}

/** A snapshot of the engine's state as the main thread sees it (all ms, absolute times as epoch ms; `undefined` when not set). */
export interface MonitorSnapshot {
  /** When the current guarded entry must have ended (epoch ms), `undefined` outside such an entry. */
  readonly entryDeadline: number | undefined
  /** When the current counted entry began (epoch ms). */
  readonly entryStart: number | undefined
  /** Compute time used by finished entries (ms). */
  readonly computeUsed: number
  /** The run's wall deadline (epoch ms), once the program started. */
  readonly wallDeadline: number | undefined
}

/** One shared heartbeat. Create it on the main thread and send {@link EntryMonitor.buffer} to the worker. */
export class EntryMonitor {
  readonly buffer: SharedArrayBuffer
  private readonly slots: BigInt64Array

  constructor(buffer: SharedArrayBuffer = new SharedArrayBuffer(SLOTS * 8)) {
    this.buffer = buffer
    this.slots = new BigInt64Array(buffer)
  }

  /** Clears the slots of a run (a new run begins). */
  reset(): void {
    for (let i = 0; i < RUN_SLOTS; i++) Atomics.store(this.slots, i, 0n)
    Atomics.store(this.slots, HOST_RUNNING, 0n)
  }

  /** Main thread: a host function of the current run started (`+1`) or settled (`-1`). */
  addHostRunning(delta: 1 | -1): void {
    Atomics.add(this.slots, HOST_RUNNING, BigInt(delta))
  }

  /** Host functions of the current run still running on the main thread. */
  hostRunning(): number {
    return Number(Atomics.load(this.slots, HOST_RUNNING))
  }

  /** Publishes the engine thread's instance-pool counters. */
  setPoolStats(stats: ModulePoolStats): void {
    Atomics.store(this.slots, POOL_CREATED, BigInt(stats.created))
    Atomics.store(this.slots, POOL_DROPPED, BigInt(stats.dropped))
    Atomics.store(this.slots, POOL_IDLE, BigInt(stats.idle))
    Atomics.store(this.slots, POOL_IN_USE, BigInt(stats.inUse))
  }

  /** The engine thread's instance-pool counters as last published. */
  poolStats(): ModulePoolStats {
    const n = (slot: number): number => Number(Atomics.load(this.slots, slot))
    return { created: n(POOL_CREATED), dropped: n(POOL_DROPPED), idle: n(POOL_IDLE), inUse: n(POOL_IN_USE) }
  }

  // ---- written by the engine thread -------------------------------------------------------

  /** An entry begins: it may run until `deadlineMs` from now (guarded) and is counted from now (counted). */
  enter(deadlineMs: number | undefined, counted: boolean): void {
    const now = nowUs()
    if (counted) Atomics.store(this.slots, ENTRY_START, now)
    if (deadlineMs !== undefined) Atomics.store(this.slots, ENTRY_DEADLINE, now + BigInt(Math.ceil(deadlineMs * 1000)))
  }

  /** The entry ended; `computeUsedMs` includes it. */
  leave(computeUsedMs: number): void {
    Atomics.store(this.slots, ENTRY_DEADLINE, 0n)
    Atomics.store(this.slots, ENTRY_START, 0n)
    Atomics.store(this.slots, COMPUTE_USED, BigInt(Math.round(computeUsedMs * 1000)))
  }

  /** The program's wall deadline, `ms` from now. */
  setWallDeadline(ms: number): void {
    Atomics.store(this.slots, WALL_DEADLINE, nowUs() + BigInt(Math.ceil(ms * 1000)))
  }

  /** The wake counter; read it before looking for replies, then {@link EntryMonitor.waitForWake} with it. */
  wakeCount(): bigint {
    return Atomics.load(this.slots, WAKE)
  }

  /**
   * Blocks the engine thread until the wake counter differs from `seen` (at once when it already
   * does) or `timeoutMs` passed. Never call it on the main thread.
   */
  waitForWake(seen: bigint, timeoutMs: number): void {
    Atomics.wait(this.slots, WAKE, seen, Math.max(0, timeoutMs))
  }

  /** Records whether the engine thread holds a place in its pool's spin gate (`reply-spin.ts`). */
  setSpinning(on: boolean): void {
    Atomics.store(this.slots, SPINNING, on ? 1n : 0n)
  }

  /** Whether the engine thread last recorded that it holds a place in its pool's spin gate. */
  isSpinning(): boolean {
    return Atomics.load(this.slots, SPINNING) !== 0n
  }

  /** Whether the main thread asked for an abort. */
  abortRequested(): boolean {
    return Atomics.load(this.slots, ABORT) !== 0n
  }

  // ---- written by the main thread ---------------------------------------------------------

  /** Asks the engine to stop the run as `abort` at its next interrupt poll, or now when it waits for replies. */
  requestAbort(): void {
    Atomics.store(this.slots, ABORT, 1n)
    this.wakeEngine()
  }

  /** Wakes the engine thread if it waits for replies ({@link EntryMonitor.waitForWake}). */
  wakeEngine(): void {
    Atomics.add(this.slots, WAKE, 1n)
    Atomics.notify(this.slots, WAKE)
  }

  /** Reads the engine's state. */
  snapshot(): MonitorSnapshot {
    const ms = (slot: number): number | undefined => {
      const v = Atomics.load(this.slots, slot)
      return v === 0n ? undefined : Number(v) / 1000
    }
    return {
      entryDeadline: ms(ENTRY_DEADLINE),
      entryStart: ms(ENTRY_START),
      computeUsed: Number(Atomics.load(this.slots, COMPUTE_USED)) / 1000,
      wallDeadline: ms(WALL_DEADLINE),
    }
  }
}

/** Epoch milliseconds with sub-ms precision (same clock as {@link nowUs}). */
export function epochMs(): number {
  return performance.timeOrigin + performance.now()
}
