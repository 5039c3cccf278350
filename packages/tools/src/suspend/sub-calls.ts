/**
 * A sub-call runner's side of suspension (internal; `RunnerOptions.suspendable` and
 * `RunnerOptions.decisions`): whether a deferred approval leaves its call pending, the decisions
 * of a resumed body, and the ledger claims of the sub-calls they approve.
 */
import type { RunnerOptions } from '../executor'
import { CallSuspensionLink } from './call-link'
import type { ResumeDecision } from './types'

/** The sub-call suspension of one runner (`RunContext.subCalls`). */
export class SubCallControl {
  readonly suspendable: boolean
  private readonly decisions: Readonly<Record<string, ResumeDecision>> | undefined
  /** The parent call's `exec.suspension`, which claims sub-calls in the batch's resume ledger. */
  private readonly link: CallSuspensionLink | undefined
  private readonly claimed = new Set<string>()

  constructor(options: RunnerOptions) {
    this.suspendable = options.suspendable === true
    this.decisions = options.decisions
    const link = options.parent?.suspension
    this.link = link instanceof CallSuspensionLink ? link : undefined
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
