/**
 * The `tools/retry` event, declared in cordis `Events`, and its scope-filtered emission.
 */
import type { Context } from 'cordis'
import { emitScoped, type Scope, type ToolErrorInfo } from '@deepseek-ai/dsh-tools'

/** What `tools/retry` listeners receive (frozen): an attempt failed and another follows. */
export interface ToolRetryEvent {
  readonly callId: string
  readonly toolName: string
  /** The attempt that failed, 1-based. */
  readonly attempt: number
  /** The wait before the next attempt, in ms (after jitter; the server's advice when it gave one). */
  readonly delayMs: number
  /**
   * Present when the failed attempt's server asked for this wait, in ms: `retryAfterMs` on the
   * error, its `retry-after-ms` header, or its `Retry-After` header (RFC 9110 §10.2.3); see
   * `retryAfterMs`. Equal to `delayMs` then.
   */
  readonly retryAfterMs?: number
  /** The failed attempt's message and `{ name, code }` (code `TOOL_FAILED` when it had none). */
  readonly error: { readonly message: string; readonly info: ToolErrorInfo }
  readonly scope: Scope
  readonly agentId?: string
}

/** Listener signature of the events this package adds. */
export interface RetryPolicyEvents {
  /**
   * An attempt failed transiently and the policy will retry after `delayMs`. Emitted before
   * the wait, once per retry. Scope-filtered like the `tools/*` events; a throw is contained.
   */
  'tools/retry'(event: ToolRetryEvent): void
}

declare module 'cordis' {
  interface Events extends RetryPolicyEvents {}
}

/** Calls every `tools/retry` listener whose scope contains the event's. Throws are reported through `report`. */
export function emitRetry(ctx: Context, event: ToolRetryEvent, report: (error: unknown) => void): void {
  emitScoped(ctx, 'tools/retry', event.scope, [event], report)
}
