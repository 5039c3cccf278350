/**
 * The `ToolRegistry` class (docs/design.md, "Scopes" and "The registry"): its state (layers by
 * scope, the visible-set cache, cordis' listener table, the pipeline host), registration (a
 * group's swaps are `group.ts`), restrictions, guards, listeners, approvals, executor mounts,
 * `resolve`, inspection, the execution lookup and hooks, `describe` and `execute`.
 */
import { Context, Service, symbols } from 'cordis'
import type {
  ActivationInput,
  Agent,
  AnyToolDefinition,
  ApprovalService,
  Scope,
  SessionLog,
  ToolGuard,
  ToolResult,
  ToolSchema,
} from '../contracts'
import type { ExecutorBatch, ExecutorDescription, ResolvedToolSet, RunnerOptions, ToolBatch, ToolExecutor, ToolPipeline, CallRunner } from '../executor'
import type { ToolBatchEvent, ToolChange, ToolEvents } from '../events'
import { assertSupportedCordis } from '../cordis-check'
import { NoExecutorError, ToolActivationError, ToolRegistrationError, typeLabel } from '../errors'
import { FoundTool } from '../found-tool'
import { createRunner } from '../batch'
import { warmUpPipeline } from '../warm-up'
import { ownBatchSignal, WATCH_MIN_CALLS } from '../abort-watch'
import { emitScoped, isWithin, scopeChain, scopeOf } from '../scope'
import type { Listener, PipelineConfig, PipelineHost, StageHooks } from '../pipeline'
import '../events'
import { StreamBatch, type StreamBatchInput } from './stream-batch'
import type { Disposer, RegisterOptions, ResolveInput, ScopeRef, ToolFilter, ToolGroup, ToolRegistryConfig } from './types'
import { maskOf, visibleByName, type Layer, type Registration, type Visible } from './layers'
import { NON_ASCII, type toolNameProblem } from './names'
import { validateConfig } from './config'
import { validateDefinition } from './definition'
import { addListener, type EventHooks } from './event-hooks'
import { fiberName, isAgent, serviceOf } from './caller'
import { ToolSet } from './tool-set'
import { BatchSuspendControl } from '../suspend/control'
import { checkDecision, escapePointer, type createSuspension, type Suspension } from '../suspend/suspension'
import { SuspensionError, type BatchOutcome, type ResumeDecision, type StatePayload, type SuspendedState } from '../suspend/types'
import { duplicateNameError, registerToolGroup, type GroupHost } from './group'
import { applyBatchBudget } from '../budget/apply'

const NEVER_ABORTED = new AbortController().signal

/** Where `executeSuspendable` and `resume` hand `execute` their control (not a public field of `ToolBatch`). */
const SUSPEND: unique symbol = Symbol('suspend')

/** What {@link ToolRegistry.resume} takes. */
export interface ResumeOptions {
  /** The state a suspended outcome returned (the object, or its JSON text). */
  readonly state: SuspendedState | string
  /** Decisions by call id for pending calls (partial decisions leave the rest pending). */
  readonly decisions?: Readonly<Record<string, ResumeDecision>>
  /** The deployment's signing keys and ledger ({@link createSuspension}); the state must verify under one of its keys. */
  readonly suspension: Suspension
  /** As for `execute`: the agent whose scope the state must belong to (else the tool set's, else the caller's scope). */
  readonly agent?: Agent
  /** Receives the resumed calls' `tool/result` events (their `tool/call` events were logged by the first run). */
  readonly log?: SessionLog
  /** As for `execute`. */
  readonly toolSet?: ResolvedToolSet
  /** The caller's abort signal for the resumed calls. */
  readonly signal?: AbortSignal
  /** As for `execute` (`ToolNameMap`). */
  readonly nameMap?: ToolBatch['nameMap']
}

function checkSuspension(value: unknown, method: string): Suspension {
  if (value === null || typeof value !== 'object' || typeof (value as Suspension).open !== 'function' || typeof (value as Suspension).sign !== 'function') {
    throw new TypeError(`ctx.tools.${method}(): suspension must come from createSuspension(), got ${typeLabel(value)}`)
  }
  return value as Suspension
}

/** The caller's decisions, checked against the state's pending calls (errors name `/decisions/<id>`). */
function checkDecisions(decisions: unknown, payload: StatePayload): Readonly<Record<string, ResumeDecision>> {
  if (decisions === undefined) return {}
  if (decisions === null || typeof decisions !== 'object' || Array.isArray(decisions)) throw new SuspensionError('DECISION_INVALID', '/decisions', `expected an object of call id → decision, got ${typeLabel(decisions)}`)
  // A call whose body suspended is decided through its sub-calls (`<call id>:code:<k>`), not itself.
  const pending = new Set(payload.calls.flatMap((c) => (c.status === 'completed' ? [] : c.subCalls === undefined ? [c.callId] : c.subCalls.map((s) => s.callId))))
  for (const [id, decision] of Object.entries(decisions)) {
    const at = `/decisions/${escapePointer(id)}`
    if (!pending.has(id)) throw new SuspensionError('DECISION_INVALID', at, `no pending call of this state has id ${JSON.stringify(id)} (pending: ${[...pending].join(', ') || 'none'})`)
    checkDecision(decision, at, 'DECISION_INVALID')
  }
  return decisions as Readonly<Record<string, ResumeDecision>>
}

