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
  #expire!: (cause: DeadlineCause) => void

  /**
   * @param outer the signal the wrapper received (the caller's, or an outer wrapper's).
   * @param budgetMs the budget in ms: positive, finite, at most 2,147,483,647.
   * @param graceMs the hard-limit grace in ms, or `undefined` when the hard limit is off.
   */
  constructor(outer: AbortSignal, budgetMs: number, graceMs?: number) {
    this.#budgetMs = budgetMs
    this.#graceMs = graceMs
    // The body's signal follows both the outer signal and the timer. It is derived with
    // AbortSignal.any, and the deadline listens on that derived signal (its own), never on the
    // caller's: many concurrent timed calls add no listeners to one caller signal (no
    // MaxListenersExceededWarning past 10).
    this.signal = AbortSignal.any([outer, this.#controller.signal])
    this.expired = new Promise<DeadlineCause>((resolve) => {
      this.#expire = resolve
    })
    if (outer.aborted) {
      this.#onOuterAbort()
    } else {
      this.signal.addEventListener('abort', this.#onOuterAbort, { once: true })
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
    this.signal.removeEventListener('abort', this.#onOuterAbort)
  }

  readonly #onTimer = (): void => {
    this.#timer = undefined
    if (this.#disposed || this.#cause !== undefined) return
    this.#cause = 'timeout'
    this.signal.removeEventListener('abort', this.#onOuterAbort)
    this.#armGrace()
    this.#controller.abort(timeoutReason(this.#budgetMs))
  }

  /** The derived signal aborted and the timer had not fired: the outer signal came first. */
  readonly #onOuterAbort = (): void => {
    if (this.#disposed || this.#cause !== undefined) return
    this.#cause = 'abort'
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer)
      this.#timer = undefined
    }
    this.#armGrace()
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
