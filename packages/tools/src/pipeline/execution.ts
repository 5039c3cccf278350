/**
 * The execution view a call's listeners, wrappers and body see (`ToolExecution`), with its
 * progress channel, annotations and attached contexts (internal).
 */
import type { AnyToolDefinition, JsonObject, JsonValue, RawToolCall, ResultContext, Scope, SessionLog, Agent, ToolExecution } from '../contracts'
import { typeLabel } from '../errors'
import { snapshotJson } from '../json'
import { ProgressChannel, progressProblem, type ToolProgress, type ToolProgressEvent } from '../progress'
import { describeProblem } from './drafts'
import { freezeContext, isContext } from './frozen-content'
import { shownName } from './shown-name'
import type { CallState, RunContext } from './types'
import type { DurableContext } from '../durable'
import type { CallSuspension } from '../suspend/call-types'
import { childContext, durableCallOf } from './durable'

/**
 * The execution view. `signal` is writable only while the `tools/execute` stage runs; the call's
 * identity and arguments are read-only at run time too (accessors whose setters throw, see
 * {@link READ_ONLY_FIELDS}), so no listener can make the body run something other than what was
 * validated and logged.
 */
export class Execution implements ToolExecution {
  /**
   * The call's state in the pipeline: its identity (`call`), and what only the pipeline may set
   * or read (whether the signal may be replaced, the attached contexts, the annotations), kept
   * there rather than on the view so that the view has no own state to show (`Object.keys(exec)`
   * is `[]`) or to assign.
   */
  readonly #state: CallState
  readonly #arguments: Readonly<JsonObject>
  readonly #definition: AnyToolDefinition
  #signal: AbortSignal
  /** Created on first read: most calls never need one (a `Symbol()` per call costs ~5 % of a trivial call). */
  #token: symbol | undefined
  /** The runner's context: `scope`, `agent`, `log`, `parent` and `batchId` are read from it (the same for every call of the runner; fewer fields to set per call). */
  readonly #run: RunContext
  /** Created on the first delivered report; `null` once closed. */
  #progress: ProgressChannel | null | undefined

  constructor(state: CallState, args: Readonly<JsonObject>, definition: AnyToolDefinition, run: RunContext) {
    this.#state = state
    this.#arguments = args
    this.#definition = definition
    this.#signal = run.signal
    this.#token = undefined
    this.#run = run
  }

  /**
   * The name the library's texts give the tool of the call `view` shows: its registry name
   * through the runner's name map (`shown-name.ts`). A Standard Schema tool's own argument and
   * output checks, which run inside the body, name the tool with it. `undefined` for a view the
   * pipeline did not make (a test calling a definition's `execute` with an object of its own).
   */
  static shownName(view: ToolExecution): string | undefined {
    const exec = view instanceof SignalView ? SignalView.executionOf(view) : view
    return exec instanceof Execution ? exec.#shown() : undefined
  }

  /**
   * The name this view's own texts give the tool (its misuse's `TypeError`s, which reach the
   * model when the body, listener or wrapper lets them through): {@link Execution.shownName}.
   */
  #shown(): string {
    return shownName(this.#state.call.name, this.#run)
  }

  get callId(): string {
    return this.#state.call.callId
  }
  get name(): string {
    return this.#state.call.name
  }
  get arguments(): Readonly<JsonObject> {
    return this.#arguments
  }
  get rawArguments(): string | JsonValue {
    return this.#state.call.arguments
  }
  get definition(): AnyToolDefinition {
    return this.#definition
  }
  get scope(): Scope {
    return this.#run.scope
  }
  get agent(): Agent | undefined {
    return this.#run.agent
  }
  get log(): SessionLog | undefined {
    return this.#run.log
  }
  get parent(): ToolExecution | undefined {
    return this.#run.parent
  }
  get batchId(): string | undefined {
    return this.#run.batchId
  }