/**
 * The tool registry (`ctx.tools`). Mount it with `ctx.plugin(ToolRegistry, config?)`.
 *
 * Errors: registration-time problems throw {@link ToolRegistrationError} (naming the tool and
 * the JSON pointer); `resolve` rejects with {@link ToolActivationError}
 * (`TOOL_ACTIVATION_FAILED`); `execute` rejects and `describe` throws with {@link NoExecutorError}
 * (`NO_EXECUTOR`) while no executor is mounted for the scope. Tool, policy and argument
 * failures never reject: they are results. Construction (plugin start) throws a `RangeError`
 * (`tools config: <field> must be …, got …`) for an invalid {@link ToolRegistryConfig} field,
 * and for an unknown key (`tools config: /<key> is not a known option (expected …)`), and a
 * `CordisVersionError` (`UNSUPPORTED_CORDIS`) outside cordis `>=4.0.0-rc.10 <5`
 * ({@link assertSupportedCordis}).
 */
export class ToolRegistry extends Service {
  /** The root context the service was created on (the tracked `ctx` is the caller's). */
  protected readonly _root: Context
  protected readonly _layers = new Map<Scope, Layer>()
  protected readonly _visible = new WeakMap<Scope, Visible>()
  protected _version = 0
  protected _seq = 0
  protected _batchSeq = 0
  /**
   * cordis' listener table (`_hooks` of the events service: one object for the context's
   * lifetime, its lists changed in place), read once: every `ctx.events` access builds a
   * tracing proxy.
   */
  protected readonly _eventHooks: EventHooks
  protected readonly _config: PipelineConfig
  protected readonly _host: PipelineHost
  /** The shared pipeline handed to executors. */
  readonly pipeline: ToolPipeline
  /** What a tool group (`group.ts`) uses of the registry. */
  protected readonly _groupHost: GroupHost

  constructor(ctx: Context, config?: ToolRegistryConfig) {
    // Before cordis' `Service` constructor: under cordis 3 it would run and leave `ctx.tools` unset.
    assertSupportedCordis(ctx, 'ToolRegistry')
    super(ctx, 'tools')
    // Methods reached through cordis' per-caller proxy (`ctx.tools.x`) run with the proxy as
    // `this`, whose `ctx` is the caller's context. Without `noShadow` (what cordis' own services
    // set) every such access also built a shadow context (`ctx.extend`) and two more proxies,
    // for the same `this.ctx`: about 4 % of a one-call step's instructions.
    ;(this as unknown as { readonly [key: symbol]: { noShadow?: boolean } })[symbols.tracker]!.noShadow = true
    this._root = ctx
    this._eventHooks = ctx.events._hooks as EventHooks
    this._config = validateConfig(config)
    const self = this
    this._host = {
      config: this._config,
      lookup: (name, scope, toolSet) => self._lookup(name, scope, toolSet),
      // A data field the registry updates on every change (`_bump`): the pipeline reads it per call.
      version: 0,
      hooks: (scope) => self._hooks(scope),
      report: (stage, error) => {
        try {
          self._root.logger('tools').warn(`${stage} failed: %s`, error instanceof Error ? error.stack ?? error.message : String(error))
        } catch {
          // Reporting must never disturb a batch.
        }
      },
    }
    this._groupHost = {
      layer: (scope) => self._layer(scope),
      validate: (definition) => self._validateDefinition(definition),
      nextSeq: () => self._seq++,
      bump: () => self._bump(),
      emitChange: (change) => self._emitChange(change),
      report: (stage, error) => self._host.report(stage, error),
    }
    this.pipeline = Object.freeze({
      runBatch: (batch: ExecutorBatch, options?: { maxParallel?: number; admit?: RunnerOptions['admit']; local?: RunnerOptions['local'] }) => self._runBatch(batch, options),
      createRunner: (options: RunnerOptions): CallRunner => createRunner(self._host, options),
      warmUp: (): Promise<void> => warmUpPipeline(self._config),
    })
  }

  /** The pipeline configuration in force (validated, frozen). */
  get config(): PipelineConfig {
    return this._config
  }

  // ---------------------------------------------------------------- layers and visibility

