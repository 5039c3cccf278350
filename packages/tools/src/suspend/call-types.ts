/**
 * The shapes of a call that suspends from inside its body (package README, "Suspension and
 * resume", "Calls that suspend inside their body"): PTC's `run_code` parks sub-calls whose
 * approval was deferred and ends its call as pending; a resume runs the body again with its
 * journal and the decisions for its sub-calls.
 */
import type { JsonObject, JsonValue, ToolResult } from '../contracts'
import type { ResumeDecision } from './types'

/**
 * A sub-call waiting for a person's decision (a call a body issued through a sub-call runner,
 * id `<outer call id>:code:<k>`): what the approval request shows.
 */
export interface SubCallRequest {
  /** The sub-call's id; decisions for it are given under this id to `ctx.tools.resume`. */
  readonly callId: string
  /** The tool's registry name. */
  readonly toolName: string
  /** The frozen arguments exactly as the sub-call would run. */
  readonly arguments: Readonly<JsonObject>
  /** The `ask` reason or the deferral's reason, if any. */
  readonly reason?: string
  /**
   * Set when the sub-call is not deferred itself but held back by the barrier rules behind an
   * earlier pending sub-call (this id): it needs no decision and runs on resume once that one
   * is settled.
   */
  readonly blockedBy?: string
}

/** What a sub-call runner's `submitOutcome` resolves with: its result, or pending on a deferred approval. */
export type CallOutcome = { readonly status: 'complete'; readonly result: ToolResult } | { readonly status: 'pending'; readonly pending: SubCallRequest }

/** A resumed body's input (see {@link CallSuspension.resumed}). */
export interface ResumedCall {
  /** The journal the body stored when it suspended (plain JSON, as it gave it). */
  readonly journal: JsonValue
  /** The decisions for its sub-calls, by sub-call id (the caller's and earlier resumes'). */
  readonly decisions: Readonly<Record<string, ResumeDecision>>
  /** The sub-calls that were pending when it suspended, in the order it gave them. */
  readonly pending: readonly SubCallRequest[]
}

/**
 * `exec.suspension`: how the body of a call in a suspendable batch suspends and resumes. A
 * body that issues sub-calls creates its runner with `suspendable: true` (and, when
 * {@link resumed}, `decisions: resumed.decisions`); a sub-call whose approval is deferred then
 * comes back pending from `submitOutcome` instead of failing. The body ends its call with
 * {@link suspend}: the call settles as pending (`awaiting-approval`, its `subCalls` holding the
 * sub-calls' requests) and the batch as suspended; the state keeps `journal` opaquely. A resume
 * (`ctx.tools.resume`) runs the body again with {@link resumed} set.
 */
export interface CallSuspension {
  /** Set when this run resumes a call that suspended: its journal and the decisions for its sub-calls. */
  readonly resumed?: ResumedCall | undefined
  /**
   * Ends the body: the call is pending on `pending` (at least one) and `journal` (plain JSON,
   * at most what a state should carry) is stored with it. Throws the call's suspension (never
   * returns): let it propagate out of the body.
   *
   * @throws TypeError naming the field when `journal` is not lossless JSON or `pending` is not a
   *   non-empty array of {@link SubCallRequest}s.
   */
  suspend(input: { readonly journal: JsonValue; readonly pending: readonly SubCallRequest[] }): never
}
