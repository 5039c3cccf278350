/**
 * A signal that aborts when either of two signals does — what `AbortSignal.any([a, b])` gives,
 * for the per-call paths of the pipeline and its wrappers.
 *
 * Why not `AbortSignal.any`: on Node 20 each call registers the new signal as a dependant of
 * its sources (weak references cleaned up by a finalization registry), and with a long-lived
 * source — the caller's signal of a whole batch — it costs ~20 µs per call and grows with the
 * number of calls (measured beside this helper's ~1 µs; docs/benchmarks.md, "Optimisations").
 * Here the fused signal listens on both sources with one listener each, and `dispose()` removes
 * them when the guarded work settles, so nothing stays attached to a long-lived signal.
 */

/** A fused signal and the function that detaches it from its sources. */
export interface FusedSignal {
  /** Aborts with the reason of whichever source aborted first (already aborted if one was). */
  readonly signal: AbortSignal
  /** Removes the listeners on both sources. Idempotent; the signal keeps its state. */
  dispose(): void
}

/**
 * Fuses `a` and `b`: the returned signal aborts with the first source's reason. When a source is
 * already aborted, the signal is aborted at once with its reason (`a` first) and no listener is
 * added.
 */
export function fuseSignals(a: AbortSignal, b: AbortSignal): FusedSignal {
  const controller = new AbortController()
  if (a.aborted || b.aborted) {
    controller.abort(a.aborted ? a.reason : b.reason)
    return { signal: controller.signal, dispose: noop }
  }
  const onA = (): void => {
    detach()
    controller.abort(a.reason)
  }
  const onB = (): void => {
    detach()
    controller.abort(b.reason)
  }
  const detach = (): void => {
    a.removeEventListener('abort', onA)
    b.removeEventListener('abort', onB)
  }
  a.addEventListener('abort', onA, { once: true })
  b.addEventListener('abort', onB, { once: true })
  return { signal: controller.signal, dispose: detach }
}

function noop(): void {}
