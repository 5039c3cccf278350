/**
 * The resume ledger: what guarantees that a suspended batch's calls run at most once across
 * resumes (docs in the package README, "Suspension and resume").
 */

/**
 * Records which states were resumed and which calls were claimed. The default,
 * {@link MemoryResumeLedger}, protects one process; a deployment that resumes in several
 * processes needs a shared implementation (a PostgreSQL table, a Restate virtual object): both
 * methods are an "insert if absent" answering whether the entry is new. Either may be
 * asynchronous. An entry may be forgotten after `expiresAt` (ms since the epoch): an expired state
 * is refused before the ledger is asked.
 */
export interface ResumeLedger {
  /** Marks state `stateId` consumed: `true` the first time, `false` after (the resume is refused: `STATE_REPLAYED`). */
  consumeState(stateId: string, expiresAt: number): boolean | Promise<boolean>
  /**
   * Claims call `callId` of the suspension `suspensionId` (shared by every state a partial resume
   * derives) right before its body would start: `true` the first time; `false` after, and the
   * call then fails `ALREADY_EXECUTED` without running.
   */
  claimCall(suspensionId: string, callId: string, expiresAt: number): boolean | Promise<boolean>
}

/** The in-process {@link ResumeLedger}: two maps of keys to expiry, pruned of expired entries as they grow. */
export class MemoryResumeLedger implements ResumeLedger {
  private readonly states = new Map<string, number>()
  private readonly calls = new Map<string, number>()

  /** `now()` is the clock expiry is judged by (ms since the epoch; default `Date.now`). */
  constructor(private readonly now: () => number = Date.now) {}

  consumeState(stateId: string, expiresAt: number): boolean {
    return this.insert(this.states, stateId, expiresAt)
  }

  claimCall(suspensionId: string, callId: string, expiresAt: number): boolean {
    return this.insert(this.calls, `${suspensionId}\u0000${callId}`, expiresAt)
  }

  /** Entries held (states + calls), for tests and metrics. */
  get size(): number {
    return this.states.size + this.calls.size
  }

  private insert(map: Map<string, number>, key: string, expiresAt: number): boolean {
    if (map.has(key)) return false
    if (map.size >= 1024 && (map.size & 1023) === 0) this.prune(map)
    map.set(key, expiresAt)
    return true
  }

  private prune(map: Map<string, number>): void {
    const now = this.now()
    for (const [key, expiresAt] of map) if (expiresAt < now) map.delete(key)
  }
}
