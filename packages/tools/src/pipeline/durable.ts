/**
 * Stage 3 in a durable batch (internal): the call's two journaled steps around the
 * `tools/execute` stage, and settling a replayed outcome (the protocol is in `../durable.ts`).
 * Reached only when the runner has a durable context (one field test on the plain path).
 */
import type { JsonValue, ResultContext, ToolErrorInfo } from '../contracts'
import { describeThrown } from '../errors'
import { snapshotJson } from '../json'
import {
  DURABLE_JOURNAL_INVALID,
  durableCallKey,
  durableMessages,
  durableStepNames,
  toolDefinitionHash,
  TOOL_CHANGED,
  TOOL_OUTCOME_UNKNOWN,
  type DurableContext,
  type DurableOutcome,
  type DurableStartMarker,
} from '../durable'
import { fuseSignals } from '../signals'
import { ABORTED_BEFORE, describeProblem, failFromInfo } from './drafts'
import { isContext, freezeContext } from './frozen-content'
import { settleValue } from './settle'
import { shownName } from './shown-name'
import type { CallState, Draft, RunContext } from './types'
import type { DispatchEnd } from './dispatch'

/** Runs the `tools/execute` stage (wrappers, then the body) of a call whose checks passed: sets its draft and keeps its contexts; `end` as in `dispatch`. */
export type ExecuteStage = (state: CallState, run: RunContext, end: DispatchEnd) => boolean

/** Per call of a durable batch: its key and the start its journal recorded (read by `exec.idempotencyKey` / `exec.durableStartedAt`). */
interface DurableCall {
  readonly key: string
  startedAt: number | undefined
}

const calls = new WeakMap<CallState, DurableCall>()

/** The durable facts of `state`'s call in `run` (created on first use). */
export function durableCallOf(state: CallState, run: RunContext): DurableCall {
  let call = calls.get(state)
  if (call === undefined) {
    call = { key: durableCallKey(run.durable!.key, state.call.callId), startedAt: undefined }
    calls.set(state, call)
  }
  return call
}

/**
 * The durable context of a PTC sub-call runner: the parent call's engine, keyed by the parent
 * call's key (so a sub-call's key is `<parent key>/<sub-call id>`).
 */
export function childContext(parent: DurableContext, parentKey: string): DurableContext {
  const child: DurableContext = {
    engine: parent.engine,
    key: parentKey,
    step: (name, fn) => parent.step(name, fn),
  }
  if (parent.awaitDecision === undefined) return child
  const wait = parent.awaitDecision.bind(parent)
  return { ...child, awaitDecision: (name, request) => wait(name, request) }
}

/**
 * Dispatch of one call in a durable batch: step `dsh:start:K`, then step `dsh:call:K` around
 * `stage`, then the outcome settles the call's draft and `end` is called. Always waits (`true`).
 * A tool with `durability: 'workflow'` (PTC's `run_code`) runs `stage` outside any step: its
 * effects are its sub-calls, each journaled as a call of its own.
 */
export function dispatchDurable(state: CallState, run: RunContext, end: DispatchEnd, stage: ExecuteStage): boolean {
  const durable = run.durable!
  const exec = state.exec!
  const definition = exec.definition
  const facts = durableCallOf(state, run)
  if (definition.durability === 'workflow') return stage(state, run, end)
  const names = durableStepNames(facts.key)
  const tool = toolDefinitionHash(definition)
  let startedNow = false
  let ranNow = false
  let marker: DurableStartMarker | string = ''
  const started = durable.step(names.start, () => {
    startedNow = true
    return Promise.resolve({ startedAt: Date.now(), tool })
  })
  const outcome = started.then((recorded) => {
    marker = startProblem(recorded) ?? (recorded as unknown as DurableStartMarker)
    if (typeof marker !== 'string') facts.startedAt = marker.startedAt
    return durable.step(names.call, async (engineSignal) => {
      ranNow = true
      const shown = shownName(definition.name, run)
      if (typeof marker === 'string') return failure(durableMessages.journalInvalid(shown, names.start, marker), DURABLE_JOURNAL_INVALID, definition.name)
      if (marker.tool !== tool) return failure(durableMessages.changed(shown), TOOL_CHANGED, definition.name)
      if (!startedNow && definition.idempotent !== true) return failure(durableMessages.outcomeUnknown(shown), TOOL_OUTCOME_UNKNOWN, definition.name, 'DurableInterrupted')
      await runStage(state, run, stage, engineSignal)
      return outcomeOf(state.draft!, state)
    })
  })
  void outcome.then(
    (recorded) => {
      try {
        // A replayed outcome, or one the journal answered for the stage (interrupted, changed, invalid).
        if (!ranNow || state.draft === undefined) settleReplayed(state, run, recorded, marker, tool, names.call)
      } catch (error) {
        end(state, true, error)
        return
      }
      end(state, false, undefined)
    },
    (error: unknown) => {
      // The engine could not journal (cancelled, unreachable, a replay that diverged): the call
      // fails, the error is reported, and the adapter fails its run (it saw the rejection too).
      run.host.report('durable', error)
      state.draft = failFromInfo(`Tool "${shownName(definition.name, run)}" could not be journaled by the durable engine (${durable.engine}): ${describeThrown(error)}`, { name: 'DurableEngineError', code: 'DURABLE_ENGINE_FAILED', toolName: definition.name })
      end(state, false, undefined)
    },
  )
  return true
}

