/**
 * The rolling pool of a runner (internal; docs/design.md, "Concurrency"): consecutive parallel
 * calls share up to a bound of running bodies, an exclusive call runs alone, and a call that must
 * wait is admitted through the runner's callback — or turned away when the caller's signal aborts.
 */

/**
 * A resolved promise whose `then` queues a callback as a microtask: cheaper than Node's
 * `queueMicrotask`, which makes an async resource per callback.
 */
export const TURN: Promise<void> = Promise.resolve()

/**
 * The rolling pool: admits parallel calls up to a bound and exclusive calls alone. A call that
 * must wait is admitted through the runner's `admitted` callback — no promise, resolvers and
 * reaction closures per waiting call (every exclusive call after the first waits for its
 * predecessor's body):
 * - an exclusive call by the {@link release} that emptied the pool, at once (nothing else can
 *   run beside it);
 * - a parallel call a microtask after the release that made room, as when its admission was a
 *   promise: the other bodies that settled in the same turn release their slots first, and the
 *   runner refills the pool in one pass;
 * - or it is turned away by an abort (`admitted(false)`, a microtask after the signal's event).
 */
export class Pool {
  private running = 0
  private exclusive = false
  /** Whether the one waiting call is parallel; `undefined` when no call waits (starts are serialised by the runner). */
  private waiter: boolean | undefined
  /**
   * The signal carrying the pool's one abort listener. It stays attached from the first wait
   * until the pool is idle rather than being added and removed around every wait (each
   * EventTarget add/remove pair cost ~2 µs per exclusive call; docs/benchmarks.md, "Optimisations").
   */
  private watched: AbortSignal | undefined
  private readonly admitLater: () => void
  private readonly refuse: () => void
  private readonly onAbort = (): void => {
    this.watched = undefined
    if (this.waiter !== undefined) {
      this.waiter = undefined
      void TURN.then(this.refuse)
    }
  }

  /** `admitted(ok)` is called once for each call {@link acquire} left waiting (see the class comment). */
  constructor(
    private readonly max: number,
    private readonly admitted: (ok: boolean) => void,
  ) {
    this.admitLater = () => admitted(true)
    this.refuse = () => admitted(false)
  }

  private unwatch(): void {
    if (this.watched === undefined) return
    this.watched.removeEventListener('abort', this.onAbort)
    this.watched = undefined
  }

  private fits(parallel: boolean): boolean {
    return parallel ? !this.exclusive && this.running < this.max : this.running === 0
  }

  /**
   * `true` when the call may start now, `false` when `signal` has aborted; `undefined` when it
   * waits: the constructor's `admitted` callback then gets `true` once it may start (see the
   * class comment), or `false` if `signal` aborts first (also when it aborted and the pool's
   * listener has not run yet: a caller inside an earlier `abort` listener). Starts are serialised
   * by the caller (one waiting call at a time).
   */
  acquire(parallel: boolean, signal: AbortSignal): boolean | undefined {
    if (this.fits(parallel)) {
      this.take(parallel)
      return true
    }
    // With the pool's listener already on `signal`, its state needs no read (Node's getter): had
    // it aborted, the listener would have cleared `watched`, or — while the event is still being
    // dispatched to earlier listeners — it will turn this waiter away, as a `false` here would.
    if (this.watched !== signal) {
      if (signal.aborted) return false
      this.unwatch()
      signal.addEventListener('abort', this.onAbort, { once: true })
      this.watched = signal
    }
    this.waiter = parallel
    return undefined
  }

  private take(parallel: boolean): void {
    this.running++
    if (!parallel) this.exclusive = true
  }

  release(parallel: boolean): void {
    this.running--
    if (!parallel) this.exclusive = false
    const waiter = this.waiter
    if (waiter !== undefined && this.fits(waiter)) {
      this.waiter = undefined
      this.take(waiter)
      if (waiter) void TURN.then(this.admitLater)
      else this.admitted(true)
    } else if (waiter === undefined && this.running === 0) {
      this.unwatch()
    }
  }
}
