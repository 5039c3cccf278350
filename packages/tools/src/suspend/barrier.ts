/**
 * The barrier rules over pending calls (internal), shared by a suspendable batch
 * (`BatchSuspendControl`) and a suspendable sub-call runner (`SubCallControl`): once a call is
 * pending (its approval deferred, or its body suspended), a later call in start order is held
 * back — pending as `blocked` — when it is exclusive, or when any pending call before it is.
 */
import type { CallState } from '../pipeline/types'

/** Pending calls seen so far, in start order, and the rule that holds later ones back. */
export class PendingBarrier {
  private anyPending = false
  private exclusivePending = false
  private firstPending: string | undefined

  /**
   * For a call with no outcome yet: `true` when it is pending — deferred already
   * (`state.suspended` set), or blocked by the rule (then `state.suspended` is set to `blocked`
   * by the first pending call). A pending call counts for the calls after it.
   */
  holds(state: CallState): boolean {
    if (state.suspended === undefined) {
      if (!this.exclusivePending && !(this.anyPending && !state.parallel)) return false
      state.suspended = { status: 'blocked', blockedBy: this.firstPending! }
    }
    this.note(state)
    return true
  }

  /** Counts `state`'s call as pending (a body that suspended after it started). */
  note(state: CallState): void {
    this.anyPending = true
    this.firstPending ??= state.call.callId
    if (!state.parallel) this.exclusivePending = true
  }
}