  protected _layer(scope: Scope): Layer {
    let layer = this._layers.get(scope)
    if (layer === undefined) {
      layer = { byName: new Map(), masks: [], guards: [], executors: [], approvals: [] }
      this._layers.set(scope, layer)
    }
    return layer
  }

  protected _scope(ref?: ScopeRef): Scope {
    if (ref === undefined) return scopeOf(this.ctx)
    if (Context.is(ref)) return scopeOf(ref)
    return isAgent(ref) ? ref.scope : ref
  }

  /** The registrations `scope` sees, nearest layer first on a clash, in registration order. Cached per version. */
  protected _visibleFor(scope: Scope): Visible {
    const cached = this._visible.get(scope)
    if (cached !== undefined && cached.version === this._version) return cached
    const byName = visibleByName(this._layers, scopeChain(scope), this._host.report)
    const list = [...byName.values()].sort((a, b) => a.seq - b.seq)
    const visible: Visible = { version: this._version, list, byName }
    this._visible.set(scope, visible)
    return visible
  }

  protected _emitChange(change: ToolChange): void {
    this._root.emit('tools/change', change)
  }

  // ---------------------------------------------------------------- registration

  /**
   * Registers a tool in the caller's scope; disposed with the caller's fiber.
   *
   * @throws ToolRegistrationError for an invalid name (see {@link toolNameProblem}) or reserved
   *   name, a duplicate name in the same scope (naming both owners — bug case B14), a schema ajv
   *   cannot accept or one nested deeper than `MAX_JSON_DEPTH` (with the JSON pointer), a missing output declaration, an invalid `timeoutMs`, or a throwing
   *   `tools/change` listener (the registration is rolled back).
   */
  register(definition: AnyToolDefinition, options?: RegisterOptions): Disposer {
    const ctx = this.ctx
    const scope = scopeOf(ctx)
    const schema = this._validateDefinition(definition)
    const when = options?.when
    if (when !== undefined && typeof when !== 'function') throw new ToolRegistrationError(`Cannot register tool "${definition.name}": options.when must be a function`, { toolName: definition.name })
    const owner = fiberName(ctx)
    const name = definition.name
    return ctx.effect(() => {
      const layer = this._layer(scope)
      const existing = layer.byName.get(name)
      if (existing !== undefined) throw duplicateNameError(name, scope, existing.owner, owner)
      const reg: Registration = { definition, schema, scope, when, owner, seq: this._seq++, found: new FoundTool(definition, schema.parameters) }
      layer.byName.set(name, reg)
      this._bump()
      try {
        this._emitChange({ type: 'register', scope, name })
      } catch (error) {
        layer.byName.delete(name)
        this._bump()
        throw error
      }
      return () => {
        if (layer.byName.get(name) !== reg) return
        layer.byName.delete(name)
        this._bump()
        try {
          this._emitChange({ type: 'unregister', scope, name })
        } catch (error) {
          this._host.report('tools/change', error)
        }
      }
    }, `ctx.tools.register(${JSON.stringify(name)})`) as Disposer
  }

  /**
   * Registers `definitions` in the caller's scope as one group, with one `tools/change`
   * `{ type: 'replace' }`; disposed with the caller's fiber. See {@link ToolGroup} for swaps.
   *
   * @throws ToolRegistrationError as {@link ToolGroup.replace} does; nothing is registered then.
   */
  registerGroup(definitions: readonly AnyToolDefinition[]): ToolGroup {
    const ctx = this.ctx
    return registerToolGroup(serviceOf(this)._groupHost, ctx, scopeOf(ctx), fiberName(ctx), definitions)
  }

  protected _validateDefinition(definition: AnyToolDefinition): ToolSchema {
    return validateDefinition(definition, this._config.unknownKeys)
  }

  /**
   * Masks the tools the caller's scope inherits (docs/design.md, "Scopes"). Lifted when disposed.
   *
   * @throws ToolRegistrationError for a malformed filter or a throwing `tools/change` listener (rolled back).
   */
  restrict(filter: ToolFilter): Disposer {
    const ctx = this.ctx
    const scope = scopeOf(ctx)
    const mask = maskOf(filter)
    return ctx.effect(() => {
      const layer = this._layer(scope)
      layer.masks.push(mask)
      this._bump()
      try {
        this._emitChange({ type: 'restrict', scope })
      } catch (error) {
        layer.masks.splice(layer.masks.indexOf(mask), 1)
        this._bump()
        throw error
      }
      return () => {
        const i = layer.masks.indexOf(mask)
        if (i === -1) return
        layer.masks.splice(i, 1)
        this._bump()
        try {
          this._emitChange({ type: 'unrestrict', scope })
        } catch (error) {
          this._host.report('tools/change', error)
        }
      }
    }, 'ctx.tools.restrict()') as Disposer
  }

