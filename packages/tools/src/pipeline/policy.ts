/**
 * Stage 2 — policy (internal): the `tools/pre-execute` waterfall, its decision (allow, deny, or
 * ask the approval service), then the monotonic guards.
 */
import type { ApprovalDecision, PolicyDecision } from '../contracts'
import { describeThrown, messages } from '../errors'
import { isThenable, NO_SECOND, runOnceStage } from '../chains'
import { ABORTED_BEFORE, describeValue, policyError, policyOutcome } from './drafts'
import { shownName } from './shown-name'
import type { CallState, RunContext } from './types'
import { durableCallOf } from './durable'

const ALLOW: PolicyDecision = Object.freeze({ type: 'allow' })
/** The shared resolved promise of the default decision, handed out by the innermost `next()`. */
const ALLOW_PROMISE: Promise<PolicyDecision> = Promise.resolve(ALLOW)

function isDecision(value: unknown): value is PolicyDecision {
  if (value === null || typeof value !== 'object') return false
  const d = value as { type?: unknown; reason?: unknown }
  return d.type === 'allow' || (d.type === 'deny' && typeof d.reason === 'string') || (d.type === 'ask' && (d.reason === undefined || typeof d.reason === 'string'))
}

/** A malformed decision for its message: a `deny` or `ask` whose reason is wrong says so, rather than reading as a valid type. */
function describeDecision(value: unknown): string {
  const type = value !== null && typeof value === 'object' ? (value as { type?: unknown }).type : undefined
  if (type === 'deny') return '{ type: "deny" } without a string reason'
  if (type === 'ask') return '{ type: "ask" } with a reason that is not a string'
  return describeValue(value)
}

/**
 * Stage 2 — policy: the `tools/pre-execute` waterfall (allow / deny / ask → approval), then the
 * monotonic guards. Sets `state.draft` when the call must not dispatch. Never throws or rejects.
 *
 * Returns `undefined` when the stage finished synchronously (no listener, or every listener
 * answered without waiting), else a promise of its end.
 */
export function policy(state: CallState, run: RunContext): void | Promise<void> {
  state.reachedPolicy = true
  if (run.hooks.pre.length === 0) {
    // The default decision, allow, without checking it: what `decide` does for it.
    if (run.abort.isAborted) state.draft = ABORTED_BEFORE
    else if (run.hooks.guards.length > 0) guard(state, run)
    return
  }
  return runOnceStage(run.hooks.pre, state.exec!, NO_SECOND, ALLOW, ALLOW_PROMISE, state, run, decide, preExecuteFailed)
}

/** A `tools/pre-execute` listener threw or rejected: the call fails closed. */
function preExecuteFailed(state: CallState, run: RunContext, error: unknown): void {
  state.draft = policyError('TOOL_DENIED', shownName(state.exec!.name, run), 'tools/pre-execute', describeThrown(error))
}

/** The rest of stage 2 once the waterfall answered `raw`. */
function decide(state: CallState, run: RunContext, raw: unknown): void | Promise<void> {
  const name = state.exec!.name
  if (!isDecision(raw)) {
    state.draft = policyError('TOOL_DENIED', shownName(name, run), 'tools/pre-execute', `a tools/pre-execute listener returned ${describeDecision(raw)} instead of allow, deny or ask`)
    return
  }
  const decision = raw
  if (decision.type === 'deny') {
    state.draft = policyOutcome(name, messages.denied(shownName(name, run), decision.reason), 'PolicyDenied', undefined, decision.info)
    return
  }
  if (run.abort.isAborted) {
    state.draft = ABORTED_BEFORE
    return
  }
  if (decision.type === 'ask') return ask(state, run, decision.reason)
  // Without guards there is nothing to run and the signal was just read.
  if (run.hooks.guards.length > 0) guard(state, run)
}

/** What is wrong with an approval service's answer (`undefined`: a well-formed `approve` or `reject`). */
function approvalProblem(answer: unknown): string | undefined {
  if (answer === null || typeof answer !== 'object') return describeValue(answer)
  const { type, reason } = answer as { type?: unknown; reason?: unknown }
  if (type === 'approve') return undefined
  if (type === 'reject' || type === 'defer') return reason === undefined || typeof reason === 'string' ? undefined : `{ type: "${type}" } with a reason that is not a string`
  return describeValue(answer)
}

const APPROVE = Object.freeze({ type: 'approve' as const })

