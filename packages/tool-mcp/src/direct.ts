/**
 * `tools/call` sent over the transport by the bridge itself, beside the SDK client on the same
 * connection (the usual path; `server.ts` falls back to the SDK's `Protocol.request` when a
 * connection is not in the shape this needs, or its server config says `directCalls: false`).
 *
 * Why: per request, the SDK's `Protocol.request` makes a promise and several closures, keeps the
 * request in three `Map`s (response handler, progress handler, timeout), arms and clears a
 * `setTimeout`, spreads the request into a new object, and checks each message it receives
 * against up to four zod schemas of the JSON-RPC envelope (a result response is parsed — copied —
 * once more before it reaches its request). About as much as the rest of a bridged call costs.
 *
 * How (the documented `Transport` interface only): after `client.connect(transport)`,
 * {@link DirectCalls.attach} wraps the `onmessage` and `onclose` handlers the client installed.
 * - Requests carry string ids `dsh-<n>` (and, when progress is watched, the same string as
 *   progress token). The SDK numbers its own requests (0, 1, …), so the two never collide, and a
 *   JSON-RPC peer echoes an id as it was sent.
 * - A message without `method` whose id is one of ours is a response to one of these calls and is
 *   handled here; a `notifications/progress` with one of our tokens too. A response or progress for
 *   an id of ours that is no longer pending (the call was cancelled or timed out) is dropped
 *   silently. Every other message goes to the SDK's handler unchanged.
 * - Envelope: a response with a `result` settles the call through the one-pass `CallToolResult`
 *   check (`result.ts`, which also covers the SDK's base `ResultSchema`: an object whose `_meta`
 *   is an object when present); one with an `error` that has an integer `code` and a
 *   string `message` rejects with the SDK's `ProtocolError` of it (as the SDK's own request does). A
 *   message with neither goes to the SDK's handler, which reports it (`onerror`) as the SDK does
 *   today, and the call runs into its timeout. Unlike the SDK's strict envelope schema, extra
 *   members beside `jsonrpc`, `id` and `result`/`error` are tolerated (this concerns custom
 *   transports: the SDK's stdio and Streamable HTTP transports parse every message with that
 *   schema before it reaches `onmessage`).
 * - Timeouts: one timer per connection, armed for the earliest deadline of the calls in flight
 *   (deadlines on the monotonic `performance.now()` clock, so a step of the wall clock neither
 *   expires a call early nor holds it past its timeout, as with the SDK's timer per request);
 *   when it fires, every call past its deadline fails with the SDK's `RequestTimeout` error (after
 *   `notifications/cancelled`, as the SDK does) and the timer is re-armed for the next deadline.
 *   Progress on a call whose progress is watched moves its deadline (the SDK's
 *   `resetTimeoutOnProgress`). The timer keeps the process alive only while calls are in flight
 *   (it is `unref`'d in between, and cleared on close).
 * - Cancellation: each call is a {@link LinkedCall} in the connection's `CallLinks`; on abort it
 *   sends `notifications/cancelled` (`requestId`, `reason: String(reason)`) and settles at once.
 * - Close: when the transport closes, every call in flight fails with the SDK's
 *   `SdkError` of code `CONNECTION_CLOSED`, after the client's own close handling ran (as the SDK does).
 * - A failed `send` (a rejected promise, or a throw) fails its call with the transport's error
 *   (as the SDK does).
 *
 * The bridge's client never sets `enforceStrictCapabilities`, so the SDK would not check the
 * server's `tools` capability before `tools/call` either.
 */