  get token(): symbol {
    return (this.#token ??= Symbol(this.callId))
  }

  get idempotencyKey(): string | undefined {
    return this.#run.durable === undefined ? undefined : durableCallOf(this.#state, this.#run).key
  }

  get durableStartedAt(): number | undefined {
    return this.#run.durable === undefined ? undefined : durableCallOf(this.#state, this.#run).startedAt
  }

  get suspension(): CallSuspension | undefined {
    return this.#run.suspend?.callSuspension(this.#state)
  }

  /** The durable context a runner created with `parent: view` inherits (`undefined` outside a durable batch or for a foreign view). */
  static durableChildOf(view: ToolExecution): DurableContext | undefined {
    const exec = view instanceof SignalView ? SignalView.executionOf(view) : view
    if (!(exec instanceof Execution)) return undefined
    const durable = exec.#run.durable
    return durable === undefined ? undefined : childContext(durable, durableCallOf(exec.#state, exec.#run).key)
  }

  reportProgress(update: ToolProgress): void {
    const problem = progressProblem(update)
    if (problem !== undefined) throw new TypeError(`reportProgress on "${this.#shown()}"${problem}`)
    let channel = this.#progress
    if (channel === null) return
    if (channel === undefined) {
      const run = this.#run
      if (run.hooks.progress.length === 0) return
      channel = this.#progress = new ProgressChannel(this, {
        listeners: run.hooks.progress as readonly ((event: ToolProgressEvent) => unknown)[],
        intervalMs: run.host.config.progressIntervalMs,
        report: (error) => run.host.report('tools/progress', error),
      })
    }
    channel.report(update)
  }

  annotate(key: string, value: JsonValue): void {
    if (typeof key !== 'string' || key === '') throw new TypeError(`annotate on "${this.#shown()}" takes a non-empty string key, got ${typeof key === 'string' ? 'an empty string' : typeLabel(key)}`)
    const snap = snapshotJson(value)
    if (!snap.ok) throw new TypeError(`annotate("${key}") on "${this.#shown()}": ${describeProblem(snap.problem)}`)
    ;(this.#state.annotations ??= new Map()).set(key, snap.value)
  }

  /** Delivers a pending progress update and ignores later reports (the body settled). */
  closeProgress(): void {
    this.#progress?.close()
    this.#progress = null
  }

  get signal(): AbortSignal {
    return this.#signal
  }

  attachContext(context: ResultContext): void {
    if (!isContext(context)) throw new TypeError(`attachContext on "${this.#shown()}" takes { source: string, content: ContentBlock[] }`)
    ;(this.#state.attached ??= []).push(freezeContext(context))
  }

  set signal(value: AbortSignal) {
    if (!this.#state.writable) throw signalReadOnly(this.#shown())
    if (!(value instanceof AbortSignal)) throw new TypeError(`exec.signal of "${this.#shown()}" must be an AbortSignal`)
    this.#signal = value
  }
}

/** The fields of an execution view that no listener, wrapper or body may replace. */
const READ_ONLY_FIELDS = ['callId', 'name', 'arguments', 'rawArguments', 'definition', 'scope', 'agent', 'log', 'parent', 'batchId', 'idempotencyKey', 'durableStartedAt', 'suspension'] as const

/**
 * Gives each of {@link READ_ONLY_FIELDS} on `proto` (a class that declares their getters) a setter
 * that throws a `TypeError` naming the field and the tool: the listener that assigns one fails
 * (pre-execute fails closed, a wrapper fails the call) instead of the assignment being ignored.
 */
function throwOnAssignment(proto: ToolExecution): void {
  for (const field of READ_ONLY_FIELDS) {
    const get = Object.getOwnPropertyDescriptor(proto, field)?.get
    if (get === undefined) throw new Error(`execution view without a getter for ${field}`)
    Object.defineProperty(proto, field, {
      get,
      set(this: ToolExecution) {
        throw new TypeError(`exec.${field} of "${Execution.shownName(this) ?? this.name}" cannot be replaced (only exec.signal can, inside a tools/execute wrapper)`)
      },
      enumerable: false,
      configurable: true,
    })
  }
}

/** The error of assigning `exec.signal` outside a `tools/execute` wrapper. */
function signalReadOnly(name: string): TypeError {
  return new TypeError(`exec.signal of "${name}" can only be replaced inside a tools/execute wrapper`)
}

/**
 * The body's view of an {@link Execution} whose signal a wrapper replaced (a deadline): the
 * fused signal, every other field read through to the execution, and each field read-only with
 * the execution's texts (the body cannot replace its signal either).
 */
export class SignalView implements ToolExecution {
  readonly #exec: Execution
  readonly #signal: AbortSignal

  constructor(exec: Execution, signal: AbortSignal) {
    this.#exec = exec
    this.#signal = signal
    Object.freeze(this)
  }

  /** The execution `view` reads through to. */
  static executionOf(view: SignalView): Execution {
    return view.#exec
  }

  get callId(): string {
    return this.#exec.callId
  }
  get token(): symbol {
    return this.#exec.token
  }
  get name(): string {
    return this.#exec.name
  }
  get arguments(): Readonly<JsonObject> {
    return this.#exec.arguments
  }
  get rawArguments(): string | JsonValue {
    return this.#exec.rawArguments
  }
  get definition(): AnyToolDefinition {
    return this.#exec.definition
  }
  get scope(): Scope {
    return this.#exec.scope
  }
  get agent(): Agent | undefined {
    return this.#exec.agent
  }
  get log(): SessionLog | undefined {
    return this.#exec.log
  }
  get parent(): ToolExecution | undefined {
    return this.#exec.parent
  }
  get batchId(): string | undefined {
    return this.#exec.batchId
  }
  get idempotencyKey(): string | undefined {
    return this.#exec.idempotencyKey
  }
  get durableStartedAt(): number | undefined {
    return this.#exec.durableStartedAt
  }
  get suspension(): CallSuspension | undefined {
    return this.#exec.suspension
  }
  get signal(): AbortSignal {
    return this.#signal
  }
  set signal(_: AbortSignal) {
    throw signalReadOnly(Execution.shownName(this.#exec)!)
  }

  attachContext(context: ResultContext): void {
    this.#exec.attachContext(context)
  }

  reportProgress(update: ToolProgress): void {
    this.#exec.reportProgress(update)
  }

  annotate(key: string, value: JsonValue): void {
    this.#exec.annotate(key, value)
  }
}

throwOnAssignment(Execution.prototype)
throwOnAssignment(SignalView.prototype)

/** `RunnerOptions.durable` of a runner created with `parent` and no context of its own: the parent call's, keyed by its call key. */
export function inheritedDurable(parent: ToolExecution | undefined): DurableContext | undefined {
  return parent === undefined ? undefined : Execution.durableChildOf(parent)
}
