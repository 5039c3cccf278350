/**
 * The caller's `aborted` state as a plain field, for the per-call checks of a batch.
 *
 * Why: the pipeline asks whether the caller's signal has aborted four or five times per call
 * (at submission, policy, dispatch, after the body). Node's `AbortSignal.prototype.aborted` is a
 * getter that validates its receiver and reads a symbol-keyed slot; with the signals of a real
 * process (plain, `AbortSignal.timeout`, `AbortSignal.any`, other libraries' own) the slot reads
 * are megamorphic, and together the reads were ~5 % of a trivial call's CPU time (a `perf`
 * profile of a 1,000-call batch; docs/benchmarks.md, "Optimisations", Round 7).
 *
 * While watching, one `abort` listener sets {@link AbortWatch.aborted}; the signal sets its own
 * state before it dispatches `abort`, and a listener runs synchronously inside `abort()`, so code
 * that runs after the abort has been dispatched — a listener's or a body's continuation, the next
 * pipeline stage, a later listener — reads `true` here exactly when `signal.aborted` is. Two
 * exceptions, both from listeners added to the caller's signal before the batch started: code
 * running synchronously inside such a listener still reads `false`, and a listener that calls
 * `event.stopImmediatePropagation()` hides the abort from this one (as from every later
 * listener: a wrapper deadline's fused signal and the pool's waiter miss it too). Unwatched, a
 * read goes to the signal itself. The batch runner watches for the duration of a `submitAll` batch and stops once
 * every call of the runner has its result, so no listener stays on a long-lived caller signal.
 * Internal: not exported from the package.
 *
 * The listener costs more than a few reads (adding and removing one on a Node `AbortSignal` is
 * ~1.5–5 µs, against ~0.1–0.2 µs of reads per call), so the runner watches only a batch of at
 * least {@link WATCH_MIN_CALLS} calls; a smaller one reads the signal at each check. A large
 * batch that came without a signal gets one from {@link ownBatchSignal}, which needs no listener
 * at all (with one on the signal, a 1,000-call batch ran 3–8 % slower in CPU time).
 */

/** The smallest `submitAll` batch whose caller signal is watched; smaller batches read the signal. */
export const WATCH_MIN_CALLS = 32

/** Signals of {@link ownBatchSignal}: nobody holds their controller, so they never abort. */
const UNABORTABLE = new WeakSet<AbortSignal>()

/**
 * A fresh signal for a batch that came without one and will be watched (a batch of
 * {@link WATCH_MIN_CALLS} calls or more): fresh per batch, not shared, because bodies may leave
 * listeners on `exec.signal`. Nobody can abort it, so {@link AbortWatch.watch} adds no listener.
 */
export function ownBatchSignal(): AbortSignal {
  const signal = new AbortController().signal
  UNABORTABLE.add(signal)
  return signal
}

/** Mirrors one signal's `aborted` state in a field between {@link AbortWatch.watch} and {@link AbortWatch.unwatch}. */
export class AbortWatch {
  /** Mirrors `signal.aborted` while {@link watching}. */
  private aborted = false
  private watching = false
  /** Whether {@link watch} added the listener. */
  private listening = false
  private readonly onAbort = (): void => {
    this.aborted = true
  }

  constructor(readonly signal: AbortSignal) {}

  /** `signal.aborted`: the field while watching, else the signal's own getter. */
  get isAborted(): boolean {
    return this.watching ? this.aborted : this.signal.aborted
  }

  /** Starts mirroring the signal (idempotent): reads its state once and adds one `abort` listener unless it has aborted. */
  watch(): void {
    if (this.watching) return
    const aborted = this.signal.aborted
    if (!aborted && !UNABORTABLE.has(this.signal)) {
      this.signal.addEventListener('abort', this.onAbort, { once: true })
      this.listening = true
    }
    this.aborted = aborted
    this.watching = true
  }

  /** Stops mirroring (idempotent) and removes the listener. */
  unwatch(): void {
    if (!this.watching) return
    this.watching = false
    if (!this.listening) return
    this.listening = false
    this.signal.removeEventListener('abort', this.onAbort)
  }
}