import { ProtocolError, SdkError, SdkErrorCode, type CallToolResult, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client'
import type { JsonObject } from '@deepseek-ai/dsh-tools'
import { LinkedCall } from './call'
import { checkCallToolResult, isObject, MalformedCallToolResult } from './result'

/** The prefix of the bridge's request ids (and progress tokens) on a connection. */
export const DIRECT_ID_PREFIX = 'dsh-'

/** One progress update of a call, as the server sent it. */
export interface DirectProgress {
  readonly progress: number
  readonly total?: number
  readonly message?: string
}

/**
 * One `tools/call` on a {@link DirectCalls} channel: the owner (`server.ts`) subclasses it with
 * what it needs to settle the call, and hands it to {@link DirectCalls.send}.
 */
export abstract class DirectCall extends LinkedCall {
  /** The request id (and progress token), set by {@link DirectCalls.send}. */
  id = ''
  /** When this call times out (`performance.now()` scale: monotonic, unmoved by steps of the wall clock). */
  deadline = 0
  /** The channel it was sent on. */
  channel: DirectCalls | undefined = undefined

  constructor(
    /** Whether the call's progress is watched (a progress token is sent, progress moves the deadline). */
    readonly watched: boolean,
  ) {
    super()
  }

  /**
   * The response (`result` checked) or failure arrived, or the call was cancelled. Called exactly
   * once; synchronously from {@link DirectCalls.send} only when the transport itself delivers the
   * response, or closes, inside its `send` (a custom in-process transport may); a failed `send` and a
   * send on a closed channel settle later.
   */
  abstract settled(result: CallToolResult | undefined, error: unknown): void

  /** A progress update (only when {@link watched}). */
  abstract progressed(update: DirectProgress): void

  /** The caller's signal aborted: `notifications/cancelled`, then the call settles at once with `reason` as its error. */
  abort(reason: unknown): void {
    this.channel?.cancel(this, reason, String(reason))
  }
}

/** The `tools/call` channel of one connected transport (see the module comment). */
export class DirectCalls {
  private readonly pending = new Map<string, DirectCall>()
  private sequence = 0
  private closed = false
  private timer: ReturnType<typeof setTimeout> | undefined = undefined
  private readonly expire = (): void => this.expired()

  private constructor(
    private readonly transport: Transport,
    private readonly timeoutMs: number,
  ) {}

  /**
   * A channel on `transport`, which `Client.connect` has just connected (its `onmessage` and
   * `onclose` installed), or `undefined` when the transport is not in that state (the caller then
   * uses the SDK's `Protocol.request`).
   */
  static attach(transport: Transport, timeoutMs: number): DirectCalls | undefined {
    const sdkMessage = transport.onmessage
    const sdkClose = transport.onclose
    if (typeof sdkMessage !== 'function' || typeof sdkClose !== 'function' || typeof transport.send !== 'function') return undefined
    const channel = new DirectCalls(transport, timeoutMs)
    transport.onmessage = (message, extra) => {
      if (!channel.receive(message)) sdkMessage.call(transport, message, extra)
    }
    transport.onclose = () => {
      sdkClose.call(transport)
      channel.close()
    }
    return channel
  }

  /** Calls in flight. */
  get size(): number {
    return this.pending.size
  }

  /**
   * Sends `call` as `tools/call` of `name` with `args`; its outcome goes to `call.settled`, its
   * progress (when watched) to `call.progressed`.
   */
  send(call: DirectCall, name: string, args: JsonObject): void {
    const id = DIRECT_ID_PREFIX + this.sequence++
    call.id = id
    call.channel = this
    if (this.closed) {
      queueMicrotask(() => call.settled(undefined, new Error('Not connected')))
      return
    }
    call.deadline = performance.now() + this.timeoutMs
    const pending = this.pending
    pending.set(id, call)
    const timer = this.timer
    if (timer === undefined) this.timer = setTimeout(this.expire, this.timeoutMs)
    else if (pending.size === 1) timer.ref()
    const message = {
      method: 'tools/call',
      params: call.watched ? { name, arguments: args, _meta: { progressToken: id } } : { name, arguments: args },
      jsonrpc: '2.0' as const,
      id,
    }
    this.sendAndCatch(message, (error) => {
      if (this.remove(call)) call.settled(undefined, error)
    })
  }

  /** Sends `message`; a failure, whether the transport throws or its promise rejects, goes to `failed` (later, never synchronously). */
  private sendAndCatch(message: JSONRPCMessage, failed: (error: unknown) => void): void {
    let sent: Promise<void>
    try {
      sent = this.transport.send(message)
    } catch (error) {
      sent = Promise.reject(error)
    }
    sent.then(undefined, failed)
  }

  /** Takes `call` out of the calls in flight; returns whether it was still in flight. */
  private remove(call: DirectCall): boolean {
    const pending = this.pending
    if (!pending.delete(call.id)) return false
    if (pending.size === 0) this.timer?.unref()
    return true
  }

  /** Cancels `call` if it is in flight: `notifications/cancelled` with `reason`, then settles it with `error`. */
  cancel(call: DirectCall, error: unknown, reason: string): void {
    if (!this.remove(call)) return
    this.sendAndCatch({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: call.id, reason } }, (failure) => this.transport.onerror?.(new Error(`Failed to send cancellation: ${String(failure)}`)))
    call.settled(undefined, error)
  }

  /** A received message: handles it and returns `true` when it is for a call of this channel. */
  private receive(message: JSONRPCMessage): boolean {
    const m = message as Record<string, unknown>
    const id = m.id
    if (typeof id === 'string') {
      if (m.method !== undefined || !id.startsWith(DIRECT_ID_PREFIX)) return false
      const call = this.pending.get(id)
      if (m.jsonrpc !== '2.0') return false
      const result = m.result
      if (result !== undefined) {
        if (call === undefined || !this.remove(call)) return true
        const problem = checkCallToolResult(result)
        if (problem === undefined) call.settled(result as CallToolResult, undefined)
        else call.settled(undefined, new MalformedCallToolResult(problem))
        return true
      }
      const error = m.error
      if (!isObject(error) || !Number.isInteger(error.code) || typeof error.message !== 'string') return false
      if (call !== undefined && this.remove(call)) call.settled(undefined, new ProtocolError(error.code as number, error.message, error.data))
      return true
    }
    if (m.method === 'notifications/progress' && id === undefined) return this.progressed(m.params)
    return false
  }

  /** A `notifications/progress`: returns `true` when its token is one of this channel's. */
  private progressed(params: unknown): boolean {
    if (!isObject(params)) return false
    const token = params.progressToken
    if (typeof token !== 'string' || !token.startsWith(DIRECT_ID_PREFIX)) return false
    const { progress, total, message } = params
    if (typeof progress !== 'number' || (total !== undefined && typeof total !== 'number') || (message !== undefined && typeof message !== 'string')) return false
    const call = this.pending.get(token)
    if (call === undefined || !call.watched) return true
    call.deadline = performance.now() + this.timeoutMs
    call.progressed({ progress, ...(total === undefined ? {} : { total }), ...(message === undefined ? {} : { message }) })
    return true
  }

  /** The timer fired: fails every call past its deadline, re-arms for the next one. */
  private expired(): void {
    this.timer = undefined
    const now = performance.now()
    let next = Infinity
    const due: DirectCall[] = []
    for (const call of this.pending.values()) {
      if (call.deadline <= now) due.push(call)
      else if (call.deadline < next) next = call.deadline
    }
    if (next !== Infinity) this.timer = setTimeout(this.expire, Math.max(1, next - now))
    for (const call of due) {
      const error = new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out', { timeout: this.timeoutMs })
      this.cancel(call, error, String(error))
    }
  }

  /** The transport closed: every call in flight fails with `ConnectionClosed`; the timer goes. */
  close(): void {
    if (this.closed) return
    this.closed = true
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
    const calls = [...this.pending.values()]
    this.pending.clear()
    const error = new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed')
    for (const call of calls) call.settled(undefined, error)
  }
}