  /**
   * Registers a monotonic synchronous guard for calls in the caller's scope and below. It runs
   * after `tools/pre-execute`; a returned string denies (`TOOL_DENIED`) and nothing later can
   * re-allow. A throwing guard denies too (fail closed).
   *
   * @throws ToolRegistrationError when `guard` is not a function.
   */
  guard(guard: ToolGuard): Disposer {
    if (typeof guard !== 'function') throw new ToolRegistrationError('guard() takes a function (exec) => string | undefined')
    return this._push(this.ctx, 'guards', guard, 'ctx.tools.guard()')
  }

  /**
   * Registers a listener for one of the pipeline's events ({@link ToolEvents}): the same as
   * `ctx.on(name, listener, { prepend })` — the listener joins cordis' own listener list for
   * `name`, in registration order (first with `prepend`), is scope-filtered by the registering
   * context, and is removed when that context's fiber is disposed or the returned disposer is
   * called — but called without cordis' argument tracing. `ctx.on` wraps every listener in a
   * proxy that re-traces `this` and each argument through the caller's context on every call
   * (about 0.5 µs per listener call on Node 20, `docs/benchmarks.md`); the pipeline's arguments
   * (`exec`, `next`, results, events) are not cordis contexts or services, so tracing changes
   * nothing for them. Use it for listeners on the per-call path (`tools/pre-execute`,
   * `tools/execute`, `tools/post-execute`, `tools/result`); the policy plugins of this project do.
   *
   * @param name one of the `tools/*` events of {@link ToolEvents}.
   * @param options `prepend: true` (or `true`, as `ctx.on` takes it) puts the listener before the ones already registered.
   * @returns a disposer that removes the listener (like the one `ctx.tools.guard` returns).
   * @throws ToolRegistrationError when `name` is not a `tools/*` event or `listener` is not a function.
   */
  on<K extends keyof ToolEvents>(name: K, listener: ToolEvents[K], options: boolean | { readonly prepend?: boolean } = {}): Disposer {
    return addListener(this.ctx, this._eventHooks, name, listener, options)
  }

  /**
   * Provides the approval service consulted for `ask` decisions in the caller's scope and below
   * (nearest wins). Without one, an `ask` denies the call (`TOOL_DENIED`); a rejected approval
   * or a throwing `request` denies it too.
   *
   * @throws ToolRegistrationError when `service` is not an object with a `request` function.
   */
  approval(service: ApprovalService): Disposer {
    if (service === null || typeof service !== 'object' || typeof service.request !== 'function') throw new ToolRegistrationError('approval() takes an object with request(request) => Promise<ApprovalDecision>')
    return this._push(this.ctx, 'approvals', service, 'ctx.tools.approval()')
  }

  /**
   * Mounts an executor in the caller's scope (docs/design.md, "The registry"). The nearest
   * scope's executor serves a batch; mounting does not emit `tools/change`.
   *
   * @throws ToolRegistrationError when the scope already has an executor.
   */
  mount(executor: ToolExecutor): Disposer {
    const ctx = this.ctx
    const scope = scopeOf(ctx)
    if (executor === null || typeof executor !== 'object' || typeof executor.describe !== 'function' || typeof executor.execute !== 'function') {
      throw new ToolRegistrationError('mount() takes an executor { name, describe(input), execute(batch) }')
    }
    const existing = this._layers.get(scope)?.executors[0]
    if (existing !== undefined) throw new ToolRegistrationError(`Cannot mount executor "${executor.name}" in scope "${scope.id}": executor "${existing.name}" is already mounted there`)
    return ctx.effect(() => {
      const layer = this._layer(scope)
      if (layer.executors.length > 0) throw new ToolRegistrationError(`Cannot mount executor "${executor.name}" in scope "${scope.id}": executor "${layer.executors[0]!.name}" is already mounted there`)
      layer.executors.push(executor)
      return async () => {
        const i = layer.executors.indexOf(executor)
        if (i !== -1) layer.executors.splice(i, 1)
        await executor.dispose?.()
      }
    }, `ctx.tools.mount(${JSON.stringify(executor.name)})`) as Disposer
  }

  protected _push<K extends 'guards' | 'approvals'>(ctx: Context, key: K, item: Layer[K][number], label: string): Disposer {
    const scope = scopeOf(ctx)
    return ctx.effect(() => {
      const list = this._layer(scope)[key] as unknown[]
      list.push(item)
      return () => {
        const i = list.indexOf(item)
        if (i !== -1) list.splice(i, 1)
      }
    }, label) as Disposer
  }

  /** The executor serving `scope` (nearest mount), if any. */
  executor(scope?: ScopeRef): ToolExecutor | undefined {
    for (const s of scopeChain(this._scope(scope))) {
      const e = this._layers.get(s)?.executors[0]
      if (e !== undefined) return e
    }
    return undefined
  }

