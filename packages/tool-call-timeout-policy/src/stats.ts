/**
 * Process-wide counters of the timeout policy (docs/design.md, "Timeout policy": the abandoned body is
 * counted and reported). Every mount of the plugin adds to the same counters; the
 * `tools/abandoned` event carries the scope for per-scope accounting.
 */

/** A frozen copy of the counters at one moment. */
export interface TimeoutStatsSnapshot {
  /**
   * Attempts this policy ended with `TOOL_TIMEOUT` (abandoned ones included). One per call,
   * except under a retry wrapper registered outside the policy, where each timed-out attempt counts.
   */
  readonly timedOut: number
  /** Bodies the hard limit abandoned (after a deadline or a caller abort). */
  readonly abandoned: number
  /** Abandoned bodies that have not settled yet: work still running with nobody waiting for it. */
  readonly abandonedRunning: number
}

/** Live, read-only counters; read a field for its current value. */
export interface TimeoutStats extends TimeoutStatsSnapshot {
  /** A frozen copy of the current values (take two and subtract for a delta). */
  snapshot(): TimeoutStatsSnapshot
}

const counters = { timedOut: 0, abandoned: 0, abandonedRunning: 0 }

/**
 * The policy's counters, shared by every mount in the process. Read-only: only the policy's
 * wrapper changes them.
 *
 * @example
 * const before = timeoutStats.snapshot()
 * // … run calls …
 * const abandonedNow = timeoutStats.abandoned - before.abandoned
 */
export const timeoutStats: TimeoutStats = Object.freeze({
  get timedOut() {
    return counters.timedOut
  },
  get abandoned() {
    return counters.abandoned
  },
  get abandonedRunning() {
    return counters.abandonedRunning
  },
  snapshot(): TimeoutStatsSnapshot {
    return Object.freeze({ ...counters })
  },
})

/** @internal A call settled as `TOOL_TIMEOUT`. */
export function countTimeout(): void {
  counters.timedOut++
}

/** @internal A body was abandoned; returns the callback to run when it finally settles. */
export function countAbandoned(): () => void {
  counters.abandoned++
  counters.abandonedRunning++
  let settled = false
  return () => {
    if (settled) return
    settled = true
    counters.abandonedRunning--
  }
}
