/**
 * The shapes of suspension (package README, "Suspension and resume"): the outcome of a
 * suspendable batch, its pending calls, the signed state and its payload, and resume decisions.
 */
import type { SubCallRequest } from './call-types'
import type { ContentBlock, JsonObject, JsonValue, ResultContext, ToolErrorInfo, ToolResult, ToolResultMeta } from '../contracts'

/** The `format` field of every state. */
export const STATE_FORMAT = 'dsh-tools/suspended-batch'
/** The state format version this package writes and reads. */
export const STATE_VERSION = 1

/**
 * A call a suspended batch did not finish. `awaiting-approval`: its approval service deferred
 * (answer it in `resume`'s decisions); `blocked`: it may not run before an earlier pending call
 * (the batch's barrier rules: an exclusive call after a pending one, or any call after a pending
 * exclusive one) and runs once that one is settled.
 */
export interface PendingCall {
  readonly callId: string
  /** The call's position in the batch (0-based). */
  readonly index: number
  readonly toolName: string
  /** The frozen arguments exactly as the call would run. */
  readonly arguments: Readonly<JsonObject>
  readonly status: 'awaiting-approval' | 'blocked'
  /** The `ask` reason or the deferral's reason (awaiting-approval), if any. */
  readonly reason?: string
  /** The first earlier pending call's id (blocked). */
  readonly blockedBy?: string
  /**
   * A call whose body suspended (PTC's `run_code`, see `exec.suspension`): the sub-calls that
   * await approval, in order. Decide each under its own `callId` (`<this call's id>:code:<k>`).
   */
  readonly subCalls?: readonly SubCallRequest[]
}

/** A suspendable batch's outcome: complete (exactly `ctx.tools.execute()`'s results) or suspended. */
export type BatchOutcome =
  | { readonly status: 'complete'; readonly results: readonly ToolResult[] }
  | {
      readonly status: 'suspended'
      /** One slot per call, in call order: its result, or `undefined` while it is pending. */
      readonly results: readonly (ToolResult | undefined)[]
      /** The pending calls in call order. */
      readonly pending: readonly PendingCall[]
      /** The signed state to keep (it is plain JSON: `JSON.stringify` it) and pass to `ctx.tools.resume`. */
      readonly state: SuspendedState
    }

/** A decision for a pending call, given to `ctx.tools.resume`. A rejection's reason is the model-facing message. */
export type ResumeDecision = { readonly type: 'approve' } | { readonly type: 'reject'; readonly reason?: string }

/** A completed call's result as the state stores it (a {@link ToolResult} without its `callId`). */
export interface StoredResult {
  readonly isError: boolean
  readonly content: readonly ContentBlock[]
  readonly value?: JsonValue
  readonly error?: { readonly message: string; readonly info: ToolErrorInfo }
  readonly contexts?: readonly ResultContext[]
  readonly meta?: ToolResultMeta
}

/** One call of the state, in call order. */
export type StateCall =
  | { readonly callId: string; readonly name: string; readonly arguments: string | JsonValue; readonly status: 'completed'; readonly result: StoredResult }
  | {
      readonly callId: string
      readonly name: string
      /** As the model emitted them. */
      readonly arguments: string | JsonValue
      readonly status: 'awaiting-approval' | 'blocked'
      /** The frozen arguments the call runs with (after parsing and repairs). */
      readonly frozenArguments: JsonObject
      readonly parallel: boolean
      readonly repairs?: readonly string[]
      readonly reason?: string
      /** The tool's identity when the batch suspended: `toolHash` of its definition. */
      readonly tool: { readonly name: string; readonly hash: string }
      /** A call whose body suspended: the journal it stored (opaque JSON; PTC's `PtcRunState`). */
      readonly journal?: JsonValue
      /** A call whose body suspended: its sub-calls awaiting approval. */
      readonly subCalls?: readonly SubCallRequest[]
    }

/** What the signature covers. */
export interface StatePayload {
  /** Shared by every state partial resumes derive from one suspension (the ledger's call claims). */
  readonly suspensionId: string
  /** This state's own id (the ledger consumes it once). */
  readonly stateId: string
  /** The id of the scope the batch ran in; a state is refused in another scope (`STATE_FOREIGN`). */
  readonly scope: string
  readonly batchId?: string
  /** ms since the epoch. */
  readonly createdAt: number
  /** ms since the epoch; later, the state is refused (`STATE_EXPIRED`). */
  readonly expiresAt: number
  readonly calls: readonly StateCall[]
  /** The approval answers given so far, by call id. */
  readonly decisions: Readonly<Record<string, ResumeDecision>>
}

/** A suspended batch's state: plain JSON, versioned, signed with HMAC-SHA256 under key `kid`. */
export interface SuspendedState {
  readonly format: typeof STATE_FORMAT
  readonly version: typeof STATE_VERSION
  readonly kid: string
  /** base64url HMAC-SHA256 of the canonical JSON (sorted keys, no spaces) of `payload`. */
  readonly sig: string
  readonly payload: StatePayload
}

/** The codes {@link SuspensionError} carries. */
export type SuspensionErrorCode =
  | 'STATE_MALFORMED'
  | 'STATE_VERSION_UNSUPPORTED'
  | 'STATE_UNKNOWN_KEY'
  | 'STATE_SIGNATURE_INVALID'
  | 'STATE_EXPIRED'
  | 'STATE_FOREIGN'
  | 'STATE_REPLAYED'
  | 'DECISION_INVALID'

/**
 * Why `ctx.tools.resume` refused a state or its decisions (it rejects with this; nothing ran).
 * `pointer` is the JSON pointer of the offending field (`/payload/calls/2/callId`,
 * `/decisions/call_9`), `''` for the whole value.
 */
export class SuspensionError extends Error {
  override readonly name = 'SuspensionError'
  constructor(
    readonly code: SuspensionErrorCode,
    readonly pointer: string,
    message: string,
  ) {
    super(`${code}: ${message}${pointer === '' ? '' : ` (at ${pointer})`}`)
  }
}
