/**
 * The PTC executor over the registry's suspension API (package README, "Suspension"): a
 * `run_code` call of a batch run with `ctx.tools.executeSuspendable` (or resumed with
 * `ctx.tools.resume`) gets `exec.suspension`; its sub-call runner is made `suspendable` (a
 * deferred approval parks the sub-call instead of failing it) and, on a resume, answers the
 * pending sub-calls with the caller's decisions (each claimed in the resume ledger before it
 * runs). A program that suspends ends the `run_code` call as pending with its sub-calls'
 * approval requests; its {@link PtcRunState} is the journal the signed batch state carries.
 */
import type { CallRunner, JsonValue, RawToolCall, SubCallRequest, ToolExecution } from '@deepseek-ai/dsh-tools'
import type { PtcSuspension } from './executor'
import type { PtcRunState, SubCallDecision } from './replay'

/**
 * The {@link PtcSuspension} over the registry's `exec.suspension` (the one the executor uses
 * when its config has no `suspension`). For a `run_code` call without `exec.suspension` (a
 * plain `ctx.tools.execute` batch) it changes nothing: a deferred sub-call fails closed
 * (`TOOL_DENIED`, `ApprovalDeferred`) and the program sees that failure.
 */
export function coreSuspension(): PtcSuspension {
  return CORE_SUSPENSION
}

const CORE_SUSPENSION: PtcSuspension = Object.freeze({
  runnerOptions(exec: ToolExecution, decisions: ReadonlyMap<string, SubCallDecision>) {
    if (exec.suspension === undefined) return {}
    return decisions.size === 0 ? { suspendable: true } : { suspendable: true, decisions: Object.fromEntries(decisions) }
  },
  async submit(runner: CallRunner, call: RawToolCall) {
    if (runner.submitOutcome === undefined) return runner.submit(call)
    const outcome = await runner.submitOutcome(call)
    if (outcome.status === 'complete') return outcome.result
    return outcome.pending.blockedBy === undefined ? { deferred: outcome.pending } : { deferred: outcome.pending, blocked: true }
  },
  resumeOf(exec: ToolExecution) {
    const resumed = exec.suspension?.resumed
    if (resumed === undefined) return undefined
    return { state: resumed.journal, decisions: new Map(Object.entries(resumed.decisions)) }
  },
  suspend(state: PtcRunState, exec: ToolExecution, deferred: readonly unknown[]): never {
    const suspension = exec.suspension
    if (suspension === undefined) throw new Error(`run_code ${exec.callId} suspended outside a suspendable batch`)
    // Each pending sub-call's request: deferred in this run, or still pending from the state this run resumed.
    const known = new Map<string, SubCallRequest>()
    for (const request of suspension.resumed?.pending ?? []) known.set(request.callId, request)
    for (const request of deferred as readonly SubCallRequest[]) known.set(request.callId, request)
    const pending = state.pending.map((p): SubCallRequest => known.get(p.callId) ?? { callId: p.callId, toolName: p.name, arguments: p.arguments as SubCallRequest['arguments'] })
    return suspension.suspend({ journal: state as unknown as JsonValue, pending })
  },
})