  // ---------------------------------------------------------------- resolution and inspection

  /**
   * Resolves the step's admitted tool set (docs/design.md, "The registry"): each visible
   * conditional tool's `when` runs once, concurrently, with `{ agent, modelSelection, signal }`.
   *
   * @throws ToolActivationError (`TOOL_ACTIVATION_FAILED`) when a condition throws; the
   *   signal's reason when it is aborted.
   */
  async resolve(input: ResolveInput = {}): Promise<ResolvedToolSet> {
    const scope = input.agent?.scope ?? scopeOf(this.ctx)
    const self = serviceOf(this)
    const signal = input.signal ?? NEVER_ABORTED
    if (signal.aborted) throw signal.reason
    const visible = self._visibleFor(scope)
    const activation: ActivationInput = { signal, ...(input.agent === undefined ? {} : { agent: input.agent }), ...(input.modelSelection === undefined ? {} : { modelSelection: input.modelSelection }) }
    const conditional = visible.list.filter((r) => r.when !== undefined)
    const verdicts = await Promise.all(
      conditional.map(async (reg) => {
        try {
          return { reg, ok: (await reg.when!(activation)) === true }
        } catch (error) {
          return { reg, error }
        }
      }),
    )
    if (signal.aborted) throw signal.reason
    const rejected = new Set<Registration>()
    for (const v of verdicts) {
      if ('error' in v) throw new ToolActivationError(v.reg.definition.name, v.error)
      if (!v.ok) rejected.add(v.reg)
    }
    // A set that admits every visible tool shares one read-only map per visible version
    // instead of copying thousands of entries per step (docs/benchmarks.md, "Optimisations").
    let pinned: ReadonlyMap<string, Registration>
    if (rejected.size === 0) {
      pinned = visible.allPinned ??= new Map(visible.list.map((reg) => [reg.definition.name, reg]))
    } else {
      const some = new Map<string, Registration>()
      for (const reg of visible.list) if (!rejected.has(reg)) some.set(reg.definition.name, reg)
      pinned = some
    }
    return new ToolSet(self, scope, pinned, input, visible)
  }

  /** A registration, disposal or restriction changed what scopes see: a new version, also on the pipeline's host. */
  protected _bump(): void {
    ;(this._host as { version: number }).version = ++this._version
  }

  /** @internal Whether `reg` is still the registration `scope` sees under its name. */
  _isCurrent(scope: Scope, reg: Registration): boolean {
    return this._visibleFor(scope).byName.get(reg.definition.name) === reg
  }

  /** The registrations `scope` admits: `toolSet`'s still-current pins, or without a set the visible ones but conditional tools. */
  protected _admitted(scope: Scope, toolSet: ResolvedToolSet | undefined): Registration[] {
    if (toolSet !== undefined) {
      const set = toolSet as ToolSet
      if (set.disposed) return []
      const visible = this._visibleFor(scope)
      // Nothing changed since the set was resolved and it admitted everything: every pin is current.
      if (set.visible === visible && set.pinned === visible.allPinned) return [...visible.list]
      const current = visible.byName
      return [...set.pinned.values()].filter((reg) => current.get(reg.definition.name) === reg)
    }
    const list = this._visibleFor(scope).list
    return list.filter((r) => r.when === undefined)
  }

  /** The definition `name` resolves to as `scope` sees it (without a set: registered, conditions not evaluated). */
  get(name: string, scope?: ScopeRef, toolSet?: ResolvedToolSet): AnyToolDefinition | undefined {
    const s = this._scope(scope)
    if (toolSet !== undefined) return this._admitted(s, toolSet).find((r) => r.definition.name === name)?.definition
    return this._visibleFor(s).byName.get(name)?.definition
  }

  /**
   * The definitions `scope` offers the model, in prompt order (registration order): those of
   * `toolSet`, or without a set every visible tool but the conditional ones (a conditional tool
   * is offered only through a resolved set, as in `describe` and `execute`; `get` still finds it).
   */
  definitions(scope?: ScopeRef, toolSet?: ResolvedToolSet): AnyToolDefinition[] {
    return this._admitted(this._scope(scope), toolSet).map((r) => r.definition)
  }

  /**
   * Model-facing projections `{ name, description, parameters, deferLoading? }` (frozen) of
   * {@link definitions}, same order and the same rule for conditional tools.
   */
  schemas(scope?: ScopeRef, toolSet?: ResolvedToolSet): ToolSchema[] {
    return this._admitted(this._scope(scope), toolSet).map((r) => r.schema)
  }

  /** The execution lookup: applies the set; without one, conditional tools are not executable. */
  executable(name: string, scope?: ScopeRef, toolSet?: ResolvedToolSet): AnyToolDefinition | undefined {
    const s = this._scope(scope)
    const found = this._lookup(name, s, toolSet)
    return 'definition' in found ? found.definition : undefined
  }

