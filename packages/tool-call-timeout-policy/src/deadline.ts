/**
 * One call's deadline: a signal derived from the signal the wrapper received, aborted by a
 * timer after the budget, plus the optional hard-limit grace timer (docs/design.md, "Timeout policy").
 *
 * At most one timer is pending at any time (the budget timer, then the grace timer), and
 * `dispose()` clears it and removes the listener on the outer signal — bug case B06: a timer
 * left behind on success keeps a one-shot process alive until the deadline.
 */
import { messages } from '@deepseek-ai/dsh-tools'

/** Which signal fired first: `timeout` — the deadline; `abort` — the outer (caller's) signal. */
export type DeadlineCause = 'timeout' | 'abort'

/**
 * The abort reason of a deadline signal: a `DOMException` named `TimeoutError` (as
 * `AbortSignal.timeout()` uses) whose message is `tool call timed out after <ms>ms`.
 */
export function timeoutReason(budgetMs: number): DOMException {
  return new DOMException(messages.toolTimeout(budgetMs), 'TimeoutError')
}

/**
 * A deadline over `outer`. Its `signal` aborts with the outer signal's reason when the outer
 * signal aborts first (cause `abort`), or with {@link timeoutReason} when `budgetMs` elapses
 * first (cause `timeout`). The first cause sticks: an outer abort after the deadline fired
 * does not change it.
 *
 * With `graceMs` (the hard limit), `expired` resolves with the cause `graceMs` after the
 * signal fired; without it, or once disposed, `expired` never resolves.
 *
 * Always call `dispose()` when the guarded work settles: it clears the pending timer and
 * removes the listener on `outer`. Disposing is idempotent.
 */
export class Deadline {
  /** The signal to hand to the body. */
  readonly signal: AbortSignal
  /** Resolves with the cause when the hard limit expired (see the class comment). */
  readonly expired: Promise<DeadlineCause>
  readonly #controller = new AbortController()
  readonly #budgetMs: number
  readonly #graceMs: number | undefined
  #timer: ReturnType<typeof setTimeout> | undefined
  #cause: DeadlineCause | undefined
  #disposed = false
  readonly #outer: AbortSignal
  #expire!: (cause: DeadlineCause) => void

  /**
   * @param outer the signal the wrapper received (the caller's, or an outer wrapper's).
   * @param budgetMs the budget in ms: positive, finite, at most 2,147,483,647.
   * @param graceMs the hard-limit grace in ms, or `undefined` when the hard limit is off.
   */
  constructor(outer: AbortSignal, budgetMs: number, graceMs?: number) {
    this.#budgetMs = budgetMs
    this.#graceMs = graceMs
    // The body's signal follows both the outer signal and the timer. All deadlines over one
    // outer signal share one listener on it (see `follow`): many concurrent timed calls add one
    // listener to the caller's signal, not one each (no MaxListenersExceededWarning), and
    // dispose() detaches this deadline, the last one removing the listener. Not AbortSignal.any:
    // on Node 20 it costs ~20 µs per call with a long-lived caller signal.
    this.signal = this.#controller.signal
    this.expired = new Promise<DeadlineCause>((resolve) => {
      this.#expire = resolve
    })
    this.#outer = outer
    if (outer.aborted) {
      this.#onOuterAbort()
    } else {
      follow(outer, this.#onOuterAbort)
      this.#timer = setTimeout(this.#onTimer, budgetMs)
    }
  }

  /** Which signal fired first, or `undefined` while neither has. */
  get cause(): DeadlineCause | undefined {
    return this.#cause
  }

  /** Whether the deadline itself fired first (the call is a `TOOL_TIMEOUT`). */
  get timedOut(): boolean {
    return this.#cause === 'timeout'
  }

  /** The budget in ms. */
  get budgetMs(): number {
    return this.#budgetMs
  }

  /** Whether a timer of this deadline is still pending (for tests and diagnostics). */
  get pending(): boolean {
    return this.#timer !== undefined
  }

  /** Clears the pending timer and removes the listener. Idempotent. */
  dispose(): void {
    this.#disposed = true
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer)
      this.#timer = undefined
    }
    unfollow(this.#outer, this.#onOuterAbort)
  }

  readonly #onTimer = (): void => {
    this.#timer = undefined
    if (this.#disposed || this.#cause !== undefined) return
    this.#cause = 'timeout'
    unfollow(this.#outer, this.#onOuterAbort)
    this.#armGrace()
    this.#controller.abort(timeoutReason(this.#budgetMs))
  }

  /** The outer signal aborted and the timer had not fired: the outer signal came first. */
  readonly #onOuterAbort = (): void => {
    if (this.#disposed || this.#cause !== undefined) return
    this.#cause = 'abort'
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer)
      this.#timer = undefined
    }
    this.#armGrace()
    this.#controller.abort(this.#outer.reason)
  }

  #armGrace(): void {
    const grace = this.#graceMs
    const cause = this.#cause
    if (grace === undefined || cause === undefined || this.#disposed) return
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      if (!this.#disposed) this.#expire(cause)
    }, grace)
  }
}

/** The deadlines following one outer signal, and the one listener they share on it. */
interface Followers {
  readonly callbacks: Set<() => void>
  readonly onAbort: () => void
}

const following = new WeakMap<AbortSignal, Followers>()

/** Calls `callback` once when `outer` aborts, through the one listener all followers of `outer` share. */
function follow(outer: AbortSignal, callback: () => void): void {
  let entry = following.get(outer)
  if (entry === undefined) {
    const callbacks = new Set<() => void>()
    const onAbort = (): void => {
      following.delete(outer)
      for (const f of callbacks) f()
      callbacks.clear()
    }
    entry = { callbacks, onAbort }
    following.set(outer, entry)
    outer.addEventListener('abort', onAbort, { once: true })
  }
  entry.callbacks.add(callback)
}

/** Stops following; the last follower removes the shared listener. Idempotent. */
function unfollow(outer: AbortSignal, callback: () => void): void {
  const entry = following.get(outer)
  if (entry === undefined || !entry.callbacks.delete(callback) || entry.callbacks.size > 0) return
  following.delete(outer)
  outer.removeEventListener('abort', entry.onAbort)
}
