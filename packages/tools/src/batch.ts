/**
 * Concurrency, ordered results and session logging (seed 000 source map: `src/batch.ts`;
 * ARCHITECTURE §4.3 "Concurrency").
 *
 * - `isConcurrencySafe(args)` exactly `true` → parallel; anything else → exclusive.
 * - Consecutive parallel calls share a rolling pool (bounded, default 10); an exclusive call
 *   waits until every earlier body finished and runs alone (a barrier).
 * - Bodies start in submission order. Only dispatch overlaps: pre-policy, guards, post-policy,
 *   `tools/result`, session-log appends and results stay in model order.
 * - A failing call never cancels or discards its siblings.
 */
import { getMaxListeners, setMaxListeners } from 'node:events'
import type { RawToolCall, ToolResult } from './contracts'
import type { CallRunner, RunnerOptions } from './executor'
import { appendLog, defectState, internalFailure, dispatch, finalize, observe, policy, postExecute, prepare, type CallState, type PipelineHost, type RunContext } from './pipeline'

/** Default bound of the parallel pool (ARCHITECTURE §5: `maxParallelCalls` default 10). */
export const DEFAULT_MAX_PARALLEL = 10

/**
 * Validates a pool bound: an integer from 1 to 1,000.
 *
 * @throws RangeError naming `field` otherwise.
 */
export function validateMaxParallel(value: unknown, field = 'maxParallelCalls'): number {
  if (value === undefined) return DEFAULT_MAX_PARALLEL
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 1000) {
    throw new RangeError(`${field} must be an integer from 1 to 1000, got ${String(value)}`)
  }
  return value
}

/** The rolling pool: admits parallel calls up to a bound and exclusive calls alone. */
class Pool {
  private running = 0
  private exclusive = false
  private waiter: { parallel: boolean; resolve: (ok: boolean) => void } | undefined
  /**
   * The signal carrying the pool's one abort listener. It stays attached from the first wait
   * until the pool is idle rather than being added and removed around every wait (each
   * EventTarget add/remove pair cost ~2 µs per exclusive call; docs/benchmarks.md, "Optimisations").
   */
  private watched: AbortSignal | undefined
  private readonly onAbort = (): void => {
    this.watched = undefined
    const waiter = this.waiter
    if (waiter !== undefined) {
      this.waiter = undefined
      waiter.resolve(false)
    }
  }

  constructor(private readonly max: number) {}

  private unwatch(): void {
    if (this.watched === undefined) return
    this.watched.removeEventListener('abort', this.onAbort)
    this.watched = undefined
  }

  private fits(parallel: boolean): boolean {
    return parallel ? !this.exclusive && this.running < this.max : this.running === 0
  }

  /** Resolves `true` once the call may start, or `false` if `signal` aborts first. Starts are serialised by the caller. */
  acquire(parallel: boolean, signal: AbortSignal): Promise<boolean> | boolean {
    if (this.fits(parallel)) {
      this.take(parallel)
      return true
    }
    if (signal.aborted) return false
    if (this.watched !== signal) {
      this.unwatch()
      signal.addEventListener('abort', this.onAbort, { once: true })
      this.watched = signal
    }
    return new Promise<boolean>((resolve) => {
      this.waiter = { parallel, resolve }
    })
  }

  private take(parallel: boolean): void {
    this.running++
    if (!parallel) this.exclusive = true
  }

  release(parallel: boolean): void {
    this.running--
    if (!parallel) this.exclusive = false
    const waiter = this.waiter
    if (waiter !== undefined && this.fits(waiter.parallel)) {
      this.waiter = undefined
      this.take(waiter.parallel)
      waiter.resolve(true)
    } else if (waiter === undefined && this.running === 0) {
      this.unwatch()
    }
  }
}

const RESOLVED: Promise<void> = Promise.resolve()

/**
 * Creates an incremental ordered runner over the shared pipeline. `runBatch` is this runner
 * fed a whole batch; the PTC executor feeds it sub-calls as the program issues them.
 */
export function createRunner(host: PipelineHost, options: RunnerOptions): CallRunner {
  const max = validateMaxParallel(options.maxParallel, 'maxParallel')
  const run: RunContext = {
    host,
    hooks: host.hooks(options.scope),
    scope: options.scope,
    agent: options.agent,
    log: options.log,
    toolSet: options.toolSet,
    signal: options.signal,
    parent: options.parent,
    batchId: options.batchId,
    admit: options.admit,
    local: options.local,
  }
  const pool = new Pool(max)
  // Up to `max` running bodies may each listen on the caller's signal, plus the pool's one
  // waiter: raise the signal's listener limit so a full pool does not trigger Node's
  // MaxListenersExceededWarning (the listeners are removed as calls settle; no leak).
  const limit = getMaxListeners(options.signal)
  if (limit !== 0 && limit < max + 2) setMaxListeners(max + 2, options.signal)
  let policyTail: Promise<void> = RESOLVED
  let startTail: Promise<void> = RESOLVED
  let doneTail: Promise<unknown> = RESOLVED
  let submitted = 0

  const complete = async (state: CallState): Promise<ToolResult> => {
    try {
      await postExecute(state, run)
      const result = finalize(state)
      observe(state, result, run)
      return result
    } catch (error) {
      // A defect in a stage must still give this call a result and keep its siblings running.
      host.report('pipeline', error)
      const result = internalFailure(state, error)
      try {
        observe(state, result, run)
      } catch (observeError) {
        host.report('tools/result', observeError)
      }
      return result
    }
  }

  const submit = (entry: RawToolCall | Readonly<Record<string, unknown>>): Promise<ToolResult> => {
    const index = submitted++
    let state: CallState
    try {
      state = prepare(entry, index, run)
    } catch (error) {
      // A defect (a throwing restriction predicate, a broken lookup) fails this call alone.
      host.report('prepare', error)
      state = defectState(entry, index, error)
    }
    if (run.log !== undefined && run.parent === undefined) {
      appendLog(run.log, host, { type: 'tool/call', callId: state.call.callId, name: state.call.name, arguments: state.call.arguments })
    }
    try {
      options.onCallStart?.(state.call, state.exec?.arguments ?? state.call.arguments)
    } catch (error) {
      host.report('onCallStart', error)
    }
    let dispatched: Promise<void>
    if (state.draft !== undefined) {
      dispatched = RESOLVED
    } else {
      // Stages never throw by design; a defect still fails only this call, never the chain.
      const onDefect = (stage: string) => (error: unknown): void => {
        host.report(stage, error)
        state.draft = defectState(state.call, state.index, error).draft
      }
      const policyDone = policyTail.then(() => policy(state, run)).catch(onDefect('policy'))
      policyTail = policyDone
      let acquired = false
      const started = startTail.then(async () => {
        await policyDone
        if (state.draft !== undefined) return
        const ok = pool.acquire(state.parallel, run.signal)
        acquired = ok === true || (await ok)
      }).catch(onDefect('schedule'))
      startTail = started
      dispatched = started.then(async () => {
        if (state.draft !== undefined) return
        if (!acquired) {
          await dispatch(state, run) // reports ABORTED_BEFORE_DISPATCH: the caller aborted while queued
          return
        }
        try {
          await dispatch(state, run)
        } finally {
          pool.release(state.parallel)
        }
      }).catch(onDefect('dispatch'))
    }
    const result = doneTail.then(() => dispatched).then(() => complete(state))
    doneTail = result
    return result
  }

  return {
    submit,
    drain: () => doneTail.then(() => undefined),
    get submitted() {
      return submitted
    },
  }
}
