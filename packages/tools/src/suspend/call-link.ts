/**
 * `exec.suspension` of one call of a suspendable batch (internal): how its body suspends (the
 * call becomes pending with its sub-calls' requests and its journal) and what a resumed run
 * hands it; and the resume-ledger claims of its sub-calls.
 */
import type { JsonObject, JsonValue } from '../contracts'
import { snapshotJson } from '../json'
import type { CallState } from '../pipeline/types'
import type { CallSuspension, ResumedCall, SubCallRequest } from './call-types'

/** What a suspended body left with its call (`CallSuspension.suspend`), kept for the state. */
export interface BodySuspension {
  readonly journal: JsonValue
  readonly subCalls: readonly SubCallRequest[]
}

/** What a call's link needs from its batch's control. */
export interface LinkHost {
  /** Records that the body of `state`'s call suspended (the barrier rules count it pending). */
  bodySuspended(state: CallState, body: BodySuspension): void
  /** Claims sub-call `callId` in the resume ledger (`true`: first claim). */
  claimSubCall(callId: string): boolean | Promise<boolean>
}

/** The value a suspending body throws: the pipeline settles its call as pending, never as this error. */
export class CallSuspended extends Error {
  override readonly name = 'CallSuspended'
  constructor(callId: string, count: number) {
    super(`call ${callId} suspended with ${count} sub-call${count === 1 ? '' : 's'} awaiting approval`)
  }
}

/** `exec.suspension` (see {@link CallSuspension}); sub-call runners created with it as `parent` claim through it. */
export class CallSuspensionLink implements CallSuspension {
  constructor(
    private readonly host: LinkHost,
    private readonly state: CallState,
    readonly resumed: ResumedCall | undefined,
  ) {}

  suspend(input: { readonly journal: JsonValue; readonly pending: readonly SubCallRequest[] }): never {
    const name = this.state.call.name
    if (input === null || typeof input !== 'object') throw new TypeError(`exec.suspension.suspend() of "${name}" takes { journal, pending }`)
    const journal = snapshotJson(input.journal)
    if (!journal.ok) throw new TypeError(`exec.suspension.suspend() of "${name}": /journal must be lossless JSON (${journal.problem.pointer || '(root)'}: ${journal.problem.message})`)
    const pending = input.pending
    if (!Array.isArray(pending) || pending.length === 0) throw new TypeError(`exec.suspension.suspend() of "${name}": /pending must be a non-empty array of { callId, toolName, arguments, reason? }`)
    const subCalls = pending.map((p: unknown, i) => subCallRequest(p, `/pending/${i}`, name))
    this.host.bodySuspended(this.state, { journal: journal.value, subCalls })
    throw new CallSuspended(this.state.call.callId, subCalls.length)
  }

  /** Claims sub-call `callId` of this call in the resume ledger (see `RunnerOptions.decisions`). */
  claimSubCall(callId: string): boolean | Promise<boolean> {
    return this.host.claimSubCall(callId)
  }
}

/** A checked, detached copy of one sub-call request. */
function subCallRequest(value: unknown, at: string, name: string): SubCallRequest {
  const fail = (field: string, expected: string): never => {
    throw new TypeError(`exec.suspension.suspend() of "${name}": ${at}${field} must be ${expected}`)
  }
  if (value === null || typeof value !== 'object') fail('', 'an object { callId, toolName, arguments, reason? }')
  const r = value as Record<string, unknown>
  if (typeof r.callId !== 'string' || r.callId === '') fail('/callId', 'a non-empty string')
  if (typeof r.toolName !== 'string') fail('/toolName', 'a string')
  const args = snapshotJson(r.arguments)
  if (!args.ok || args.value === null || typeof args.value !== 'object' || Array.isArray(args.value)) fail('/arguments', 'a JSON object')
  if (r.reason !== undefined && typeof r.reason !== 'string') fail('/reason', 'a string')
  if (r.blockedBy !== undefined && typeof r.blockedBy !== 'string') fail('/blockedBy', 'a string')
  return Object.freeze({
    callId: r.callId as string,
    toolName: r.toolName as string,
    arguments: (args as { value: JsonObject }).value,
    ...(r.reason === undefined ? {} : { reason: r.reason as string }),
    ...(r.blockedBy === undefined ? {} : { blockedBy: r.blockedBy as string }),
  })
}
