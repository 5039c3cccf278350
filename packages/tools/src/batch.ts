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
import { HOLD, NEXT, PARK, StageCursor, type StepOutcome } from './runner/cursor'
import { alreadyExecuted, RESTORED, resumedState, type BatchSuspendControl } from './suspend/control'
import { inheritedDurable } from './pipeline/execution'
import { SubCallControl } from './suspend/sub-calls'
import type { CallOutcome, SubCallRequest } from './suspend/call-types'
import { deferredFailure } from './pipeline/policy'

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
 * Each stage keeps submission order through a cursor (`runner/cursor.ts`) — policy, start (pool
 * admission) and completion (post-execute → finalize → observe) — and a stage that finishes
 * synchronously lets the pass go on to the next call without a promise. Only a stage that really
 * waits (an async listener, a body's promise, a full pool) parks its cursor, and the pass
 * resumes when it settles.
 */
export function createRunner(host: PipelineHost, options: RunnerOptions): BatchRunner {
  const runner = new Runner(host, options)
  return {
    submit: (entry) => runner.submit(entry),
    submitOutcome: (entry) => runner.submitOutcome(entry),
    submitAll: (entries) => runner.submitAll(entries),
    drain: () => runner.drain(),
    get submitted() {
      return runner.submitted
    },
  }
}

/** The runner's per-runner context from its options. */
function runContext(host: PipelineHost, options: RunnerOptions): RunContext {
  return {
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
    suspend: options.suspend,
    subCalls: options.suspendable === true || options.decisions !== undefined ? new SubCallControl(options) : undefined,
  }
}

/** A `submitAll` batch waiting for its results: the calls `from` to `upTo`. */
interface PendingBatch {
  readonly from: number
  readonly upTo: number
  readonly resolve: (results: readonly ToolResult[]) => void
}

/** The ordered runner behind {@link createRunner}: a call table, three stage cursors and the pass that moves them. */
class Runner {
  private readonly run: RunContext
  private readonly pool: Pool
  /**
   * Calls by submission index; a slot is cleared once its result is delivered. A deferred call
   * of `submitAll` has no state until the policy cursor reaches it: its normalised call and
   * found tool wait in `deferredCalls` / `deferredTools`. A runner's first `submitAll` sizes
   * these arrays and `results` for its batch at once (see `presize`).
   */
  private states: (CallState | undefined)[] = []
  private deferredCalls: (RawToolCall | undefined)[] = []
  private deferredTools: (FoundTool | undefined)[] = []
  /** Per-call result callbacks (`submit`); absent for calls of `submitAll`. */
  private readonly resolvers: (((result: ToolResult) => void) | undefined)[] = []
  /** Per-call pending callbacks (`submitOutcome`). */
  private readonly pendingResolvers: (((pending: SubCallRequest) => void) | undefined)[] = []
  private results: ToolResult[] = []
  submitted = 0
  /** Calls before `policyCursor.at` passed policy; before `startCursor.at` were admitted; before `completeCursor.at` have results. */
  private readonly policyCursor = new StageCursor((index) => this.policyStep(index))
  private readonly startCursor = new StageCursor((index) => this.startStep(index))
  private readonly completeCursor = new StageCursor((index) => this.completeStep(index))
  private scheduled = false
  private pumping = false
  /** Set when the pool admitted the waiting call; the pump pass launches it. */
  private admittedWaiter = false
  private again = false
  private waiters: { readonly upTo: number; readonly resolve: () => void }[] = []
  private batch: PendingBatch | undefined

  constructor(
    private readonly host: PipelineHost,
    private readonly options: RunnerOptions,
  ) {
    const max = validateMaxParallel(options.maxParallel, 'maxParallel')
    this.run = runContext(host, options)
    this.pool = new Pool(max, this.admitted)
    // Up to `max` running bodies may each listen on the caller's signal, plus the pool's one
    // waiter and the batch's `AbortWatch`: raise the signal's listener limit so a full pool does
    // not trigger Node's MaxListenersExceededWarning (the listeners are removed as calls settle
    // and when the batch ends; no leak).
    const limit = getMaxListeners(options.signal)
    if (limit !== 0 && limit < max + 3) setMaxListeners(max + 3, options.signal)
  }

  private defect(stage: string, state: CallState, error: unknown): void {
    // A defect in a stage must still give this call a result and keep its siblings running.
    this.host.report(stage, error)
    state.draft = defectState(state.call, state.index, error, this.run).draft
  }

  // ------------------------------------------------------------------ policy

  /** The state of a call of `submitAll` whose tool was found and whose arguments were left for now (see `enqueue`). */
  private prepareDeferred(index: number): CallState {
    const call = this.deferredCalls[index]!
    let state = createState(call, index, this.deferredTools[index]!)
    this.deferredCalls[index] = undefined
    this.deferredTools[index] = undefined
    this.states[index] = state
    try {
      prepareArguments(state, this.run, false)
    } catch (error) {
      this.host.report('prepare', error)
      state = defectState(call, index, error, this.run)
      this.states[index] = state
    }
    return state
  }

  /** Stage 2 for the call at `index`: its policy (one call at a time, see `pump`). */
  private policyStep(index: number): StepOutcome {
    const state = this.states[index] ?? this.prepareDeferred(index)
    if (state.draft !== undefined) return NEXT
    let pending: void | Promise<void> = undefined
    try {
      pending = policy(state, this.run)
    } catch (error) {
      this.defect('policy', state, error)
    }
    if (pending === undefined) return NEXT
    return this.policyCursor.parkOn(
      pending,
      (failed, error) => {
        if (failed) this.defect('policy', state, error)
      },
      this.pumpNow,
    )
  }

  // ------------------------------------------------------------------ start

  /** A launched (admitted) call's dispatch ended: frees its pool slot and goes on. One function for every call. */
  private readonly dispatchEnded: DispatchEnd = (state, broken, error) => {
    if (broken) this.defect('dispatch', state, error)
    state.dispatched = true
    this.pool.release(state.parallel)
    this.pump()
  }

  /** The same for a call the pool turned away (it holds no slot). */
  private readonly unadmittedEnded: DispatchEnd = (state, broken, error) => {
    if (broken) this.defect('dispatch', state, error)
    state.dispatched = true
    this.pump()
  }

  private launch(state: CallState, acquired: boolean): void {
    let waiting = false
    try {
      // Without admission it reports ABORTED_BEFORE_DISPATCH (the caller aborted while queued), synchronously.
      waiting = dispatch(state, this.run, acquired ? this.dispatchEnded : this.unadmittedEnded)
    } catch (error) {
      this.defect('dispatch', state, error)
    }
    if (waiting) return
    if (acquired) this.pool.release(state.parallel)
    state.dispatched = true
  }

  /** Stage 3's admission for the call at `index`: launched now, or parked until the pool admits it (`admitted`). */
  private startStep(index: number): StepOutcome {
    const state = this.states[index]!
    if (state.draft !== undefined) {
      state.dispatched = true
      return NEXT
    }
    const suspend = this.run.suspend
    if (suspend !== undefined) {
      const gate = this.suspendGate(state, suspend)
      if (gate !== undefined) return gate
    } else if (this.run.subCalls !== undefined) {
      const gate = this.subCallGate(state, this.run.subCalls)
      if (gate !== undefined) return gate
    }
    let admission: boolean | undefined
    try {
      admission = this.pool.acquire(state.parallel, this.run.signal)
    } catch (error) {
      this.defect('schedule', state, error)
      state.dispatched = true
      return NEXT
    }
    // Waits for the pool: `admitted` goes on with this call.
    if (admission === undefined) return PARK
    this.launch(state, admission)
    return NEXT
  }

  /**
   * What suspension decides at the start of a call with no outcome yet (`undefined`: it goes on
   * to the pool). A pending call (deferred, or held back by the barrier rules) does not dispatch;
   * a pending call of a resumed state is claimed in the resume ledger first — a call claimed
   * before fails `ALREADY_EXECUTED`, and an asynchronous claim holds the cursor on the call.
   */
  private suspendGate(state: CallState, suspend: BatchSuspendControl): StepOutcome | undefined {
    if (suspend.holds(state)) {
      state.dispatched = true
      return NEXT
    }
    if (!suspend.needsClaim(state.index)) return undefined
    return this.claimGate(state, () => suspend.claim(state.index, state.call.callId))
  }

  /**
   * The same for a call of a sub-call runner (`RunnerOptions.suspendable` / `decisions`): a
   * pending sub-call (its approval deferred) does not dispatch; a decided sub-call of a resumed
   * body is claimed in the batch's resume ledger first.
   */
  private subCallGate(state: CallState, subCalls: SubCallControl): StepOutcome | undefined {
    const pendable = this.pendingResolvers[state.index] !== undefined
    if (state.suspended !== undefined && !pendable) {
      // Submitted with `submit`: a deferral fails closed, and holds nothing back.
      state.draft = deferredFailure(state, this.run, state.suspended.reason)
      state.suspended = undefined
      state.dispatched = true
      return NEXT
    }
    // A deferred call of `submitOutcome`, or one the barrier rules hold back behind it: pending.
    if (pendable && subCalls.holds(state)) {
      state.dispatched = true
      return NEXT
    }
    const callId = state.call.callId
    return subCalls.needsClaim(callId) ? this.claimGate(state, () => subCalls.claim(callId)) : undefined
  }

  /** Claims the call of `state` before it starts: claimed (`undefined`: it goes on), claimed before (`ALREADY_EXECUTED`), or waiting for the claim. */
  private claimGate(state: CallState, ask: () => boolean | Promise<boolean>): StepOutcome | undefined {
    let claim: boolean | Promise<boolean>
    try {
      claim = ask()
    } catch (error) {
      claim = Promise.reject(error)
    }
    if (claim === true) return undefined
    if (claim === false) {
      state.draft = alreadyExecuted(state, this.run)
      state.dispatched = true
      return NEXT
    }
    return this.startCursor.waitOn(
      claim.then(
        (ok) => {
          if (ok !== true) state.draft = alreadyExecuted(state, this.run)
        },
        (error: unknown) => this.defect('resume ledger', state, error),
      ),
      this.pumpNow,
    )
  }

  /**
   * The pool admitted the call at the start cursor that waited (`ok`): the pump pass launches it
   * once the calls before it have completed what they could — an exclusive call's admission
   * comes from the release of the last running body, a parallel call's a microtask after a
   * release (see `Pool`). Or the pool turned it away after an abort (`!ok`, a microtask after
   * the event).
   */
  private readonly admitted = (ok: boolean): void => {
    if (ok) {
      this.admittedWaiter = true
      if (!this.pumping) this.pump()
      return
    }
    this.launchWaiter(false)
    this.pump()
  }

  /** Launches the call at the start cursor that waited for the pool, `acquired` or turned away. */
  private launchWaiter(acquired: boolean): void {
    const index = this.startCursor.at
    this.startCursor.unpark()
    const state = this.states[index]!
    // A body that suspended while this call waited (`exec.suspension`) holds it back by the barrier rules.
    if (acquired && this.run.suspend?.holds(state) === true) {
      this.pool.release(state.parallel)
      state.dispatched = true
      return
    }
    this.launch(state, acquired)
  }

  // ------------------------------------------------------------------ completion

  /** The result of a call whose completion hit a defect (never expected): reported, observed, never thrown. */
  private broken(state: CallState, error: unknown): ToolResult {
    this.host.report('pipeline', error)
    const result = internalFailure(state, error, this.run)
    try {
      observe(state, result, this.run)
    } catch (observeError) {
      this.host.report('tools/result', observeError)
    }
    return result
  }

  private finish(state: CallState): ToolResult {
    try {
      const result = finalize(state, this.run)
      observe(state, result, this.run)
      return result
    } catch (error) {
      return this.broken(state, error)
    }
  }

  private deliver(index: number, result: ToolResult | undefined): void {
    this.states[index] = undefined
    const resolve = this.resolvers[index]
    if (resolve !== undefined) {
      this.resolvers[index] = undefined
      // `submit` runners never suspend (`RunnerOptions.suspend` is for `submitAll`): a result is there.
      resolve(result!)
    } else this.results[index] = result!
  }

  /**
   * A sub-call whose approval was deferred (`RunnerOptions.suspendable`): handed to its
   * `submitOutcome` as pending (`true`), or, submitted with `submit`, failed closed like a
   * deferral in a batch that cannot suspend (`false`: it completes as usual).
   */
  private subCallPending(index: number, state: CallState): boolean {
    const resolve = this.pendingResolvers[index]
    if (resolve === undefined) {
      state.draft = deferredFailure(state, this.run, state.suspended!.reason)
      return false
    }
    this.pendingResolvers[index] = undefined
    this.resolvers[index] = undefined
    this.states[index] = undefined
    const exec = state.exec!
    const { reason, blockedBy } = state.suspended!
    resolve(Object.freeze({ callId: state.call.callId, toolName: exec.definition.name, arguments: exec.arguments, ...(reason === undefined ? {} : { reason }), ...(blockedBy === undefined ? {} : { blockedBy }) }))
    return true
  }

  /** Stages 4–6 for the call at `index` once its dispatch ended: post-execute, then finalize and observe. */
  private completeStep(index: number): StepOutcome {
    const state = this.states[index]!
    if (!state.dispatched) return HOLD
    if (this.run.suspend !== undefined) {
      const restored = this.run.suspend.settled(state)
      if (restored !== false) {
        this.deliver(index, restored)
        return NEXT
      }
    } else if (state.suspended !== undefined && this.subCallPending(index, state)) return NEXT
    let pending: void | Promise<void> = undefined
    try {
      pending = postExecute(state, this.run)
    } catch (error) {
      this.deliver(index, this.broken(state, error))
      return NEXT
    }
    if (pending === undefined) {
      this.deliver(index, this.finish(state))
      return NEXT
    }
    return this.completeCursor.parkOn(pending, (failed, error) => this.deliver(index, failed ? this.broken(state, error) : this.finish(state)), this.pumpNow)
  }

  // ------------------------------------------------------------------ the pass

  private settleWaiters(): void {
    const completed = this.completeCursor.at
    // Every call has its result: nothing reads the watch until the next batch starts it again.
    if (completed >= this.submitted) this.run.abort.unwatch()
    const batch = this.batch
    if (batch !== undefined && completed >= batch.upTo) {
      this.batch = undefined
      // The common batch is the runner's only one: hand its array over instead of copying it.
      const out = batch.from === 0 && batch.upTo === this.results.length ? this.results : this.results.slice(batch.from, batch.upTo)
      this.results = []
      batch.resolve(out)
    }
    if (this.waiters.length > 0) {
      const ready = this.waiters.filter((w) => w.upTo <= completed)
      if (ready.length > 0) {
        this.waiters = this.waiters.filter((w) => w.upTo > completed)
        for (const w of ready) w.resolve()
      }
    }
  }

  /** {@link pump} as a callback (a parked stage's settlement). */
  private readonly pumpNow = (): void => this.pump()

  private pump(): void {
    if (this.pumping) {
      this.again = true
      return
    }
    this.pumping = true
    try {
      // One call's policy at a time, then whatever can start and complete: a call's body starts
      // before the next call's policy runs, as it would if each stage were awaited in turn.
      do {
        this.again = false
        let moved: boolean
        do {
          moved = this.policyCursor.advance(this.submitted, 1)
          this.startCursor.advance(this.policyCursor.at, Number.MAX_SAFE_INTEGER)
          this.completeCursor.advance(this.startCursor.at, Number.MAX_SAFE_INTEGER)
        } while (moved)
        if (this.admittedWaiter) {
          // The call the pool just admitted starts after the earlier calls completed what they
          // could (as when its admission was a promise resolved a microtask later).
          this.admittedWaiter = false
          this.launchWaiter(true)
          this.again = true
        }
      } while (this.again)
    } finally {
      this.pumping = false
    }
    this.settleWaiters()
  }

  private readonly pumpTask = (): void => {
    this.scheduled = false
    this.pump()
  }

  private schedule(): void {
    if (this.scheduled) return
    this.scheduled = true
    void TURN.then(this.pumpTask)
  }

  // ------------------------------------------------------------------ submission

  /**
   * Stage 1 for one entry. With `deferArguments`, only the tool of a call whose arguments are
   * JSON text is looked up now: the call's state, its parsed and validated arguments and its
   * execution wait until the policy cursor reaches it (`policyStep`), so a large batch, or
   * many batches at once, do not hold every call's arguments and execution before the first
   * body runs. The outcome is the same as preparing at once: the caller's signal is read at
   * submission (a call submitted after an abort is prepared at once).
   */
  private enqueue(entry: RawToolCall | Readonly<Record<string, unknown>>, deferArguments: boolean): void {
    const index = this.submitted
    const run = this.run
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
        this.deferredCalls[index] = call
        this.deferredTools[index] = found
      } else {
        state = createState(call, index, found)
        if (state.draft === undefined) prepareArguments(state, run, run.abort.isAborted)
      }
    } catch (error) {
      // A defect (a throwing restriction predicate, a broken lookup) fails this call alone.
      this.host.report('prepare', error)
      state = defectState(entry, index, error, run)
      call = state.call
    }
    run.suspend?.noteCall(index, call)
    if (run.log !== undefined && run.parent === undefined) {
      appendLog(run.log, this.host, { type: 'tool/call', callId: call.callId, name: call.name, arguments: call.arguments })
    }
    try {
      this.options.onCallStart?.(call, state?.exec?.arguments ?? call.arguments)
    } catch (error) {
      this.host.report('onCallStart', error)
    }
    this.states[index] = state
    this.submitted++
  }

  /**
   * Stage 1 of a resumed batch: each call of the state, its completed result restored or its
   * pending call's state rebuilt (`resumedState`); nothing is logged again (the session log has
   * its `tool/call` from the first run).
   */
  private enqueueResumed(suspend: BatchSuspendControl): void {
    for (const call of suspend.resumedCalls()) {
      const index = this.submitted
      const entry = suspend.stateCall(index)!
      let state: CallState
      try {
        state = entry.status === 'completed' ? createState(call, index, RESTORED) : resumedState(call, index, entry, this.run)
      } catch (error) {
        this.host.report('prepare', error)
        state = defectState(call, index, error, this.run)
      }
      this.states[index] = state
      this.submitted++
    }
  }

  /**
   * Sizes the per-call arrays of a fresh runner for its first batch of `n` calls: one backing
   * store each instead of a series of copies as they grow call by call (a batch past
   * {@link PRESIZE_LIMIT} calls grows the rest of the way as before).
   */
  private presize(n: number): void {
    if (n < 2) return
    const size = Math.min(n, PRESIZE_LIMIT)
    this.states = new Array<CallState | undefined>(size)
    this.deferredCalls = new Array<RawToolCall | undefined>(size)
    this.deferredTools = new Array<FoundTool | undefined>(size)
    this.results = new Array<ToolResult>(size)
  }

  submit(entry: RawToolCall | Readonly<Record<string, unknown>>): Promise<ToolResult> {
    const index = this.submitted
    this.enqueue(entry, false)
    this.schedule()
    return new Promise<ToolResult>((resolve) => {
      this.resolvers[index] = resolve
    })
  }

  submitOutcome(entry: RawToolCall | Readonly<Record<string, unknown>>): Promise<CallOutcome> {
    const index = this.submitted
    this.enqueue(entry, false)
    this.schedule()
    return new Promise<CallOutcome>((resolve) => {
      this.resolvers[index] = (result) => resolve(Object.freeze({ status: 'complete', result }))
      this.pendingResolvers[index] = (pending) => resolve(Object.freeze({ status: 'pending', pending }))
    })
  }

  submitAll(entries: readonly (RawToolCall | Readonly<Record<string, unknown>>)[]): Promise<readonly ToolResult[]> {
    if (this.batch !== undefined) return Promise.reject(new Error('submitAll() is already running on this runner'))
    const from = this.submitted
    if (from === 0) this.presize(entries.length)
    // `onCallStart` is handed each call's parsed arguments at submission: such a runner prepares at once.
    const defer = this.options.onCallStart === undefined
    if (entries.length === 0) return Promise.resolve([])
    // A large batch reads the caller's signal from a field while it runs (see `AbortWatch`).
    if (entries.length >= WATCH_MIN_CALLS) this.run.abort.watch()
    try {
      if (this.run.suspend?.resume !== undefined) this.enqueueResumed(this.run.suspend)
      else for (const entry of entries) this.enqueue(entry, defer)
    } catch (error) {
      // Only reading the entries can throw here (an index getter); no listener stays behind.
      this.run.abort.unwatch()
      throw error
    }
    const done = new Promise<readonly ToolResult[]>((resolve) => {
      this.batch = { from, upTo: this.submitted, resolve }
    })
    this.schedule()
    return done
  }

  drain(): Promise<void> {
    if (this.completeCursor.at >= this.submitted) return TURN
    const upTo = this.submitted
    return new Promise<void>((resolve) => this.waiters.push({ upTo, resolve }))
  }
}
