/**
 * One suspendable (or resumed) batch's suspension bookkeeping (internal, handed to executors as
 * an opaque `ExecutorBatch.suspend`): the decisions known, which calls are pending and why (the
 * barrier rules), the restored results and identities of a resumed state, the ledger claims, and
 * the outcome — complete results or a new signed state.
 */
import type { JsonObject, JsonValue, RawToolCall, ToolResult } from '../contracts'
import type { CallState, Draft, RunContext } from '../pipeline/types'
import { ABORTED_BEFORE, fail } from '../pipeline/drafts'
import { createState, lookUp } from '../pipeline/prepare'
import { Execution } from '../pipeline/execution'
import { shownName } from '../pipeline/shown-name'
import { quoteText } from '../errors'
import { toolHash } from './identity'
import type { Suspension } from './suspension'
import type { BatchOutcome, PendingCall, ResumeDecision, StateCall, StatePayload, StoredResult } from './types'
import { PendingBarrier } from './barrier'
import { CallSuspensionLink, type BodySuspension, type LinkHost } from './call-link'
import type { ResumedCall } from './call-types'

/** A resumed state and the caller's decisions (checked). */
export interface ResumeInput {
  readonly payload: StatePayload
  readonly decisions: Readonly<Record<string, ResumeDecision>>
}

/**
 * Opaque to executors: pass `ExecutorBatch.suspend` through to `pipeline.runBatch` (spreading the
 * batch keeps it) and the batch can suspend or resume. Created by the registry.
 */
export class BatchSuspendControl implements LinkHost {
  /** The approval answers known so far (the state's, the caller's, and this run's). */
  private readonly decisions: Record<string, ResumeDecision>
  private readonly calls: RawToolCall[] = []
  private readonly pending = new Map<number, StateCall & { readonly status: 'awaiting-approval' | 'blocked' }>()
  private readonly pendingCalls: PendingCall[] = []
  /** The barrier rules over the batch's pending calls. */
  private readonly barrier = new PendingBarrier()
  private readonly claimed = new Set<number>()
  /** `exec.suspension` per call index (made when first read). */
  private readonly links = new Map<number, CallSuspensionLink>()
  /** What the bodies that suspended left, per call index. */
  private readonly bodies = new Map<number, BodySuspension>()

  constructor(
    readonly suspension: Suspension,
    private readonly scope: string,
    private readonly batchId: string | undefined,
    readonly resume: ResumeInput | undefined,
  ) {
    this.decisions = { ...resume?.payload.decisions, ...resume?.decisions }
  }

  /** The calls a resume re-submits: each state call as the model emitted it. */
  resumedCalls(): RawToolCall[] {
    return this.resume!.payload.calls.map((c) => ({ callId: c.callId, name: c.name, arguments: c.arguments }))
  }

  /** The state's entry for call `index` of a resume. */
  stateCall(index: number): StateCall | undefined {
    return this.resume?.payload.calls[index]
  }

  /** The answer known for `callId`'s approval, if any. */
  decisionFor(callId: string): ResumeDecision | undefined {
    return Object.hasOwn(this.decisions, callId) ? this.decisions[callId] : undefined
  }

  /** Records an approval answer given in this run (kept in the state while the call is pending). */
  recordDecision(callId: string, decision: ResumeDecision): void {
    this.decisions[callId] = decision
  }

  /** Records the call at `index` as submitted (its id, name and arguments go into the state). */
  noteCall(index: number, call: RawToolCall): void {
    this.calls[index] = call
  }

  /**
   * The barrier rules, in start order, for a call with no outcome yet: `true` when it is pending
   * — deferred, or blocked because an earlier call is pending and either this one is exclusive
   * or an earlier pending one is. Marks `state.suspended` and records it.
   */
  holds(state: CallState): boolean {
    return this.barrier.holds(state)
  }

  /**
   * `exec.suspension` of the call of `state` (made on first read): with {@link CallSuspensionLink.resumed}
   * set when the resumed state holds a journal for it.
   */
  callSuspension(state: CallState): CallSuspensionLink {
    let link = this.links.get(state.index)
    if (link === undefined) {
      link = new CallSuspensionLink(this, state, this.resumedBody(state.index))
      this.links.set(state.index, link)
    }
    return link
  }

