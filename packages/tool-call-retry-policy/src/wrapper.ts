/**
 * The `tools/execute` wrapper that retries failed attempts.
 *
 * Per call:
 *
 * 1. A tool that is not `repeatable` (default: not declared `idempotent: true` nor MCP
 *    `readOnlyHint`/`idempotentHint`) → `next()` once, untouched.
 * 2. Otherwise attempt `next()`. A value → returned. An error → given up (rethrown as is) when
 *    the attempts are used up, when `exec.signal` (the caller's, or an outer timeout's deadline)
 *    has fired, when the error is an abort (`AbortError`, the signal's reason) or carries a
 *    code in `NEVER_RETRIED`, or when `retryable` says no.
 * 3. Else wait — as long as the failed attempt's server asked (`retryAfterMs` on the error, its
 *    `retry-after-ms` / `retry-after` header; given up at once when that is over
 *    `maxRetryAfterMs`), or else {@link backoffDelay} ms — emitting `tools/retry` first, and go
 *    to 2. The wait ends early when `exec.signal` fires: the wrapper then throws the signal's
 *    reason, so the registry reports the caller's `ABORTED` (or an outer timeout policy its
 *    `TOOL_TIMEOUT`).
 *
 * When more than one attempt ran, the result carries `meta.annotations.retry` =
 * `{ attempts, delaysMs, errors }` (`errors`: each failed attempt's code, in order).
 */
import { describeThrown, infoFromThrown, isAbortLike, type JsonValue, type ToolExecution } from '@deepseek-ai/dsh-tools'
import { NEVER_RETRIED, retryAfterMs } from './classify'
import { backoffDelay, type ResolvedRetryPolicyConfig } from './config'
import type { ToolRetryEvent } from './events'

/** The `tools/execute` listener signature (see `ToolEvents['tools/execute']` in dsh-tools). */
export type ExecuteWrapper = (exec: ToolExecution, next: () => Promise<JsonValue>) => Promise<JsonValue>

/** Options of {@link createRetryWrapper}. */
export interface RetryWrapperOptions {
  readonly config: ResolvedRetryPolicyConfig
  /** Called before each wait. A throw is ignored. */
  readonly onRetry?: (event: ToolRetryEvent) => void
}

/** What `meta.annotations.retry` holds when a call took more than one attempt. */
export interface RetryAnnotation {
  /** Attempts made, the first included. */
  readonly attempts: number
  /** The waits between them, in ms, as planned (a wait cut short by an abort or an outer deadline keeps its planned length). */
  readonly delaysMs: readonly number[]
  /** Each failed attempt's code (`TOOL_FAILED` when the error had none), in order. */
  readonly errors: readonly string[]
}

/** Waits `ms` on the global timer, or rejects with `signal.reason` as soon as it fires. Leaves nothing behind. */
function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer)
      reject(signal.reason as unknown)
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && code !== '' ? code : undefined
}

/**
 * Creates the `tools/execute` wrapper that {@link RetryPolicy} registers. A tool that is not
 * `repeatable` runs once, untouched. Otherwise a failed attempt is retried after the wait its
 * server asked for (`Retry-After`, up to `maxRetryAfterMs`, see {@link retryAfterMs}; over it
 * the failure stands) or else {@link backoffDelay} ms (emitting `tools/retry` first) until it
 * succeeds, the attempts are used up, `exec.signal` fires, the error is an abort or has a code
 * in {@link NEVER_RETRIED}, or `retryable` says no. The wrapper never invents an error: it
 * rethrows the last attempt's error as is (its code, e.g. `TOOL_FAILED` or `TOOL_TIMEOUT`,
 * reaches the result), or the signal's reason when the signal ends a wait (the registry reports
 * `ABORTED`, or an outer timeout policy `TOOL_TIMEOUT`). With more than one attempt, the value's
 * result carries `meta.annotations.retry` ({@link RetryAnnotation}: attempts, delays in ms, each
 * failed attempt's code). Full algorithm: the header of this file.
 */
export function createRetryWrapper(options: RetryWrapperOptions): ExecuteWrapper {
  const { config, onRetry } = options
  return async function retryWrapper(exec, next) {
    if (config.maxAttempts === 1 || !config.repeatable(exec.definition)) return next()
    const delays: number[] = []
    const errors: string[] = []
    let attempt = 1
    try {
      for (; ; attempt++) {
        try {
          return await next()
        } catch (error) {
          const info = infoFromThrown(error, 'TOOL_FAILED')
          errors.push(info.code)
          const code = codeOf(error)
          const signal = exec.signal
          const retry =
            attempt < config.maxAttempts &&
            !signal.aborted &&
            !isAbortLike(error, signal) &&
            !(code !== undefined && NEVER_RETRIED.has(code)) &&
            config.retryable({ error, code, attempt, exec }) === true
          if (!retry) throw error
          const advised = config.respectRetryAfter ? retryAfterMs(error) : undefined
          // The server asks for a longer pause than this policy may wait: its failure stands now.
          if (advised !== undefined && advised > config.maxRetryAfterMs) throw error
          const delayMs = advised ?? backoffDelay(config, attempt)
          delays.push(delayMs)
          try {
            onRetry?.(
              Object.freeze({
                callId: exec.callId,
                toolName: exec.name,
                attempt,
                delayMs,
                ...(advised === undefined ? {} : { retryAfterMs: advised }),
                error: Object.freeze({ message: describeThrown(error), info: Object.freeze(info) }),
                scope: exec.scope,
                ...(exec.agent === undefined ? {} : { agentId: exec.agent.id }),
              }),
            )
          } catch {
            // Reporting must not change the call's outcome.
          }
          await wait(delayMs, signal)
        }
      }
    } finally {
      // A wait happened exactly when more than one attempt ran or a wait was cut short.
      if (delays.length > 0) exec.annotate('retry', { attempts: attempt, delaysMs: delays, errors })
    }
  }
}