  protected _lookup(name: string, scope: Scope, toolSet: ResolvedToolSet | undefined): FoundTool | { available: readonly string[] } {
    const byName = this._visibleFor(scope).byName
    let current = byName.get(name)
    // Names are registered in NFC; a call naming one in another normal form finds it too.
    if (current === undefined && NON_ASCII.test(name)) {
      const nfc = name.normalize('NFC')
      if (nfc !== name) {
        name = nfc
        current = byName.get(name)
      }
    }
    if (toolSet !== undefined) {
      const set = toolSet as ToolSet
      const pinned = set.disposed ? undefined : set.pinned.get(name)
      if (pinned !== undefined && pinned === current) return pinned.found
    } else if (current !== undefined && current.when === undefined) {
      return current.found
    }
    return { available: this._admitted(scope, toolSet).map((r) => r.definition.name) }
  }

  protected _hooks(scope: Scope): StageHooks {
    const hooks = this._eventHooks
    const pick = (name: keyof ToolEvents): Listener[] => {
      const list = hooks[name]
      if (list === undefined || list.length === 0) return []
      const out: Listener[] = []
      for (const hook of list) if (isWithin(scope, scopeOf(hook.ctx))) out.push(hook.callback as Listener)
      return out
    }
    const guards: ToolGuard[] = []
    let approval: ApprovalService | undefined
    const chain = scopeChain(scope)
    for (let i = chain.length - 1; i >= 0; i--) {
      const layer = this._layers.get(chain[i]!)
      if (layer === undefined) continue
      guards.push(...layer.guards)
      if (layer.approvals.length > 0) approval = layer.approvals[layer.approvals.length - 1]
    }
    return { pre: pick('tools/pre-execute'), execute: pick('tools/execute'), post: pick('tools/post-execute'), result: pick('tools/result'), progress: pick('tools/progress'), preliminary: pick('tools/preliminary'), guards, approval }
  }

  // ---------------------------------------------------------------- describe and execute

  /**
   * What the nearest executor shows the model for the scope and set: tool schemas plus prompt
   * sections (docs/design.md, "The registry").
   *
   * @throws NoExecutorError (`NO_EXECUTOR`) when no executor is mounted.
   */
  describe(options: { readonly agent?: Agent; readonly scope?: Scope; readonly toolSet?: ResolvedToolSet } = {}): ExecutorDescription {
    const scope = options.agent?.scope ?? options.scope ?? options.toolSet?.scope ?? scopeOf(this.ctx)
    const self = serviceOf(this)
    const executor = self.executor(scope)
    if (executor === undefined) throw new NoExecutorError(scope.id, 'describe')
    const admitted = self._admitted(scope, options.toolSet)
    return executor.describe({
      scope,
      ...(options.toolSet === undefined ? {} : { toolSet: options.toolSet }),
      definitions: admitted.map((r) => r.definition),
      schemas: admitted.map((r) => r.schema),
    })
  }

