/**
 * A sub-call runner's side of suspension (internal; `RunnerOptions.suspendable` and
 * `RunnerOptions.decisions`): whether a deferred approval leaves its call pending, the decisions
 * of a resumed body, and the ledger claims of the sub-calls they approve.
 */
import type { RunnerOptions } from '../executor'
import { PendingBarrier } from './barrier'
import { CallSuspensionLink } from './call-link'
import type { ResumeDecision } from './types'
import type { CallState } from '../pipeline/types'

/** The sub-call suspension of one runner (`RunContext.subCalls`). */
export class SubCallControl {
  readonly suspendable: boolean
  private readonly decisions: Readonly<Record<string, ResumeDecision>> | undefined
  /** The parent call's `exec.suspension`, which claims sub-calls in the batch's resume ledger. */
  private readonly link: CallSuspensionLink | undefined
  private readonly claimed = new Set<string>()
  /** The barrier rules over the runner's pending calls (as a batch's, `BatchSuspendControl.holds`). */
  private readonly barrier = new PendingBarrier()

  constructor(options: RunnerOptions) {
    this.suspendable = options.suspendable === true
    this.decisions = options.decisions
    const link = options.parent?.suspension
    this.link = link instanceof CallSuspensionLink ? link : undefined
  }

  /**
   * The barrier rules, in start order, for a call of `submitOutcome`: `true` when it is pending —
   * deferred (recorded here), or blocked because an earlier call is pending and either this one
   * is exclusive or an earlier pending one is (marks `state.suspended` blocked).
   */
  holds(state: CallState): boolean {
    return this.barrier.holds(state)
  }

  /** The decision given for `callId`, if any. */
  decisionFor(callId: string): ResumeDecision | undefined {
    const decisions = this.decisions
    return decisions !== undefined && Object.hasOwn(decisions, callId) ? decisions[callId] : undefined
  }

  /** Whether `callId` was decided and is not claimed yet (its body is claimed before it runs). */
  needsClaim(callId: string): boolean {
    return this.link !== undefined && this.decisionFor(callId) !== undefined && !this.claimed.has(callId)
  }

  /** Claims `callId` in the batch's resume ledger; asked once per call. */
  claim(callId: string): boolean | Promise<boolean> {
    this.claimed.add(callId)
    return this.link!.claimSubCall(callId)
  }
}
