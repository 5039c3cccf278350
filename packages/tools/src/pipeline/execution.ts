/**
 * The execution view a call's listeners, wrappers and body see (`ToolExecution`), with its
 * progress channel, annotations and attached contexts (internal).
 */
import type { AnyToolDefinition, JsonObject, JsonValue, RawToolCall, ResultContext, Scope, SessionLog, Agent, ToolExecution } from '../contracts'
import { typeLabel } from '../errors'
import { snapshotJson } from '../json'
import { checkProgress, ProgressChannel, type ToolProgress, type ToolProgressEvent } from '../progress'
import { describeProblem } from './drafts'
import { freezeContext, isContext } from './frozen-content'
import type { RunContext } from './types'

/**
 * The execution view. `signal` is writable only while the `tools/execute` stage runs; the call's
 * identity and arguments are read-only at run time too (accessors whose setters throw), so no
 * listener can make the body run something other than what was validated and logged.
 */
export class Execution implements ToolExecution {
  readonly #callId: string
  readonly #name: string
  readonly #arguments: Readonly<JsonObject>
  readonly #rawArguments: string | JsonValue
  readonly #definition: AnyToolDefinition
  #signal: AbortSignal
  /** Created on first read: most calls never need one (a `Symbol()` per call costs ~5 % of a trivial call). */
  #token: symbol | undefined
  /** The runner's context: `scope`, `agent`, `log`, `parent` and `batchId` are read from it (the same for every call of the runner; fewer fields to set per call). */
  readonly #run: RunContext
  /** Created on the first delivered report; `null` once closed. */
  #progress: ProgressChannel | null | undefined
  /** Set by the pipeline around the `tools/execute` stage. */
  writable = false
  /** Contexts the body attached. */
  attached: ResultContext[] | undefined
  /** What `annotate` recorded (read once, when the result is built). */
  annotations: Map<string, JsonValue> | undefined

  constructor(call: RawToolCall, args: Readonly<JsonObject>, definition: AnyToolDefinition, run: RunContext) {
    this.#callId = call.callId
    this.#name = call.name
    this.#arguments = args
    this.#rawArguments = call.arguments
    this.#definition = definition
    this.#signal = run.signal
    this.#token = undefined
    this.#run = run
  }

  get callId(): string {
    return this.#callId
  }
  set callId(_: string) {
    this.#readOnly('callId')
  }
  get name(): string {
    return this.#name
  }
  set name(_: string) {
    this.#readOnly('name')
  }
  get arguments(): Readonly<JsonObject> {
    return this.#arguments
  }
  set arguments(_: Readonly<JsonObject>) {
    this.#readOnly('arguments')
  }
  get rawArguments(): string | JsonValue {
    return this.#rawArguments
  }
  set rawArguments(_: string | JsonValue) {
    this.#readOnly('rawArguments')
  }
  get definition(): AnyToolDefinition {
    return this.#definition
  }
  set definition(_: AnyToolDefinition) {
    this.#readOnly('definition')
  }
  get scope(): Scope {
    return this.#run.scope
  }
  set scope(_: Scope) {
    this.#readOnly('scope')
  }
  get agent(): Agent | undefined {
    return this.#run.agent
  }
  set agent(_: Agent | undefined) {
    this.#readOnly('agent')
  }
  get log(): SessionLog | undefined {
    return this.#run.log
  }
  set log(_: SessionLog | undefined) {
    this.#readOnly('log')
  }
  get parent(): ToolExecution | undefined {
    return this.#run.parent
  }
  set parent(_: ToolExecution | undefined) {
    this.#readOnly('parent')
  }
  get batchId(): string | undefined {
    return this.#run.batchId
  }
  set batchId(_: string | undefined) {
    this.#readOnly('batchId')
  }

  /** A listener tried to replace a read-only field: the listener fails (pre-execute fails closed, a wrapper fails the call). */
  #readOnly(field: string): never {
    throw readOnlyField(field, this.#name)
  }

  get token(): symbol {
    return (this.#token ??= Symbol(this.callId))
  }

  reportProgress(update: ToolProgress): void {
    const checked = checkProgress(this.name, update)
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
    channel.report(checked)
  }

  annotate(key: string, value: JsonValue): void {
    if (typeof key !== 'string' || key === '') throw new TypeError(`annotate on "${this.name}" takes a non-empty string key, got ${typeof key === 'string' ? 'an empty string' : typeLabel(key)}`)
    const snap = snapshotJson(value)
    if (!snap.ok) throw new TypeError(`annotate("${key}") on "${this.name}": ${describeProblem(snap.problem)}`)
    ;(this.annotations ??= new Map()).set(key, snap.value)
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
    if (!isContext(context)) throw new TypeError(`attachContext on "${this.name}" takes { source: string, content: ContentBlock[] }`)
    ;(this.attached ??= []).push(freezeContext(context))
  }

  set signal(value: AbortSignal) {
    if (!this.writable) throw signalReadOnly(this.name)
    if (!(value instanceof AbortSignal)) throw new TypeError(`exec.signal of "${this.name}" must be an AbortSignal`)
    this.#signal = value
  }
}

/** The error of assigning a read-only field of an execution view. */
function readOnlyField(field: string, name: string): TypeError {
  return new TypeError(`exec.${field} of "${name}" cannot be replaced (only exec.signal can, inside a tools/execute wrapper)`)
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

  get callId(): string {
    return this.#exec.callId
  }
  set callId(_: string) {
    throw readOnlyField('callId', this.#exec.name)
  }
  get token(): symbol {
    return this.#exec.token
  }
  get name(): string {
    return this.#exec.name
  }
  set name(_: string) {
    throw readOnlyField('name', this.#exec.name)
  }
  get arguments(): Readonly<JsonObject> {
    return this.#exec.arguments
  }
  set arguments(_: Readonly<JsonObject>) {
    throw readOnlyField('arguments', this.#exec.name)
  }
  get rawArguments(): string | JsonValue {
    return this.#exec.rawArguments
  }
  set rawArguments(_: string | JsonValue) {
    throw readOnlyField('rawArguments', this.#exec.name)
  }
  get definition(): AnyToolDefinition {
    return this.#exec.definition
  }
  set definition(_: AnyToolDefinition) {
    throw readOnlyField('definition', this.#exec.name)
  }
  get scope(): Scope {
    return this.#exec.scope
  }
  set scope(_: Scope) {
    throw readOnlyField('scope', this.#exec.name)
  }
  get agent(): Agent | undefined {
    return this.#exec.agent
  }
  set agent(_: Agent | undefined) {
    throw readOnlyField('agent', this.#exec.name)
  }
  get log(): SessionLog | undefined {
    return this.#exec.log
  }
  set log(_: SessionLog | undefined) {
    throw readOnlyField('log', this.#exec.name)
  }
  get parent(): ToolExecution | undefined {
    return this.#exec.parent
  }
  set parent(_: ToolExecution | undefined) {
    throw readOnlyField('parent', this.#exec.name)
  }
  get batchId(): string | undefined {
    return this.#exec.batchId
  }
  set batchId(_: string | undefined) {
    throw readOnlyField('batchId', this.#exec.name)
  }
  get signal(): AbortSignal {
    return this.#signal
  }
  set signal(_: AbortSignal) {
    throw signalReadOnly(this.#exec.name)
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
