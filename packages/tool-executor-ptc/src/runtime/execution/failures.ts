/**
 * How a run fails: the message texts and limits shared by both engine placements, and the
 * {@link RunError} values of a classified guest exception, an abort, an exhausted memory budget,
 * an exceeded time budget, any thrown host value and a return value that cannot be the output.
 */
import type { JsonValue } from '@deepseek-ai/dsh-tools'
import { renderValue } from '../../render'
import type { RunError } from '../types'
import { clip, safeString } from '../host-call'

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
  // (An error's description may end with the position of its program frame: positions.ts.)
  const bare = description.replace(/ \(\u0001\d+:\d+\u0001\)$/, '')
  if (bare === 'InternalError: out of memory' || (capReached && description === 'Uncaught null')) {
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

/** The `timeout` failure of a run past its compute budget: `compute time limit of <computeMs> ms exceeded`. */
export function computeTimeoutError(computeMs: number): RunError {
  return { kind: 'timeout', message: `compute time limit of ${computeMs} ms exceeded` }
}

/**
 * The `timeout` failure of a run past its wall budget: `wall time limit of <wallMs> ms exceeded`,
 * with ` (<n> tool call(s) still running)` when `running` host calls had not settled.
 */
export function wallTimeoutError(wallMs: number, running: number): RunError {
  const waiting = running > 0 ? ` (${running} tool call${running === 1 ? '' : 's'} still running)` : ''
  return { kind: 'timeout', message: `wall time limit of ${wallMs} ms exceeded${waiting}` }
}

/**
 * The failure of a value thrown on the host side of an entry (not a guest exception): a stack
 * overflow is `InternalError: stack overflow`, a throw after the memory cap was hit is the
 * {@link memoryError}, anything else `sandbox internal error: <message>`.
 */
export function hostFailure(error: unknown, capReached: boolean, memoryBytes: number): RunError {
  if (error instanceof RangeError && /call stack/i.test(error.message)) return { kind: 'exception', message: 'InternalError: stack overflow' }
  if (capReached) return memoryError(memoryBytes)
  return { kind: 'exception', message: `sandbox internal error: ${clip(messageOf(error), MAX_MESSAGE_CHARS)}` }
}

/**
 * The run's outcome from the program's serialized return value (the prelude's `serialize`):
 * `json` its JSON text (`undefined`: nothing to return), `chars` its length when the prelude
 * found it over the output budget. The value must parse and, rendered, fit the output budget
 * together with the printed lines (`logBytes` bytes in `lines` lines, joined by newlines).
 */
export function returnedOutput(json: string | undefined, chars: number | undefined, lines: number, logBytes: number, outputBytes: number): { readonly value?: JsonValue } | RunError {
  if (chars !== undefined) return { kind: 'output-limit', message: `output limit of ${outputBytes} bytes exceeded: the return value is ${chars} characters of JSON` }
  if (json === undefined) return {}
  let value: JsonValue
  try {
    value = JSON.parse(json) as JsonValue
  } catch {
    return { kind: 'invalid-output', message: 'the return value is not JSON' }
  }
  const rendered = renderValue(value)
  const total = logBytes + (rendered === '' ? 0 : Buffer.byteLength(rendered) + (lines > 0 ? 1 : 0))
  if (total > outputBytes) return { kind: 'output-limit', message: `output limit of ${outputBytes} bytes exceeded: printed lines and the return value come to ${total} bytes` }
  return { value }
}
