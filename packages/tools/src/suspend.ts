/**
 * Suspension and resume of batches (package README, "Suspension and resume"): the outcome and
 * state shapes, the signing settings, the resume ledger. The registry's
 * `ctx.tools.executeSuspendable()` and `ctx.tools.resume()` use them.
 */
export { STATE_FORMAT, STATE_VERSION, SuspensionError, type BatchOutcome, type PendingCall, type ResumeDecision, type StateCall, type StatePayload, type StoredResult, type SuspendedState, type SuspensionErrorCode } from './suspend/types'
export { createSuspension, DEFAULT_STATE_TTL_MS, MIN_KEY_BYTES, type Suspension, type SuspensionOptions } from './suspend/suspension'
export { MemoryResumeLedger, type ResumeLedger } from './suspend/ledger'
export type { BatchSuspendControl } from './suspend/control'
export { toolHash } from './suspend/identity'
export type { CallOutcome, CallSuspension, ResumedCall, SubCallRequest } from './suspend/call-types'
