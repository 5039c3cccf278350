/**
 * A manual clock for timeout tests (docs/design.md, "Testkit"): time
 * moves only when the test advances it, so a test asserts "timed out" or "did not time out"
 * without sleeping and without depending on the machine's speed.
 *
 * It fakes only `setTimeout` / `clearTimeout` (and, optionally, `Date.now`); `setImmediate`,
 * `queueMicrotask` and promises stay real, which is what lets {@link ManualClock.flush} and
 * {@link ManualClock.settle} drain the pipeline's promise chains between timer firings.
 * `AbortSignal.timeout()` and `setInterval` use Node's internal timers and are NOT faked.
 */

const realSetImmediate = globalThis.setImmediate
const realSetTimeout = globalThis.setTimeout
const realClearTimeout = globalThis.clearTimeout
const realDateNow = Date.now

/**
 * A pending fake timer. Mirrors the parts of Node's `Timeout` that callers use.
 *
 * @example const t = clock.setTimeout(fn, 100); t.unref(); clock.clearTimeout(t)
 */
export class FakeTimer {
  /** @internal */ constructor(
    readonly id: number,
    /** Clock time (ms) at which it fires. */
    public at: number,
    /** @internal */ readonly fn: () => void,
    /** The delay it was created with (ms, clamped to ≥ 1 like Node). */
    readonly delay: number,
    private readonly clock: ManualClock,
  ) {}
  private refed = true
  /** No-op bookkeeping (a fake timer never holds the process open). */
  ref(): this {
    this.refed = true
    return this
  }
  unref(): this {
    this.refed = false
    return this
  }
  hasRef(): boolean {
    return this.refed
  }
  /** Restarts the timer from the clock's current time (like Node's `timeout.refresh()`). */
  refresh(): this {
    this.at = this.clock.now + this.delay
    return this
  }
  [Symbol.toPrimitive](): number {
    return this.id
  }
}

/** Options of {@link ManualClock.settle}. */
export interface SettleOptions {
  /** Give up after firing this many timers (default 10,000). */
  readonly maxTimers?: number
}

/**
 * A deterministic clock. Use it directly (`clock.setTimeout`) in code that takes a clock, or
 * `install()` it over the global `setTimeout` / `clearTimeout` for code that uses the globals
 * (such as the timeout policy).
 *
 * @example
 * const clock = new ManualClock()
 * const uninstall = clock.install()
 * try {
 *   const pending = h.execute([call('hang', {}, 'c1')])   // a tool with timeoutMs: 5_000
 *   const [result] = await clock.settle(pending)          // fires the 5 s deadline at once
 *   // result.error.info.code === 'TOOL_TIMEOUT'; clock.now === 5_000; clock.pending === 0
 * } finally {
 *   uninstall()
 * }
 */
export class ManualClock {
  /** Current clock time in ms (starts at `start`, default 0). */
  now: number
  private nextId = 1
  private readonly timers = new Map<number, FakeTimer>()
  /** How many timers fired so far. */
  fired = 0

  constructor(start = 0) {
    this.now = start
  }

