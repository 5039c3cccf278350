/**
 * Stage 3 — dispatch (internal): the `tools/execute` waterfall around the body, the body's
 * signal, and how its return or throw settles the call (with the contexts it attached).
 */
import type { ToolExecution } from '../contracts'
import { describeThrown, infoFromThrown, isAbortLike } from '../errors'
import { isThenable, runRepeatable } from '../chains'
import { fuseSignals } from '../signals'
import { ABORTED_BEFORE, ABORTED_DRAFT, failFromInfo, thrownCap } from './drafts'
import { SignalView, type Execution } from './execution'
import { revokedBySet } from './prepare'
import { settleValue } from './settle'
import { dispatchDurable } from './durable'
import type { CallState, RunContext } from './types'

/** Codes after which a body's output (values, attached contexts) never reaches the model. */
const CANCELLED: ReadonlySet<string> = new Set(['ABORTED', 'ABORTED_BEFORE_DISPATCH', 'TOOL_TIMEOUT'])

/**
 * Stage 3 — dispatch: the `tools/execute` waterfall around the body, then output validation and
 * rendering. The caller's signal is re-fused before the body. Never throws or rejects.
 *
 * Returns `false` when the stage finished synchronously (a synchronous body and wrappers that
 * did not wait); else `true`, and `end` is called once the stage has ended, from the callback
 * that settled it (no promise of its own: the runner goes on in the same microtask).
 */
export function dispatch(state: CallState, run: RunContext, end: DispatchEnd): boolean {
  const waiting = dispatchBody(state, run, end)
  // A body that waited keeps its contexts in the callback that settled it (one promise, not two).
  if (!waiting) keepContexts(state)
  return waiting
}

/**
 * How {@link dispatch} reports the end of a stage that waited: `defect` tells whether settling
 * it hit a defect (never expected), then `error` is what was thrown.
 */
export type DispatchEnd = (state: CallState, defect: boolean, error: unknown) => void

/** Closes the call's progress channel and attaches the contexts the body attached, unless the call was cancelled or timed out. */
function keepContexts(state: CallState): void {
  state.exec?.closeProgress()
  const attached = state.attached
  const draft = state.draft
  // Nothing a cancelled or timed-out body produced reaches the model, contexts included.
  if (attached !== undefined && draft !== undefined && !(draft.isError && CANCELLED.has(draft.failure.info.code))) {
    state.draft = { ...draft, contexts: Object.freeze([...attached]) }
  }
}

function dispatchBody(state: CallState, run: RunContext, end: DispatchEnd): boolean {
  if (run.abort.isAborted) {
    state.draft = ABORTED_BEFORE
    return false
  }
  if (run.toolSet !== undefined) {
    // The set may have stopped admitting the tool while policy ran (an approval can take long).
    const revoked = revokedBySet(state, run)
    if (revoked !== undefined) {
      state.draft = revoked
      return false
    }
  }
  // A durable batch journals the stage as steps (`durable.ts`); the stage itself is the same.
  if (run.durable !== undefined) return dispatchDurable(state, run, end, stageKeepingContexts)
  return executeStage(state, run, end)
}

/** {@link executeStage} that also keeps the contexts when it ended synchronously (what `dispatch` does around it). */
function stageKeepingContexts(state: CallState, run: RunContext, end: DispatchEnd): boolean {
  const waiting = executeStage(state, run, end)
  if (!waiting) keepContexts(state)
  return waiting
}

/**
 * The `tools/execute` stage of a call that may dispatch: the wrappers, then the body, on the
 * execution view. Returns whether it waits (then `end` is called once it has ended).
 */