  /**
   * Executes a complete raw batch through the nearest executor (docs/design.md, "The batch and the pipeline"): one frozen
   * result per call, in call order. Never rejects for tool, policy or argument failures.
   *
   * With `nameMap` (the provider names the model saw, e.g. the native package's
   * `declared.nameMap`), the library's texts name tools by those names (see `ToolNameMap`).
   *
   * @throws NoExecutorError (`NO_EXECUTOR`) when no executor is mounted for the scope;
   *   TypeError when `batch.calls` is not an array, `batch.signal` is not an AbortSignal or
   *   `batch.nameMap` has no `toWire` method (`null` and `undefined` mean none).
   */
  async execute(batch: ToolBatch): Promise<readonly ToolResult[]> {
    if (batch === null || typeof batch !== 'object' || !Array.isArray(batch.calls)) throw new TypeError('ctx.tools.execute() takes { calls: RawToolCall[], agent?, log?, toolSet?, signal?, nameMap? }')
    if (batch.signal != null && !(batch.signal instanceof AbortSignal)) throw new TypeError(`ctx.tools.execute(): signal must be an AbortSignal, got ${typeLabel(batch.signal)}`)
    const nameMap = batch.nameMap ?? undefined
    if (nameMap !== undefined && typeof (nameMap as { toWire?: unknown }).toWire !== 'function') {
      throw new TypeError(`ctx.tools.execute(): nameMap must have a toWire(name) method, got ${typeLabel(nameMap)}`)
    }
    if (batch.durable !== undefined && (batch.durable === null || typeof batch.durable.step !== 'function' || typeof batch.durable.key !== 'string')) {
      throw new TypeError(`ctx.tools.execute(): durable must be a DurableContext { engine, key: string, step(name, fn) }, got ${typeLabel(batch.durable)}`)
    }
    const scope = batch.agent?.scope ?? batch.toolSet?.scope ?? scopeOf(this.ctx)
    const self = serviceOf(this)
    const executor = self.executor(scope)
    if (executor === undefined) throw new NoExecutorError(scope.id)
    const log = batch.log ?? batch.agent?.log
    let visible: readonly AnyToolDefinition[] | undefined
    const toolSet = batch.toolSet
    const input: ExecutorBatch = {
      calls: batch.calls,
      scope,
      batchId: `batch-${++self._batchSeq}`,
      // A batch that will watch its signal gets one that needs no listener (see `ownBatchSignal`).
      signal: batch.signal ?? (batch.calls.length >= WATCH_MIN_CALLS ? ownBatchSignal() : new AbortController().signal),
      pipeline: self.pipeline,
      definitions: () => (visible ??= self._admitted(scope, toolSet).map((r) => r.definition)),
      ...(batch.agent === undefined ? {} : { agent: batch.agent }),
      ...(log === undefined ? {} : { log }),
      ...(batch.toolSet === undefined ? {} : { toolSet: batch.toolSet }),
      ...(nameMap === undefined ? {} : { nameMap }),
      ...((batch as { [SUSPEND]?: BatchSuspendControl })[SUSPEND] === undefined ? {} : { suspend: (batch as { [SUSPEND]?: BatchSuspendControl })[SUSPEND] }),
      ...(batch.durable === undefined ? {} : { durable: batch.durable }),
    }
    const hooks = self._eventHooks
    if ((hooks['tools/batch-start']?.length ?? 0) + (hooks['tools/batch-end']?.length ?? 0) > 0) return self._observedBatch(executor, input, scope)
    const results = await executor.execute(input)
    return self._withinBatchBudget(Object.isFrozen(results) ? results : Object.freeze([...results]))
  }

  /** `results` within the registry's per-batch budget (`resultBudget.batchMaxChars`; `applyBatchBudget`), or themselves without one. */
  protected _withinBatchBudget(results: readonly ToolResult[]): readonly ToolResult[] {
    const budget = this._config.resultBudget
    return budget === undefined || budget.batchMaxChars === 0 ? results : applyBatchBudget(results, budget)
  }

  /**
   * {@link execute} for a batch that may suspend (package README, "Suspension and resume"): an
   * approval service that answers `{ type: 'defer' }` leaves its call pending, and calls that
   * must not run before it (by the barrier rules) pending as blocked; every other call runs and
   * completes. Resolves with `{ status: 'complete', results }` (exactly what `execute` gives) or
   * `{ status: 'suspended', results, pending, state }`: `state` is signed JSON to keep and pass to
   * {@link resume} in any process with the same tools.
   *
   * @throws as {@link execute}; TypeError when `batch.suspension` is not a `createSuspension()` value.
   */
  async executeSuspendable(batch: ToolBatch & { readonly suspension: Suspension }): Promise<BatchOutcome> {
    const suspension = checkSuspension(batch?.suspension, 'executeSuspendable')
    const scope = batch.agent?.scope ?? batch.toolSet?.scope ?? scopeOf(this.ctx)
    const self = serviceOf(this)
    const batchId = `batch-${self._batchSeq + 1}`
    const control = new BatchSuspendControl(suspension, scope.id, batchId, undefined)
    return control.outcome(await self._executeWith(batch, control))
  }

  /**
   * Resumes a suspended batch (package README, "Suspension and resume"): verifies the state
   * (signature, key id, expiry, scope), consumes it in the resume ledger, and runs the pending
   * calls through the scope's executor — each with its frozen arguments, its `ask` answered by
   * `decisions` (else the approval service, which may defer again). Completed calls keep their
   * stored results. Resolves like {@link executeSuspendable}: complete results shaped exactly as
   * an unsuspended batch's, or still suspended with a new state (partial decisions).
   *
   * @throws SuspensionError (`code`, `pointer`) for a refused state or decision: `STATE_MALFORMED`,
   *   `STATE_VERSION_UNSUPPORTED`, `STATE_UNKNOWN_KEY`, `STATE_SIGNATURE_INVALID`, `STATE_EXPIRED`,
   *   `STATE_FOREIGN`, `STATE_REPLAYED`, `DECISION_INVALID`; nothing ran then.
   */
  async resume(input: ResumeOptions): Promise<BatchOutcome> {
    if (input === null || typeof input !== 'object') throw new TypeError('ctx.tools.resume() takes { state, decisions, suspension, agent?, log?, toolSet?, signal?, nameMap? }')
    const suspension = checkSuspension(input.suspension, 'resume')
    const scope = input.agent?.scope ?? input.toolSet?.scope ?? scopeOf(this.ctx)
    const self = serviceOf(this)
    const payload = suspension.open(input.state, scope.id)
    const decisions = checkDecisions(input.decisions, payload)
    if ((await suspension.ledger.consumeState(payload.stateId, payload.expiresAt)) !== true) {
      throw new SuspensionError('STATE_REPLAYED', '/payload/stateId', `state ${payload.stateId} was resumed before; resume the state that resume returned`)
    }
    const control = new BatchSuspendControl(suspension, scope.id, payload.batchId, { payload, decisions })
    const batch: ToolBatch = {
      calls: control.resumedCalls(),
      ...(input.agent === undefined ? {} : { agent: input.agent }),
      ...(input.log === undefined ? {} : { log: input.log }),
      ...(input.toolSet === undefined ? {} : { toolSet: input.toolSet }),
      ...(input.signal === undefined ? {} : { signal: input.signal }),
      ...(input.nameMap === undefined ? {} : { nameMap: input.nameMap }),
    }
    return control.outcome(await self._executeWith(batch, control))
  }