  /** The resume input of a call whose body suspended before, `undefined` otherwise. */
  private resumedBody(index: number): ResumedCall | undefined {
    const entry = this.resume?.payload.calls[index]
    if (entry === undefined || entry.status === 'completed' || entry.journal === undefined) return undefined
    const prefix = `${entry.callId}:code:`
    const decisions: Record<string, ResumeDecision> = {}
    for (const [id, decision] of Object.entries(this.decisions)) if (id.startsWith(prefix)) decisions[id] = decision
    const copy = JSON.parse(JSON.stringify({ journal: entry.journal, pending: entry.subCalls ?? [] })) as Pick<ResumedCall, 'journal' | 'pending'>
    return deepFreeze({ journal: copy.journal, decisions, pending: copy.pending })
  }

  /** The body of `state`'s call suspended (`exec.suspension.suspend`): the call is pending and counts for the barrier rules. */
  bodySuspended(state: CallState, body: BodySuspension): void {
    state.suspended = { status: 'awaiting-approval' }
    this.bodies.set(state.index, body)
    this.barrier.note(state)
  }

  /** Claims a sub-call of a resumed body in the ledger; `true` in a first run (nothing was resumed). */
  claimSubCall(callId: string): boolean | Promise<boolean> {
    const payload = this.resume?.payload
    return payload === undefined ? true : this.suspension.ledger.claimCall(payload.suspensionId, callId, payload.expiresAt)
  }

  /** Whether the call at `index` is a pending call of the resumed state not claimed yet (its body is claimed in the ledger before it runs). */
  needsClaim(index: number): boolean {
    const entry = this.resume?.payload.calls[index]
    return entry !== undefined && entry.status !== 'completed' && !this.claimed.has(index)
  }

  /** Claims the call at `index` in the ledger (see `ResumeLedger.claimCall`); asked once per call. */
  claim(index: number, callId: string): boolean | Promise<boolean> {
    const payload = this.resume!.payload
    this.claimed.add(index)
    // A body that suspended runs again on each resume of the chain (its sub-calls are claimed one
    // by one): its claim is per state, which the ledger consumes once.
    const key = (payload.calls[index] as { journal?: unknown }).journal === undefined ? callId : `${callId}#${payload.stateId}`
    return this.suspension.ledger.claimCall(payload.suspensionId, key, payload.expiresAt)
  }

  /**
   * At completion: the result of a call the resumed state holds as completed (restored, not
   * observed again); `undefined` for a pending call (recorded for the state); `false` for any
   * other call (it completes as usual).
   */
  settled(state: CallState): ToolResult | undefined | false {
    if (state.draft === RESTORED) {
      const entry = this.resume!.payload.calls[state.index] as Extract<StateCall, { status: 'completed' }>
      return restoreResult(entry.callId, entry.result)
    }
    if (state.suspended === undefined) return false
    this.addPending(state)
    return undefined
  }

  /** A pending call reached completion: recorded for the outcome (its result slot stays empty). */
  addPending(state: CallState): void {
    const mark = state.suspended!
    const exec = state.exec!
    const definition = state.tool!.definition
    const call = state.call
    const body = this.bodies.get(state.index)
    const entry = {
      callId: call.callId,
      name: call.name,
      arguments: jsonOrText(call.arguments),
      status: mark.status,
      frozenArguments: exec.arguments as JsonObject,
      parallel: state.parallel,
      ...(state.repairs === undefined ? {} : { repairs: state.repairs }),
      ...(mark.reason === undefined ? {} : { reason: mark.reason }),
      tool: { name: definition.name, hash: toolHash(definition) },
      ...(body === undefined ? {} : { journal: body.journal, subCalls: body.subCalls }),
    }
    this.pending.set(state.index, entry)
    this.pendingCalls.push(
      Object.freeze({
        callId: call.callId,
        index: state.index,
        toolName: definition.name,
        arguments: exec.arguments,
        status: mark.status,
        ...(mark.reason === undefined ? {} : { reason: mark.reason }),
        ...(mark.blockedBy === undefined ? {} : { blockedBy: mark.blockedBy }),
        ...(body === undefined ? {} : { subCalls: body.subCalls }),
      }),
    )
  }