  /** Schedules `fn` after `ms` (non-finite or < 1 → 1, as Node does). */
  setTimeout(fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]): FakeTimer {
    const delay = typeof ms === 'number' && Number.isFinite(ms) && ms >= 1 ? Math.floor(ms) : 1
    const id = this.nextId++
    const timer = new FakeTimer(id, this.now + delay, () => fn(...args), delay, this)
    this.timers.set(id, timer)
    return timer
  }

  /** Cancels a timer (a {@link FakeTimer}, its numeric id, or anything else — ignored). */
  clearTimeout(handle: unknown): void {
    if (handle instanceof FakeTimer) this.timers.delete(handle.id)
    else if (typeof handle === 'number') this.timers.delete(handle)
  }

  /** Timers scheduled and not yet fired or cleared. */
  get pending(): number {
    return this.timers.size
  }

  /** Delays (ms from now) of the pending timers, soonest first. */
  pendingDelays(): number[] {
    return [...this.timers.values()].map((t) => t.at - this.now).sort((a, b) => a - b)
  }

  /**
   * Lets real pending work run: `rounds` turns of the event loop through the real
   * `setImmediate` (each turn drains all microtasks first). Default 3 rounds.
   */
  async flush(rounds = 3): Promise<void> {
    for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => realSetImmediate(resolve))
  }

  private due(until: number): FakeTimer | undefined {
    let best: FakeTimer | undefined
    for (const t of this.timers.values()) if (t.at <= until && (best === undefined || t.at < best.at || (t.at === best.at && t.id < best.id))) best = t
    return best
  }

  /**
   * Moves time forward by `ms`, firing every timer that comes due in time order (ties in
   * creation order) and flushing real pending work after each one, so timers created by a
   * callback within the window fire too. Returns how many timers fired. A timer callback's
   * throw rejects the returned promise, and the timers after it do not fire.
   *
   * @throws RangeError (a rejection) when `ms` is negative or NaN.
   */
  async advance(ms: number): Promise<number> {
    if (!(ms >= 0)) throw new RangeError(`ManualClock.advance: ms must be a non-negative number, got ${String(ms)}`)
    const until = this.now + ms
    let count = 0
    await this.flush()
    for (let t = this.due(until); t !== undefined; t = this.due(until)) {
      this.timers.delete(t.id)
      this.now = Math.max(this.now, t.at)
      this.fired++
      count++
      t.fn()
      await this.flush()
    }
    this.now = until
    return count
  }

  /** Fires the next pending timer (moving time to it). Returns false when none is pending. */
  async next(): Promise<boolean> {
    await this.flush()
    const t = this.due(Number.POSITIVE_INFINITY)
    if (t === undefined) return false
    await this.advance(t.at - this.now)
    return true
  }

  /**
   * Awaits `promise`, firing timers one at a time whenever it is still pending and real work
   * has drained. Resolves or rejects like `promise`.
   *
   * @throws Error `ManualClock.settle: the promise is still pending and no timer is scheduled`
   *   when nothing can make progress (a hang), or when `maxTimers` fired without settling.
   */
  async settle<T>(promise: Promise<T>, options: SettleOptions = {}): Promise<T> {
    const max = options.maxTimers ?? 10_000
    const state = { done: false }
    promise.then(
      () => {
        state.done = true
      },
      () => {
        state.done = true
      },
    )
    for (let fired = 0; ; fired++) {
      await this.flush()
      if (state.done) return promise
      if (fired >= max) throw new Error(`ManualClock.settle: still pending after firing ${max} timers`)
      if (!(await this.next())) {
        await this.flush()
        if (state.done) return promise
        throw new Error('ManualClock.settle: the promise is still pending and no timer is scheduled')
      }
    }
  }

  /**
   * Replaces the global `setTimeout` / `clearTimeout` (and `Date.now` with `{ date: true }`)
   * with this clock. Returns the function that restores the originals. Real timers created
   * before `install()` still work; `clearTimeout` passes them through to the real one.
   */
  install(options: { readonly date?: boolean } = {}): () => void {
    const g = globalThis as unknown as Record<string, unknown>
    const saved = { setTimeout: g.setTimeout, clearTimeout: g.clearTimeout, now: Date.now }
    g.setTimeout = (fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => this.setTimeout(fn, ms, ...args)
    g.clearTimeout = (handle: unknown) => {
      if (handle instanceof FakeTimer || typeof handle === 'number') this.clearTimeout(handle)
      if (!(handle instanceof FakeTimer)) realClearTimeout(handle as Parameters<typeof clearTimeout>[0])
    }
    if (options.date === true) Date.now = () => this.now
    let restored = false
    return () => {
      if (restored) return
      restored = true
      g.setTimeout = saved.setTimeout
      g.clearTimeout = saved.clearTimeout
      Date.now = saved.now
    }
  }
}

/**
 * The real (unfaked) timer functions, captured when the testkit loaded.
 *
 * @example await new Promise((r) => realTimers.setImmediate(r)) // a real turn while a ManualClock is installed
 */
export const realTimers: {
  readonly setTimeout: typeof setTimeout
  readonly clearTimeout: typeof clearTimeout
  readonly setImmediate: typeof setImmediate
  readonly dateNow: () => number
} = Object.freeze({ setTimeout: realSetTimeout, clearTimeout: realClearTimeout, setImmediate: realSetImmediate, dateNow: realDateNow })