  /** {@link execute} with a suspension control on the executor's batch. */
  protected async _executeWith(batch: ToolBatch, control: BatchSuspendControl): Promise<readonly ToolResult[]> {
    return this.execute.call(this, { ...batch, [SUSPEND]: control } as ToolBatch)
  }

  /**
   * Opens the observer and budget side of a batch whose calls arrive while it runs (the native
   * package's `executeToolStream`, which runs the calls on `ctx.tools.pipeline.createRunner`).
   * The returned {@link StreamBatch} emits `tools/batch-start` (`streaming: true`) at its
   * `start(calls)`, and at `end(calls, results)` applies this registry's per-batch budget
   * (`resultBudget.batchMaxChars`) as `execute` does and emits `tools/batch-end` with the
   * budgeted results. Nothing runs here.
   *
   * @throws TypeError when `input.batchId` or `input.executor` is not a string.
   */
  openStreamBatch(input: StreamBatchInput): StreamBatch {
    if (input === null || typeof input !== 'object' || typeof input.batchId !== 'string' || typeof input.executor !== 'string') {
      throw new TypeError('ctx.tools.openStreamBatch() takes { batchId: string, scope, executor: string, agent? }')
    }
    const self = serviceOf(this)
    return new StreamBatch({ observe: (scope, name, args) => self._observe(scope, name, args), budget: (results) => self._withinBatchBudget(results) }, input)
  }

  /** {@link execute} with `tools/batch-start` / `tools/batch-end` observers. */
  protected async _observedBatch(executor: ToolExecutor, input: ExecutorBatch, scope: Scope): Promise<readonly ToolResult[]> {
    const event: ToolBatchEvent = Object.freeze({ batchId: input.batchId!, calls: input.calls, scope, executor: executor.name, ...(input.agent === undefined ? {} : { agent: input.agent }) })
    this._observe(scope, 'tools/batch-start', [event])
    let results = await executor.execute(input)
    results = this._withinBatchBudget(Object.isFrozen(results) ? results : Object.freeze([...results]))
    this._observe(scope, 'tools/batch-end', [event, results])
    return results
  }

  /** Calls the scope-filtered observers of `name`; each throw (or rejection) is reported, never propagated. */
  protected _observe(scope: Scope, name: 'tools/batch-start' | 'tools/batch-end', args: readonly unknown[]): void {
    emitScoped(this._root, name, scope, args, (error) => this._host.report(name, error))
  }

  protected async _runBatch(batch: ExecutorBatch, options?: { maxParallel?: number; admit?: RunnerOptions['admit']; local?: RunnerOptions['local'] }): Promise<readonly ToolResult[]> {
    const runner = createRunner(this._host, {
      scope: batch.scope,
      signal: batch.signal,
      ...(batch.batchId === undefined ? {} : { batchId: batch.batchId }),
      ...(batch.agent === undefined ? {} : { agent: batch.agent }),
      ...(batch.log === undefined ? {} : { log: batch.log }),
      ...(batch.toolSet === undefined ? {} : { toolSet: batch.toolSet }),
      ...(batch.nameMap === undefined ? {} : { nameMap: batch.nameMap }),
      ...(batch.durable === undefined ? {} : { durable: batch.durable }),
      ...(options?.maxParallel === undefined ? {} : { maxParallel: options.maxParallel }),
      ...(options?.admit === undefined ? {} : { admit: options.admit }),
      ...(options?.local === undefined ? {} : { local: options.local }),
      ...(batch.suspend === undefined ? {} : { suspend: batch.suspend }),
    })
    return Object.freeze(await runner.submitAll(batch.calls))
  }
}

declare module 'cordis' {
  interface Context {
    tools: ToolRegistry
  }
}
