/**
 * A run's two time budgets (`run.ts`): compute time, the ms spent inside counted entries (program
 * code and the jobs that follow each batch of replies), and wall time, from the program's start
 * to its deadline. The run asks it what is left and which budget a stop ran out of.
 */
import type { RunError } from '../types'
import { computeTimeoutError, wallTimeoutError } from './failures'

/** The compute and wall budgets of one run, in ms (`performance.now()` time). */
export class TimeBudget {
  /** Compute time spent in finished entries (ms). */
  computeUsed = 0
  /** When the counted entry running now began; `undefined` outside one. */
  entryStart: number | undefined = undefined
  /** When the wall budget runs out; set again by {@link TimeBudget.startWall} when the program starts. */
  wallDeadline: number

  constructor(
    readonly computeMs: number,
    readonly wallMs: number,
  ) {
    this.wallDeadline = performance.now() + wallMs
  }

  /** The program starts now: the wall budget counts from here (building the context did not count). */
  startWall(): void {
    this.wallDeadline = performance.now() + this.wallMs
  }

  /** A counted entry begins. */
  beginEntry(): void {
    this.entryStart = performance.now()
  }

  /** The entry ended: its time, if it was counted, is added to {@link TimeBudget.computeUsed}. */
  endEntry(): void {
    if (this.entryStart !== undefined) this.computeUsed += performance.now() - this.entryStart
    this.entryStart = undefined
  }

  /** What is left of the tighter budget (ms, at least 1). */
  remainingMs(): number {
    return Math.max(1, Math.min(this.computeMs - this.computeUsed, this.wallDeadline - performance.now()))
  }

  /** The failure of a budget exhausted at `now` (the interrupt handler's check), or `undefined`. */
  exceeded(now: number, running: () => number): RunError | undefined {
    if (this.entryStart !== undefined && this.computeUsed + (now - this.entryStart) > this.computeMs) return computeTimeoutError(this.computeMs)
    if (now >= this.wallDeadline) return wallTimeoutError(this.wallMs, running())
    return undefined
  }

  /** The timeout of a watchdog stop: whichever budget the stopped entry ran out of. */
  stopped(running: () => number): RunError {
    const now = performance.now()
    const compute = this.computeUsed + (this.entryStart === undefined ? 0 : now - this.entryStart)
    return compute >= this.computeMs || now < this.wallDeadline ? computeTimeoutError(this.computeMs) : wallTimeoutError(this.wallMs, running())
  }
}
