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
 * The linked calls are the direct path's (`direct.ts`): a call cancels itself — sends
 * `notifications/cancelled` and settles at once. The SDK path (`client.request` / `callTool` of
 * SDK 2.x) takes `exec.signal` itself: the SDK removes its listener when the request settles.
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

  /** The call `link` on `caller` settled: unlinks it; the signal's listener goes on the next turn if no call is left on it. */
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