function executeStage(state: CallState, run: RunContext, end: DispatchEnd): boolean {
  const exec = state.exec!
  const caller = run.signal
  if (run.hooks.execute.length === 0) {
    // No wrapper: nothing can replace the signal, the body runs at once on the execution view.
    let out: unknown
    try {
      out = exec.definition.execute(exec.arguments, exec)
    } catch (error) {
      bodyFailed(state, run, caller, error, true)
      return false
    }
    if (isThenable(out)) {
      settleWhenDone(out, state, run, caller, STARTED, end)
      return true
    }
    bodyReturned(state, run, out, true)
    return false
  }
  let bodyStarted = false
  // Returns the body's value, or a thenable of it; throws what the body throws.
  const body = (): unknown => {
    if (run.abort.isAborted) throw bodyStarted ? (caller.reason as unknown) : new AbortedBeforeBody()
    const current = exec.signal
    // A wrapper replaced the signal (a deadline): the body's signal follows it and the caller's.
    const fused = current === caller ? undefined : fuseSignals(current, caller)
    bodyStarted = true
    const view: ToolExecution = fused === undefined ? exec : new SignalView(exec, fused.signal)
    // Only wrappers may replace the signal: the body sees it read-only.
    state.writable = false
    let out: unknown
    try {
      out = exec.definition.execute(exec.arguments, view)
    } catch (error) {
      fused?.dispose()
      state.writable = true
      throw error
    }
    if (isThenable(out)) {
      return Promise.resolve(out).finally(() => {
        fused?.dispose()
        state.writable = true
      })
    }
    fused?.dispose()
    state.writable = true
    return out
  }
  let out: unknown
  state.writable = true
  try {
    out = runRepeatable(run.hooks.execute, exec, body)
  } catch (error) {
    bodyFailed(state, run, caller, error, bodyStarted)
    return false
  }
  if (isThenable(out)) {
    settleWhenDone(out, state, run, caller, () => bodyStarted, end)
    return true
  }
  bodyReturned(state, run, out, bodyStarted)
  return false
}

const STARTED = (): boolean => true

/**
 * Settles the call when the `tools/execute` stage's thenable does: the draft, then the contexts
 * the body attached, then `end`, in one callback (one promise per waiting call). `started`
 * tells, at that moment, whether the body had started.
 */
function settleWhenDone(out: PromiseLike<unknown>, state: CallState, run: RunContext, caller: AbortSignal, started: () => boolean, end: DispatchEnd): void {
  void Promise.resolve(out).then(
    (value) => {
      try {
        bodyReturned(state, run, value, started())
        keepContexts(state)
      } catch (error) {
        end(state, true, error)
        return
      }
      end(state, false, undefined)
    },
    (error: unknown) => {
      try {
        bodyFailed(state, run, caller, error, started())
        keepContexts(state)
      } catch (defect) {
        end(state, true, defect)
        return
      }
      end(state, false, undefined)
    },
  )
}

/** The `tools/execute` stage threw or rejected with `error`. */
function bodyFailed(state: CallState, run: RunContext, caller: AbortSignal, error: unknown, bodyStarted: boolean): void {
  state.writable = false
  if (error instanceof AbortedBeforeBody || (!bodyStarted && caller.aborted && isAbortLike(error, caller))) {
    state.draft = ABORTED_BEFORE
  } else if (caller.aborted && isAbortLike(error, caller)) {
    state.draft = ABORTED_DRAFT
  } else if (isAbortLike(error, undefined)) {
    // The body's own operation was cancelled (its internal deadline, a closed stream): a cancellation, not a crash.
    state.draft = failFromInfo(describeThrown(error), { name: 'AbortError', code: 'ABORTED' }, thrownCap(run))
  } else {
    state.draft = failFromInfo(describeThrown(error), infoFromThrown(error, 'TOOL_FAILED'), thrownCap(run))
  }
}

/** The `tools/execute` stage returned `value`. */
function bodyReturned(state: CallState, run: RunContext, value: unknown, bodyStarted: boolean): void {
  const exec = state.exec!
  state.writable = false
  if (run.abort.isAborted) {
    // Nothing a body returns after the abort reaches the model.
    state.draft = bodyStarted ? ABORTED_DRAFT : ABORTED_BEFORE
    return
  }
  state.draft = settleValue(state, value, run)
}

class AbortedBeforeBody extends Error {}
