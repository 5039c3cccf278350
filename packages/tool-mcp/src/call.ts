/**
 * The cancellation link of each `tools/call` in flight.
 *
 * A call in flight must be cancelled when its caller's signal (`exec.signal`) aborts, and must
 * not leave anything on that signal once it settled: the caller's signal is often the signal of
 * a whole batch, long-lived.
 *
 * Each server connection has one {@link CallLinks}: one `abort` listener per caller signal with
 * calls in flight (not one per call; an `EventTarget` add/remove pair per call costs more than the
 * rest of the bridge's own work). Each call is a {@link LinkedCall} in its signal's list; when the
 * last call on a signal settles, the listener is removed on the next turn of the event loop — so a
 * batch of sequential calls adds and removes it once, and no listener outlives the calls on a
 * signal by more than one turn. When a caller signal aborts, every call still linked to it is
 * cancelled (its {@link LinkedCall.abort}), oldest first.
 *
 * Two kinds of linked call:
 * - a direct call (`direct.ts`, the usual path): it cancels itself — sends
 *   `notifications/cancelled` and settles at once;
 * - a {@link CallLink}, for the SDK's `Protocol.request` (the fallback path). `Protocol.request`
 *   takes an `AbortSignal` and, on `abort`, sends `notifications/cancelled` and rejects; but it
 *   never removes the listener it adds. Handing it `exec.signal` would leave one listener per call
 *   on the caller's signal and, on a later abort, send cancellations for requests that finished
 *   long ago; a fresh `AbortController` per call costs an `EventTarget` per call, which Node keeps
 *   alive through a few young-generation collections. A `CallLink` is a plain object that is the
 *   part of `AbortSignal` that `Protocol.request` uses (SDK 1.32.2: `aborted`, `reason`,
 *   `throwIfAborted()` and `addEventListener('abort', listener)`), holding the SDK's one listener
 *   in a field; its abort runs that listener, and a late response is ignored by the SDK (the
 *   request is no longer pending).
 *
 * The cancellation and leak tests (in-process fault server, `server-everything`) pin this
 * contract against the installed SDK.
 */

/** A call in its caller signal's list of calls in flight (see the module comment). */
export abstract class LinkedCall {
  /** Neighbours in its signal's list of calls in flight (see {@link SignalWatch}). */
  prev: LinkedCall | undefined = undefined
  next: LinkedCall | undefined = undefined

  /** The caller's signal aborted with `reason` while this call was linked: cancel it. */
  abstract abort(reason: unknown): void

  /** The call settled and is being unlinked: drop what it holds for a cancellation (nothing by default). */
  release(): void {}
}

/** The members of `AbortSignal` the SDK's `Protocol.request` reads (see the module comment). */
export interface SdkAbortSignal {
  readonly aborted: boolean
  readonly reason: unknown
  throwIfAborted(): void
  addEventListener(type: 'abort', listener: () => void): void
}

/** One call's signal as the SDK sees it. Made by {@link CallLinks.link}; settle it with {@link CallLinks.unlink}. */
export class CallLink extends LinkedCall implements SdkAbortSignal {
  aborted = false
  reason: unknown = undefined
  /** The SDK's abort listener (it adds exactly one per request). */
  private cancel: (() => void) | undefined = undefined

  throwIfAborted(): void {
    if (this.aborted) throw this.reason
  }

  addEventListener(type: 'abort', listener: () => void): void {
    if (type === 'abort') this.cancel = listener
  }

  /** Marks this signal aborted with `reason` and runs the SDK's listener once. */
  abort(reason: unknown): void {
    if (this.aborted) return
    this.aborted = true
    this.reason = reason
    const cancel = this.cancel
    this.cancel = undefined
    cancel?.()
  }

  /** Drops the SDK's listener (the call settled). */
  override release(): void {
    this.cancel = undefined
  }

  /** This link as the `signal` option of `Protocol.request`. */
  asSignal(): AbortSignal {
    return this as SdkAbortSignal as unknown as AbortSignal
  }
}

/**
 * The links on one caller signal, and that signal's one abort listener. The links form a
 * doubly linked list through their `prev` / `next` fields: adding and removing one per call
 * costs a few field writes, where a `Set` that goes from one entry to none and back on every
 * sequential call keeps adding to its hash table and rehashing it in V8's C++ runtime.
 */
class SignalWatch {
  /** The most recently linked call in flight (`undefined`: none); the list goes on through `next`. */
  head: LinkedCall | undefined = undefined
  /** The pending end-of-turn check that removes the listener when no call is left. */
  sweep: ReturnType<typeof setImmediate> | undefined = undefined

  constructor(readonly signal: AbortSignal) {}

  add(link: LinkedCall): void {
    const head = this.head
    link.next = head
    if (head !== undefined) head.prev = link
    this.head = link
  }

  /** Removes `link` if it is in this list; returns whether it was. */
  remove(link: LinkedCall): boolean {
    const { prev, next } = link
    if (prev === undefined && this.head !== link) return false
    if (prev === undefined) this.head = next
    else prev.next = next
    if (next !== undefined) next.prev = prev
    link.prev = undefined
    link.next = undefined
    return true
  }

  /** `abort` on the caller signal: cancels every call linked to it. */
  handleEvent(): void {
    const reason: unknown = this.signal.reason
    // The list runs newest first: cancelled oldest first (the order the calls were linked in, as
    // with the `Set` before), from a snapshot, since a cancellation may settle and unlink a call.
    const links: LinkedCall[] = []
    for (let link = this.head; link !== undefined; link = link.next) links.push(link)
    for (let i = links.length - 1; i >= 0; i--) links[i]!.abort(reason)
  }
}

/** The cancellation links of one server connection (see the module comment). */
export class CallLinks {
  private readonly watches = new Map<AbortSignal, SignalWatch>()
  /** The watch of the last call linked (the common case: every call of a batch on one signal), or `undefined` once swept. */
  private last: SignalWatch | undefined = undefined

  /** A {@link CallLink} (the SDK path's signal) for a call on `caller` (which must not be aborted yet). */
  link(caller: AbortSignal): CallLink {
    const link = new CallLink()
    this.add(caller, link)
    return link
  }

  /** Links `call` on `caller` (which must not be aborted yet); {@link unlink} it when it settles. */
  add(caller: AbortSignal, call: LinkedCall): void {
    let watch = this.last
    if (watch === undefined || watch.signal !== caller) {
      watch = this.watches.get(caller)
      if (watch === undefined) {
        watch = new SignalWatch(caller)
        caller.addEventListener('abort', watch)
        this.watches.set(caller, watch)
      }
      this.last = watch
    }
    watch.add(call)
  }

  /** The call `link` on `caller` settled: unlinks it (and {@link LinkedCall.release}s it: a {@link CallLink} drops the SDK's listener); the signal's listener goes on the next turn if no call is left on it. */
  unlink(caller: AbortSignal, link: LinkedCall): void {
    link.release()
    const last = this.last
    const watch = last !== undefined && last.signal === caller ? last : this.watches.get(caller)
    if (watch === undefined || !watch.remove(link) || watch.head !== undefined || watch.sweep !== undefined) return
    watch.sweep = setImmediate(() => {
      watch.sweep = undefined
      if (watch.head !== undefined) return
      caller.removeEventListener('abort', watch)
      this.watches.delete(caller)
      if (this.last === watch) this.last = undefined
    })
  }
}
