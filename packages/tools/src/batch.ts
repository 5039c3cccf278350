/**
 * Concurrency, ordered results and session logging (docs/design.md, "Packages";
 * docs/design.md, "Concurrency").
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
import { appendLog, createState, defectState, internalFailure, dispatch, finalize, lookUp, MalformedEntry, normalizeEntry, observe, policy, postExecute, prepareArguments, type CallState, type DispatchEnd, type PipelineHost, type RunContext } from './pipeline'
import type { FoundTool } from './found-tool'
import { AbortWatch, WATCH_MIN_CALLS } from './abort-watch'
import { showConfigValue } from './unknown-keys'
import { Pool, TURN } from './pool'
import { inheritedDurable } from './pipeline/execution'

/** Default bound of the parallel pool (docs/design.md, "Native executor and provider formats": `maxParallelCalls` default 10). */
export const DEFAULT_MAX_PARALLEL = 10

/**
 * Validates a pool bound: an integer from 1 to 1,000.
 *
 * @throws RangeError naming `field` otherwise.
 */
export function validateMaxParallel(value: unknown, field = 'maxParallelCalls'): number {
  if (value === undefined) return DEFAULT_MAX_PARALLEL
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 1000) {
    throw new RangeError(`${field} must be an integer from 1 to 1000, got ${showConfigValue(value)}`)
  }
  return value
}

/** The most calls {@link createRunner}'s per-call arrays are sized for at once (larger batches grow them). */
const PRESIZE_LIMIT = 65_536

/** The runner's internals beside {@link CallRunner}: whole batches without a promise per call. */
export interface BatchRunner extends CallRunner {
  /** Submits every entry; resolves with their frozen results in order (one promise for the batch). Never rejects. */
  submitAll(entries: readonly (RawToolCall | Readonly<Record<string, unknown>>)[]): Promise<readonly ToolResult[]>
}

/**
 * Creates an incremental ordered runner over the shared pipeline. `runBatch` is this runner
 * fed a whole batch; the PTC executor feeds it sub-calls as the program issues them.
 *
 * Scheduling: calls are looked up as they are submitted (`submit` also prepares its call's
 * arguments then; `submitAll` leaves each call's JSON-text arguments until the call reaches
 * policy); the later stages advance in one pass (a "pump") a microtask later, so a caller that
 * aborts right after submitting is seen by every call's policy stage (its `tools/pre-execute`
 * listeners run, then the stage settles the call `ABORTED_BEFORE_DISPATCH`) and no body starts.
 * Each stage keeps submission order through a cursor — policy, start (pool admission) and
 * completion (post-execute → finalize → observe) — and a stage that finishes synchronously lets
 * the pass go on to the next call without a promise. Only a stage
 * that really waits (an async listener, a body's promise, a full pool) parks the pass, which
 * resumes when it settles.
 */
