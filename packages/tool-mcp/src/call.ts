/**
 * The cancellation link of one `tools/call` in flight.
 *
 * The SDK's `Protocol.request` takes an `AbortSignal` and, on `abort`, sends
 * `notifications/cancelled` for the request and rejects it; but it never removes the listener it
 * adds. Handing it `exec.signal` would leave one listener per call on a long-lived signal (the
 * caller's signal of a whole batch) and, on a later abort, send cancellations for requests that
 * finished long ago. A fresh `AbortController` per call avoids that at a measurable price (an
 * `EventTarget` per call, plus the SDK's listener on it).
 *
 * A {@link CallLink} is both sides of the link in one small object, made once per call:
 * - towards the SDK it is the part of `AbortSignal` that `Protocol.request` uses (SDK 1.32.2:
 *   `aborted`, `reason`, `throwIfAborted()` and `addEventListener('abort', listener)`), holding
 *   the SDK's one listener in a field;
 * - towards the pipeline it is the `abort` listener object (`handleEvent`) registered on
 *   `exec.signal` for the call's lifetime and removed by {@link CallLink.unlink} when it settles.
 *
 * When `exec.signal` aborts, the link takes its reason and runs the SDK's listener, which sends
 * `notifications/cancelled` and rejects the request at once; a late response is ignored by the
 * SDK (the request is no longer pending). The cancellation tests (in-process fault server and
 * `server-everything`) pin this contract against the installed SDK.
 */

/** The members of `AbortSignal` the SDK's `Protocol.request` reads (see the module comment). */
export interface SdkAbortSignal {
  readonly aborted: boolean
  readonly reason: unknown
  throwIfAborted(): void
  addEventListener(type: 'abort', listener: () => void): void
}

/** One call's link between `exec.signal` and the SDK request. */
export class CallLink implements SdkAbortSignal {
  aborted = false
  reason: unknown = undefined
  private readonly caller: AbortSignal
  /** The SDK's abort listener (it adds exactly one per request). */
  private cancel: (() => void) | undefined = undefined

  /** Links to `caller` (which must not be aborted yet). */
  constructor(caller: AbortSignal) {
    this.caller = caller
    caller.addEventListener('abort', this)
  }

  throwIfAborted(): void {
    if (this.aborted) throw this.reason
  }

  addEventListener(type: 'abort', listener: () => void): void {
    if (type === 'abort') this.cancel = listener
  }

  /** `exec.signal` aborted: mark this signal aborted with its reason and run the SDK's listener once. */
  handleEvent(): void {
    if (this.aborted) return
    this.aborted = true
    this.reason = this.caller.reason
    const cancel = this.cancel
    this.cancel = undefined
    cancel?.()
  }

  /** The call settled: removes the listener from `exec.signal` and drops the SDK's. Idempotent. */
  unlink(): void {
    this.caller.removeEventListener('abort', this)
    this.cancel = undefined
  }

  /** This link as the `signal` option of `Protocol.request`. */
  asSignal(): AbortSignal {
    return this as SdkAbortSignal as unknown as AbortSignal
  }
}