/** Runs the stage with the engine's cancellation fused into the call's signal; resolves once the draft is set. */
function runStage(state: CallState, run: RunContext, stage: ExecuteStage, engineSignal: AbortSignal): Promise<void> {
  if (run.abort.isAborted) {
    state.draft = ABORTED_BEFORE
    return Promise.resolve()
  }
  const exec = state.exec!
  const fused = fuseSignals(exec.signal, engineSignal)
  state.writable = true
  exec.signal = fused.signal
  state.writable = false
  return new Promise<void>((resolve, reject) => {
    const done: DispatchEnd = (_, broken, error) => {
      fused.dispose()
      if (broken) reject(error)
      else resolve()
    }
    let waiting: boolean
    try {
      waiting = stage(state, run, done)
    } catch (error) {
      fused.dispose()
      reject(error)
      return
    }
    if (!waiting) done(state, false, undefined)
  })
}

function failure(message: string, code: string, toolName: string, name = 'DurableReplay'): DurableOutcome {
  return { ok: false, message, info: { name, code, toolName } }
}

/** The journal form of a settled draft: value or failure, with the contexts and annotations it carries. */
function outcomeOf(draft: Draft, state: CallState): DurableOutcome {
  const extra: { contexts?: readonly ResultContext[]; annotations?: Readonly<Record<string, JsonValue>> } = {}
  if (draft.contexts !== undefined) extra.contexts = draft.contexts
  if (state.annotations !== undefined) extra.annotations = Object.fromEntries(state.annotations)
  return draft.isError ? { ok: false, message: draft.failure.message, info: draft.failure.info, ...extra } : { ok: true, value: draft.value, ...extra }
}

/** Settles a call whose outcome the journal returned: as the first run settled it, unless the tool changed since. */
function settleReplayed(state: CallState, run: RunContext, recorded: unknown, marker: DurableStartMarker | string, tool: string, step: string): void {
  const name = state.exec!.definition.name
  const shown = shownName(name, run)
  if (typeof marker === 'string') {
    state.draft = failFromInfo(durableMessages.journalInvalid(shown, step.replace(':call:', ':start:'), marker), { name: 'DurableReplay', code: DURABLE_JOURNAL_INVALID, toolName: name })
    return
  }
  if (marker.tool !== tool) {
    state.draft = failFromInfo(durableMessages.changed(shown), { name: 'DurableReplay', code: TOOL_CHANGED, toolName: name })
    return
  }
  const problem = outcomeProblem(recorded)
  if (problem !== undefined) {
    state.draft = failFromInfo(durableMessages.journalInvalid(shown, step, problem), { name: 'DurableReplay', code: DURABLE_JOURNAL_INVALID, toolName: name })
    return
  }
  const outcome = recorded as DurableOutcome
  if (outcome.annotations !== undefined) state.annotations = new Map(Object.entries(outcome.annotations))
  const draft: Draft = outcome.ok ? settleValue(state, outcome.value, run) : failFromInfo(outcome.message, outcome.info)
  state.draft = outcome.contexts === undefined || outcome.contexts.length === 0 ? draft : { ...draft, contexts: Object.freeze(outcome.contexts.map(freezeContext)) }
}

/** What is wrong with a recorded start marker, or `undefined`. */
function startProblem(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return describeKind(value)
  const { startedAt, tool } = value as { startedAt?: unknown; tool?: unknown }
  if (typeof startedAt !== 'number' || !Number.isFinite(startedAt)) return `a start marker without a numeric startedAt (${describeKind(startedAt)})`
  if (typeof tool !== 'string') return `a start marker without a tool hash (${describeKind(tool)})`
  return undefined
}

/** What is wrong with a recorded outcome, or `undefined`. */
function outcomeProblem(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return describeKind(value)
  const snap = snapshotJson(value, { dropUndefined: true })
  if (!snap.ok) return `a value that is not JSON (${describeProblem(snap.problem)})`
  const o = value as { ok?: unknown; value?: unknown; message?: unknown; info?: unknown; contexts?: unknown; annotations?: unknown }
  if (o.ok === true) {
    if (!('value' in o)) return 'a success outcome without a value'
  } else if (o.ok === false) {
    if (typeof o.message !== 'string') return 'a failure outcome without a message'
    const info = o.info as Partial<ToolErrorInfo> | undefined
    if (info === null || typeof info !== 'object' || typeof info.name !== 'string' || typeof info.code !== 'string') return 'a failure outcome without info { name, code }'
  } else return 'an object without ok: true or false'
  if (o.contexts !== undefined && !(Array.isArray(o.contexts) && o.contexts.every(isContext))) return 'contexts that are not { source, content }'
  if (o.annotations !== undefined && (o.annotations === null || typeof o.annotations !== 'object' || Array.isArray(o.annotations))) return 'annotations that are not an object'
  return undefined
}

function describeKind(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object') return 'an object'
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`
  return `${typeof value} ${String(value)}`
}