export function createRunner(host: PipelineHost, options: RunnerOptions): BatchRunner {
  const max = validateMaxParallel(options.maxParallel, 'maxParallel')
  const run: RunContext = {
    host,
    hooks: host.hooks(options.scope),
    scope: options.scope,
    agent: options.agent,
    log: options.log,
    toolSet: options.toolSet,
    version: host.version,
    signal: options.signal,
    abort: new AbortWatch(options.signal),
    parent: options.parent,
    batchId: options.batchId,
    admit: options.admit,
    local: options.local,
    // `null` from a custom executor means no map, as `ctx.tools.execute()` reads it.
    nameMap: options.nameMap ?? undefined,
    durable: options.durable ?? inheritedDurable(options.parent),
    shownNames: undefined,
    lastName: undefined,
    lastFound: undefined,
  }
  const pool = new Pool(max, admitted)
  // Up to `max` running bodies may each listen on the caller's signal, plus the pool's one
  // waiter and the batch's `AbortWatch`: raise the signal's listener limit so a full pool does
  // not trigger Node's MaxListenersExceededWarning (the listeners are removed as calls settle
  // and when the batch ends; no leak).
  const limit = getMaxListeners(options.signal)
  if (limit !== 0 && limit < max + 3) setMaxListeners(max + 3, options.signal)

  /**
   * Calls by submission index; a slot is cleared once its result is delivered. A deferred call
   * of `submitAll` has no state until the policy cursor reaches it: its normalised call and
   * found tool wait in `deferredCalls` / `deferredTools`. A runner's first `submitAll` sizes
   * these arrays and `results` for its batch at once (see `presize`).
   */
  let states: (CallState | undefined)[] = []
  let deferredCalls: (RawToolCall | undefined)[] = []
  let deferredTools: (FoundTool | undefined)[] = []
  /** Per-call result callbacks (`submit`); absent for calls of `submitAll`. */
  const resolvers: (((result: ToolResult) => void) | undefined)[] = []
  let results: ToolResult[] = []
  let submitted = 0
  /** Cursors: calls before `policyAt` passed policy; before `startAt` were admitted; before `completeAt` have results. */
  let policyAt = 0
  let startAt = 0
  let completeAt = 0
  let policyBusy = false
  let startBusy = false
  let completeBusy = false
  let scheduled = false
  let pumping = false
  /** Set when the pool admitted the waiting call; the pump pass launches it. */
  let admittedWaiter = false
  let again = false
  let waiters: { readonly upTo: number; readonly resolve: () => void }[] = []
  let batch: { readonly from: number; readonly upTo: number; readonly resolve: (results: readonly ToolResult[]) => void } | undefined

  const defect = (stage: string, state: CallState, error: unknown): void => {
    // A defect in a stage must still give this call a result and keep its siblings running.
    host.report(stage, error)
    state.draft = defectState(state.call, state.index, error, run).draft
  }

  /** Runs the next call's policy stage; returns whether the cursor moved synchronously. */
  const advancePolicy = (): boolean => {
    if (policyBusy || policyAt >= submitted) return false
    let state = states[policyAt]
    if (state === undefined) {
      // A call of `submitAll` whose tool was found and whose arguments were left for now (see `enqueue`).
      const index = policyAt
      const call = deferredCalls[index]!
      state = createState(call, index, deferredTools[index]!)
      deferredCalls[index] = undefined
      deferredTools[index] = undefined
      states[index] = state
      try {
        prepareArguments(state, run, false)
      } catch (error) {
        host.report('prepare', error)
        state = defectState(call, index, error, run)
        states[index] = state
      }
    }
    if (state.draft !== undefined) {
      policyAt++
      return true
    }
    let pending: void | Promise<void> = undefined
    try {
      pending = policy(state, run)
    } catch (error) {
      defect('policy', state, error)
    }
    if (pending === undefined) {
      policyAt++
      return true
    }
    policyBusy = true
    const resume = (): void => {
      policyBusy = false
      policyAt++
      pump()
    }
    pending.then(resume, (error: unknown) => {
      defect('policy', state, error)
      resume()
    })
    return false
  }

  /** A launched (admitted) call's dispatch ended: frees its pool slot and goes on. One function for every call. */
  const dispatchEnded: DispatchEnd = (state, broken, error) => {
    if (broken) defect('dispatch', state, error)
    state.dispatched = true
    pool.release(state.parallel)
    pump()
  }

  /** The same for a call the pool turned away (it holds no slot). */
  const unadmittedEnded: DispatchEnd = (state, broken, error) => {
    if (broken) defect('dispatch', state, error)
    state.dispatched = true
    pump()
  }

  const launch = (state: CallState, acquired: boolean): void => {
    let waiting = false
    try {
      // Without admission it reports ABORTED_BEFORE_DISPATCH (the caller aborted while queued), synchronously.
      waiting = dispatch(state, run, acquired ? dispatchEnded : unadmittedEnded)
    } catch (error) {
      defect('dispatch', state, error)
    }
    if (waiting) return
    if (acquired) pool.release(state.parallel)
    state.dispatched = true
  }

  const advanceStart = (): void => {
    while (!startBusy && startAt < policyAt) {
      const index = startAt
      const state = states[index]!
      if (state.draft !== undefined) {
        state.dispatched = true
        startAt++
        continue
      }
      let admission: boolean | undefined
      try {
        admission = pool.acquire(state.parallel, run.signal)
      } catch (error) {
        defect('schedule', state, error)
        state.dispatched = true
        startAt++
        continue
      }
      if (admission === undefined) {
        // Waits for the pool: `admitted` goes on with this call (`startAt`).
        startBusy = true
        return
      }
      startAt++
      launch(state, admission)
    }
  }

  /**
   * The pool admitted the call at `startAt` that waited (`ok`): the pump pass launches it once
   * the calls before it have completed what they could — an exclusive call's admission comes
   * from the release of the last running body, a parallel call's a microtask after a release
   * (see `Pool`). Or the pool turned it away after an abort (`!ok`, a microtask after the event).
   */
  function admitted(ok: boolean): void {
    if (ok) {
      admittedWaiter = true
      if (!pumping) pump()
      return
    }
    launchWaiter(false)
    pump()
  }

  /** Launches the call at `startAt` that waited for the pool, `acquired` or turned away. */
  function launchWaiter(acquired: boolean): void {
    startBusy = false
    launch(states[startAt++]!, acquired)
  }

  /** The result of a call whose completion hit a defect (never expected): reported, observed, never thrown. */
  const broken = (state: CallState, error: unknown): ToolResult => {
    host.report('pipeline', error)
    const result = internalFailure(state, error, run)
    try {
      observe(state, result, run)
    } catch (observeError) {
      host.report('tools/result', observeError)
    }
    return result
  }

  const finish = (state: CallState): ToolResult => {
    try {
      const result = finalize(state, run)
      observe(state, result, run)
      return result
    } catch (error) {
      return broken(state, error)
    }
  }

  const deliver = (index: number, result: ToolResult): void => {
    states[index] = undefined
    const resolve = resolvers[index]
    if (resolve !== undefined) {
      resolvers[index] = undefined
      resolve(result)
    } else results[index] = result
    completeAt++
  }

  const advanceComplete = (): void => {
    while (!completeBusy && completeAt < startAt) {
      const index = completeAt
      const state = states[index]!
      if (!state.dispatched) return
      let pending: void | Promise<void> = undefined
      try {
        pending = postExecute(state, run)
      } catch (error) {
        deliver(index, broken(state, error))
        continue
      }
      if (pending === undefined) {
        deliver(index, finish(state))
        continue
      }
      completeBusy = true
      pending.then(
        () => {
          completeBusy = false
          deliver(index, finish(state))
          pump()
        },
        (error: unknown) => {
          completeBusy = false
          deliver(index, broken(state, error))
          pump()
        },
      )
      return
    }
  }

  const settleWaiters = (): void => {
    // Every call has its result: nothing reads the watch until the next batch starts it again.
    if (completeAt >= submitted) run.abort.unwatch()
    if (batch !== undefined && completeAt >= batch.upTo) {
      const { from, upTo, resolve } = batch
      batch = undefined
      // The common batch is the runner's only one: hand its array over instead of copying it.
      const out = from === 0 && upTo === results.length ? results : results.slice(from, upTo)
      results = []
      resolve(out)
    }
    if (waiters.length > 0) {
      const ready = waiters.filter((w) => w.upTo <= completeAt)
      if (ready.length > 0) {
        waiters = waiters.filter((w) => w.upTo > completeAt)
        for (const w of ready) w.resolve()
      }
    }
  }

  function pump(): void {
    if (pumping) {
      again = true
      return
    }
    pumping = true
    try {
      // One call's policy at a time, then whatever can start and complete: a call's body starts
      // before the next call's policy runs, as it would if each stage were awaited in turn.
      do {
        again = false
        let moved: boolean
        do {
          moved = advancePolicy()
          advanceStart()
          advanceComplete()
        } while (moved)
        if (admittedWaiter) {
          // The call the pool just admitted starts after the earlier calls completed what they
          // could (as when its admission was a promise resolved a microtask later).
          admittedWaiter = false
          launchWaiter(true)
          again = true
        }
      } while (again)
    } finally {
      pumping = false
    }
    settleWaiters()
  }

  const pumpTask = (): void => {
    scheduled = false
    pump()
  }

  const schedule = (): void => {
    if (scheduled) return
    scheduled = true
    void TURN.then(pumpTask)
  }

  /**
   * Stage 1 for one entry. With `deferArguments`, only the tool of a call whose arguments are
   * JSON text is looked up now: the call's state, its parsed and validated arguments and its
   * execution wait until the policy cursor reaches it (`advancePolicy`), so a large batch, or
   * many batches at once, do not hold every call's arguments and execution before the first
   * body runs. The outcome is the same as
   * preparing at once: the caller's signal is read at submission (a call submitted after an
   * abort is prepared at once).
   */
  const enqueue = (entry: RawToolCall | Readonly<Record<string, unknown>>, deferArguments: boolean): void => {
    const index = submitted
    let state: CallState | undefined
    let call: RawToolCall
    try {
      const normalized = normalizeEntry(entry, index)
      const malformed = normalized instanceof MalformedEntry
      call = malformed ? normalized.call : normalized
      const found = lookUp(call, malformed ? normalized.problem : undefined, index, run)
      // Only text arguments wait: object arguments were copied by `normalizeEntry` already (and
      // one that could not be copied is still the caller's, so it is judged now). The signal is
      // read per call: one that aborted while the batch was being submitted (a log append, a
      // lookup) fails the later calls here, as preparing each call as it was submitted did.
      if (deferArguments && typeof call.arguments === 'string' && !run.abort.isAborted && 'definition' in found) {
        deferredCalls[index] = call
        deferredTools[index] = found
      } else {
        state = createState(call, index, found)
        if (state.draft === undefined) prepareArguments(state, run, run.abort.isAborted)
      }
    } catch (error) {
      // A defect (a throwing restriction predicate, a broken lookup) fails this call alone.
      host.report('prepare', error)
      state = defectState(entry, index, error, run)
      call = state.call
    }
    if (run.log !== undefined && run.parent === undefined) {
      appendLog(run.log, host, { type: 'tool/call', callId: call.callId, name: call.name, arguments: call.arguments })
    }
    try {
      options.onCallStart?.(call, state?.exec?.arguments ?? call.arguments)
    } catch (error) {
      host.report('onCallStart', error)
    }
    states[index] = state
    submitted++
  }

  /**
   * Sizes the per-call arrays of a fresh runner for its first batch of `n` calls: one backing
   * store each instead of a series of copies as they grow call by call (a batch past
   * {@link PRESIZE_LIMIT} calls grows the rest of the way as before).
   */
  const presize = (n: number): void => {
    if (n < 2) return
    const size = Math.min(n, PRESIZE_LIMIT)
    states = new Array<CallState | undefined>(size)
    deferredCalls = new Array<RawToolCall | undefined>(size)
    deferredTools = new Array<FoundTool | undefined>(size)
    results = new Array<ToolResult>(size)
  }

  return {
    submit(entry) {
      const index = submitted
      enqueue(entry, false)
      schedule()
      return new Promise<ToolResult>((resolve) => {
        resolvers[index] = resolve
      })
    },
    submitAll(entries) {
      if (batch !== undefined) return Promise.reject(new Error('submitAll() is already running on this runner'))
      const from = submitted
      if (from === 0) presize(entries.length)
      // `onCallStart` is handed each call's parsed arguments at submission: such a runner prepares at once.
      const defer = options.onCallStart === undefined
      if (entries.length === 0) return Promise.resolve([])
      // A large batch reads the caller's signal from a field while it runs (see `AbortWatch`).
      if (entries.length >= WATCH_MIN_CALLS) run.abort.watch()
      try {
        for (const entry of entries) enqueue(entry, defer)
      } catch (error) {
        // Only reading the entries can throw here (an index getter); no listener stays behind.
        run.abort.unwatch()
        throw error
      }
      const done = new Promise<readonly ToolResult[]>((resolve) => {
        batch = { from, upTo: submitted, resolve }
      })
      schedule()
      return done
    },
    drain() {
      if (completeAt >= submitted) return TURN
      const upTo = submitted
      return new Promise<void>((resolve) => waiters.push({ upTo, resolve }))
    },
    get submitted() {
      return submitted
    },
  }
}
