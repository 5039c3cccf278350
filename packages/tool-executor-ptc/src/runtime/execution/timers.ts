/**
 * The host side of a run's timers (`setTimeout`, `setInterval`, `setImmediate` in the sandbox;
 * the guest side is `prelude-timers.ts`): the due time of every armed timer, in ms of
 * `performance.now()`. The run (`run.ts`) asks it for the earliest due timer to wake for, counts
 * armed timers in its stall check, and drops them all when it ends.
 */

/** An armed timer: its guest id and when it is due. */
interface Armed {
  readonly id: number
  readonly due: number
  /** Arming order: timers due at the same time fire in the order they were armed. */
  readonly seq: number
}

/** The armed timers of one run. */
export class RunTimers {
  private readonly armed = new Map<number, Armed>()
  private seq = 0

  /** Arms (or re-arms) timer `id` to be due `delayMs` from `now`. */
  set(id: number, delayMs: number, now: number): void {
    this.armed.set(id, { id, due: now + delayMs, seq: this.seq++ })
  }

  /** Disarms timer `id` (nothing when it is not armed). */
  clear(id: number): void {
    this.armed.delete(id)
  }

  /** How many timers are armed. */
  get size(): number {
    return this.armed.size
  }

  /** The timer that fires next (earliest due, then earliest armed), or `undefined`. */
  next(): Armed | undefined {
    let best: Armed | undefined
    for (const timer of this.armed.values()) {
      if (best === undefined || timer.due < best.due || (timer.due === best.due && timer.seq < best.seq)) best = timer
    }
    return best
  }

  /** Takes the next timer when it is due at `now` (it is disarmed; an interval arms itself again when it fires), else `undefined`. */
  takeDue(now: number): number | undefined {
    const next = this.next()
    if (next === undefined || next.due > now) return undefined
    this.armed.delete(next.id)
    return next.id
  }

  /** Drops every timer (the run ended). */
  clearAll(): void {
    this.armed.clear()
  }
}