/** An `ask` decision: the approval service answers, then the guards run. */
async function ask(state: CallState, run: RunContext, reason: string | undefined): Promise<void> {
  const exec = state.exec!
  const name = exec.name
  const approval = run.hooks.approval
  const suspend = run.suspend
  // A suspendable batch: an answer given before (in the state or to `resume`) answers the ask.
  // A resumed body's sub-call runner: the decision given for the sub-call answers it.
  const known = suspend === undefined ? run.subCalls?.decisionFor(exec.callId) : suspend.decisionFor(exec.callId)
  if (known !== undefined || (approval === undefined && suspend?.resume !== undefined)) return answered(state, run, known ?? DEFER, reason)
  const durable = run.durable
  if (approval === undefined && durable?.awaitDecision === undefined) {
    state.draft = policyOutcome(name, messages.askWithoutApproval(shownName(name, run), reason), 'PolicyDenied', reason === undefined ? undefined : 'no approval service is available')
    return
  }
  let answer: unknown
  try {
    // In a durable batch whose engine can wait, the decision comes from outside through the engine.
    answer =
      durable?.awaitDecision !== undefined
        ? await durable.awaitDecision(durableCallOf(state, run).key, { callId: exec.callId, toolName: name, arguments: exec.arguments, ...(reason === undefined ? {} : { reason }), signal: run.signal })
        : await approval!.request(reason === undefined ? { exec, signal: run.signal } : { exec, reason, signal: run.signal })
  } catch (error) {
    if (run.abort.isAborted) state.draft = ABORTED_BEFORE
    else state.draft = policyError('TOOL_DENIED', shownName(name, run), 'approval', describeThrown(error))
    return
  }
  answered(state, run, answer, reason)
}

/** The deferral a resumed batch gives a call nobody answered yet (it stays pending). */
const DEFER: ApprovalDecision = Object.freeze({ type: 'defer' })

/** The approval service's (or a recorded) `answer` to the `ask` of `state`'s call, then the guards. */
function answered(state: CallState, run: RunContext, answer: unknown, reason: string | undefined): void {
  const name = state.exec!.name
  const problem = approvalProblem(answer)
  // A malformed answer fails closed, like a throwing service (so an abort that came first stays
  // ABORTED_BEFORE_DISPATCH); it is no rejection the user gave.
  if (problem !== undefined) {
    state.draft = run.abort.isAborted ? ABORTED_BEFORE : policyError('TOOL_DENIED', shownName(name, run), 'approval', `the approval service answered ${problem} instead of { type: "approve" }, { type: "reject", reason?: string } or { type: "defer", reason?: string }`)
    return
  }
  // A rejection is a denial and stays more specific than a concurrent abort.
  if ((answer as ApprovalDecision).type === 'reject') {
    const rejection = (answer as { reason?: string }).reason
    state.draft = policyOutcome(name, messages.approvalRejected(shownName(name, run), rejection), 'ApprovalRejected', rejection)
    return
  }
  if (run.abort.isAborted) {
    state.draft = ABORTED_BEFORE
    return
  }
  if ((answer as ApprovalDecision).type === 'defer') {
    const deferral = (answer as { reason?: string }).reason ?? reason
    if (run.suspend === undefined && run.subCalls?.suspendable !== true) {
      state.draft = deferredFailure(state, run, deferral)
      return
    }
    // Pending: no guard runs now (they run when it is answered, on resume).
    state.suspended = deferral === undefined ? { status: 'awaiting-approval' } : { status: 'awaiting-approval', reason: deferral }
    return
  }
  run.suspend?.recordDecision(state.exec!.callId, APPROVE)
  guard(state, run)
}

/** The failure of a call whose approval was deferred where it cannot stay pending: `TOOL_DENIED` (`ApprovalDeferred`). */
export function deferredFailure(state: CallState, run: RunContext, reason: string | undefined): NonNullable<CallState['draft']> {
  const name = state.exec!.name
  return policyOutcome(name, messages.approvalDeferred(shownName(name, run)), 'ApprovalDeferred', reason)
}

/** The monotonic guards (synchronous), then a last look at the caller's signal. */
function guard(state: CallState, run: RunContext): void {
  const exec = state.exec!
  const name = exec.name
  for (const guard of run.hooks.guards) {
    let verdict: unknown
    try {
      verdict = guard(exec)
    } catch (error) {
      state.draft = policyError('TOOL_DENIED', shownName(name, run), 'guard', describeThrown(error))
      return
    }
    if (verdict === undefined) continue
    if (typeof verdict === 'string') {
      state.draft = policyOutcome(name, messages.denied(shownName(name, run), verdict), 'GuardDenied')
      return
    }
    // Guards are synchronous: anything else (a promise from an async guard) fails closed.
    if (isThenable(verdict)) verdict.then(undefined, (error: unknown) => run.host.report('guard', error))
    state.draft = policyError('TOOL_DENIED', shownName(name, run), 'guard', `a guard returned ${isThenable(verdict) ? 'a promise (guards must be synchronous)' : describeValue(verdict)} instead of a string or undefined`)
    return
  }
  // A guard may have aborted the caller; with none, the signal was read just before (decide).
  if (run.hooks.guards.length > 0 && run.abort.isAborted) state.draft = ABORTED_BEFORE
}