  /** The batch's outcome from the executor's results (pending slots are `undefined`). */
  outcome(results: readonly (ToolResult | undefined)[]): BatchOutcome {
    if (this.pending.size === 0) return Object.freeze({ status: 'complete', results: Object.isFrozen(results) ? (results as readonly ToolResult[]) : Object.freeze([...(results as readonly ToolResult[])]) })
    const suspension = this.suspension
    const now = suspension.now()
    const decisions: Record<string, ResumeDecision> = {}
    const calls: StateCall[] = results.map((result, index) => {
      const pending = this.pending.get(index)
      if (pending !== undefined) {
        const decision = this.decisionFor(pending.callId)
        if (decision !== undefined) decisions[pending.callId] = decision
        return pending
      }
      const call = this.calls[index] ?? this.resume?.payload.calls[index]
      return { callId: result!.callId, name: call?.name ?? '', arguments: jsonOrText(call?.arguments ?? ''), status: 'completed', result: storeResult(result!) }
    })
    const payload: StatePayload = {
      suspensionId: this.resume?.payload.suspensionId ?? suspension.newId(),
      stateId: suspension.newId(),
      scope: this.scope,
      ...(this.batchId === undefined ? {} : { batchId: this.batchId }),
      createdAt: now,
      expiresAt: this.resume?.payload.expiresAt ?? now + suspension.ttlMs,
      calls,
      decisions,
    }
    // The state is JSON: a round trip drops what JSON cannot carry and detaches it from live objects.
    const state = suspension.sign(JSON.parse(JSON.stringify(payload)) as StatePayload)
    return Object.freeze({ status: 'suspended', results: Object.freeze([...results]), pending: Object.freeze([...this.pendingCalls]), state })
  }
}

/** Arguments as the state keeps them: JSON as it is, anything else (a malformed entry's) as its type. */
function jsonOrText(value: unknown): string | JsonValue {
  try {
    const text = JSON.stringify(value)
    return text === undefined ? '' : (JSON.parse(text) as JsonValue)
  } catch {
    return ''
  }
}

/** A result as the state stores it (everything but the call id). */
function storeResult(result: ToolResult): StoredResult {
  return {
    isError: result.isError,
    content: result.content,
    ...(result.isError ? { error: result.error } : { value: result.value }),
    ...(result.contexts === undefined ? {} : { contexts: result.contexts }),
    ...(result.meta === undefined ? {} : { meta: result.meta }),
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v)
    Object.freeze(value)
  }
  return value
}

/** The frozen result a resume returns for a call the state holds as completed: shaped as finalize builds it. */
export function restoreResult(callId: string, stored: StoredResult): ToolResult {
  const copy = JSON.parse(JSON.stringify(stored)) as StoredResult
  const result: Record<string, unknown> = copy.isError
    ? { callId, content: copy.content, isError: true, error: copy.error }
    : { callId, content: copy.content, isError: false, value: copy.value === undefined ? null : copy.value }
  if (copy.contexts !== undefined) result.contexts = copy.contexts
  if (copy.meta !== undefined) result.meta = copy.meta
  return deepFreeze(result) as unknown as ToolResult
}

/**
 * The draft of a resumed call the state holds as completed: no stage runs for it and completion
 * hands out the stored result (compared by identity; never shown).
 */
export const RESTORED: Draft = Object.freeze(fail('TOOL_FAILED', 'restored from a suspended state'))

/** `ALREADY_EXECUTED`: another resume of the same suspended batch claimed the call. */
export function alreadyExecuted(state: CallState, run: RunContext): Draft {
  return fail('ALREADY_EXECUTED', `Tool ${quoteText(shownName(state.call.name, run))} was already run by another resume of this batch; it was not run again and its outcome is not known here`, 'ResumeLedger')
}

/** `TOOL_CHANGED`: the call's tool is not the definition the batch was suspended with. */
export function toolChanged(name: string, run: RunContext): Draft {
  return fail('TOOL_CHANGED', `Tool ${quoteText(shownName(name, run))} changed since this call was suspended (its schemas or version differ); the call was not run`, 'ToolChanged')
}

/**
 * The state of a pending call of a resumed state: its tool looked up again (gone: `UNKNOWN_TOOL`;
 * another identity: `TOOL_CHANGED`), and its execution built on the state's frozen arguments,
 * exactly as they were going to run (not parsed or repaired again).
 */
export function resumedState(call: RawToolCall, index: number, entry: Extract<StateCall, { status: 'awaiting-approval' | 'blocked' }>, run: RunContext): CallState {
  const found = lookUp(call, undefined, index, run)
  if (!('definition' in found)) return createState(call, index, found)
  if (toolHash(found.definition) !== entry.tool.hash) return createState(call, index, toolChanged(call.name, run))
  const state = createState(call, index, found)
  if (run.abort.isAborted) {
    state.draft = ABORTED_BEFORE
    return state
  }
  const args = deepFreeze(JSON.parse(JSON.stringify(entry.frozenArguments)) as JsonObject)
  state.exec = new Execution(state, args, found.definition, run)
  state.parallel = entry.parallel
  if (entry.repairs !== undefined) state.repairs = Object.freeze([...entry.repairs])
  return state
}
