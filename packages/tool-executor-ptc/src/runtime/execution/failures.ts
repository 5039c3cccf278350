/**
 * How a run fails: the message texts and limits shared by both engine placements, and the
 * {@link RunError} values of a classified guest exception, an abort, an exhausted memory budget
 * and any thrown host value.
 */
import type { RunError } from '../types'
import { safeString } from '../host-call'

/** Longest error message a run reports (characters); longer ones are truncated. */
export const MAX_MESSAGE_CHARS = 2_000

/**
 * The `timeout` message of a program that can never progress: its main promise is pending, no
 * job is queued and no host call is in flight or waiting to be applied.
 */
export const STALLED_MESSAGE =
  'the program was waiting on a promise that can never settle (no tool call was running and nothing else was pending)'

/** The `abort` message of a run stopped by the main thread's abort flag, and the start of every {@link abortError} message. */
export const ABORTED_MESSAGE = 'the run was aborted'

/**
 * Kind of an uncaught guest exception. QuickJS reports exhaustion as `InternalError: out of
 * memory`; when even that error cannot be allocated it throws `null`, which counts as memory
 * only if the WebAssembly memory hit its cap during the run.
 */
export function classify(description: string, memoryBytes: number, capReached: boolean): RunError {
  if (description === 'InternalError: out of memory' || (capReached && description === 'Uncaught null')) {
    return memoryError(memoryBytes)
  }
  return { kind: 'exception', message: description }
}

/**
 * The `abort` failure for `signal`: `{ kind: 'abort', message: 'the run was aborted' }`, with
 * `: <reason message>` appended when the signal's reason is an Error other than an `AbortError`
 * with a non-empty message. Code runtimes use it so every sandbox reports an abort alike.
 */
export function abortError(signal: AbortSignal): RunError {
  const reason: unknown = signal.reason
  const detail = reason instanceof Error && reason.message !== '' && reason.name !== 'AbortError' ? `: ${reason.message}` : ''
  return { kind: 'abort', message: `${ABORTED_MESSAGE}${detail}` }
}

/**
 * The `memory` failure of a run whose sandbox ran out of its `memoryBytes` budget:
 * `{ kind: 'memory', message: 'memory limit of <memoryBytes> bytes exceeded' }`. Both engine
 * placements report it alike (the worker host for a worker that died of memory).
 */
export function memoryError(memoryBytes: number): RunError {
  return { kind: 'memory', message: `memory limit of ${memoryBytes} bytes exceeded` }
}

/** The message of an error or the text of any thrown value (via {@link safeString}); never throws. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : safeString(error)
}
