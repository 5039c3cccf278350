/**
 * The scoped tool registry service at `ctx.tools` (docs/design.md, "Scopes" and
 * "The registry"). Every method that takes no explicit scope acts on the scope of the context it is
 * called through, and everything it creates is disposed with that context's fiber.
 */
import { Context, Service, symbols } from 'cordis'
import type {
  ActivationInput,
  Agent,
  AnyToolDefinition,
  ApprovalService,
  JsonSchemaNode,
  ModelSelection,
  Scope,
  ToolCondition,
  ToolGuard,
  ToolResult,
  ToolSchema,
} from './contracts'
import type { ExecutorBatch, ExecutorDescription, ResolvedToolSet, RunnerOptions, ToolBatch, ToolExecutor, ToolPipeline, CallRunner } from './executor'
import type { ToolBatchEvent, ToolChange, ToolEvents } from './events'
import { NoExecutorError, quoteText, ToolActivationError, ToolRegistrationError, typeLabel } from './errors'
import { capPointer } from './limits'
import { checkSchema } from './json-schema'
import { FoundTool } from './found-tool'
import { deepFreeze } from './json'
import { createRunner } from './batch'
import { ownBatchSignal, WATCH_MIN_CALLS } from './abort-watch'
import { emitScoped, isWithin, scopeChain, scopeOf } from './scope'
import type { Listener, PipelineConfig, PipelineHost, StageHooks } from './pipeline'
import { DEFAULT_CONTENT_LIMITS, type ContentLimits } from './content'
import type { RepairModes } from './repair'
import { closeObjects, type UnknownKeysMode } from './unknown-keys'
import { DEFAULT_PROGRESS_INTERVAL_MS } from './progress'
import './events'

/**
 * Registry configuration (the plugin's config). Every field is optional; an invalid one makes
 * plugin start throw a `RangeError` naming it (`tools config: maxArgumentBytes must be …`).
 */
export interface ToolRegistryConfig {
  /** Raw argument strings over this many UTF-8 bytes are `INVALID_ARGS` before parsing. Default 1,048,576. */
  readonly maxArgumentBytes?: number
  /** Opt-in schema-guided argument repair of objects sent as JSON strings, `null` for optional fields and numbers sent as strings (bug cases B07, B11, B12). All off by default. */
  readonly repair?: RepairModes
  /** Model-facing content caps (bug case B18: one huge result must not flood the context). Default 25,000 characters and 1,000 lines; `0` disables one. */
  readonly contentLimits?: Partial<ContentLimits>
  /**
   * Argument keys a schema does not declare. `'allow'` (default): as the schema says (JSON
   * Schema allows them unless `additionalProperties` says otherwise). `'reject'`: every object
   * of an input schema that declares `properties` and says nothing about other keys is closed
   * at registration (`additionalProperties: false` in the projection the model, the provider
   * declarations, the PTC SDK and validation all use; see `closeObjects`), so a call with an
   * unknown key is `INVALID_ARGS` naming it and the closest declared key. A schema that says
   * `additionalProperties: true` (or `closed: false` in `defineTool`) stays open.
   */
  readonly unknownKeys?: UnknownKeysMode
  /**
   * Minimum spacing of two `tools/progress` events of one call, in ms; updates in between are
   * coalesced to the latest. `0` delivers every update. Default 100 ({@link DEFAULT_PROGRESS_INTERVAL_MS}).
   */
  readonly progressIntervalMs?: number
}

/**
 * An allow or deny mask over inherited tools, or a predicate (docs/design.md, "Scopes"). Masks of a
 * scope and its ancestors intersect; a scope's own registrations are exempt from its masks.
 */
export type ToolFilter =
  | { readonly allow: readonly string[] }
  | { readonly deny: readonly string[] }
  | ((name: string, definition: AnyToolDefinition) => boolean)

/** Options of {@link ToolRegistry.register}. */
export interface RegisterOptions {
  /** A conditional tool's predicate, evaluated once per model step inside `resolve`. */
  readonly when?: ToolCondition
}

/** Input of {@link ToolRegistry.resolve}. */
export interface ResolveInput {
  /** The agent the step is for; passed to every `when` condition (and selects its scope's tools). */
  readonly agent?: Agent
  /** The model about to be called (provider, model id); passed to every `when` condition. */
  readonly modelSelection?: ModelSelection
  /** Aborts the resolution: `resolve` rejects with the signal's reason. */
  readonly signal?: AbortSignal
}

/** Where an inspection looks: a scope, an agent (its scope), a scope's context, or the caller's scope when absent. */
export type ScopeRef = Scope | Agent | Context | undefined

/** A disposer returned by effect-owned registry methods; awaitable. */
export type Disposer = () => Promise<void>

/**
 * A set of tools registered and swapped as one unit ({@link ToolRegistry.registerGroup}): a
 * bridge whose source announces a new tool list (MCP `notifications/tools/list_changed`) swaps
 * its tools without a window in which some are missing.
 */
export interface ToolGroup {
  /** The names the group holds now, in the order last given. */
  readonly names: readonly string[]
  /**
   * Swaps the group's tools for `definitions` in one step with one `tools/change`
   * `{ type: 'replace' }` (none when nothing changed). A definition identical (`===`) to the one
   * registered under its name keeps that registration, so resolved sets that pinned it keep
   * executing it; a changed definition keeps its prompt position; new names go last.
   *
   * @throws ToolRegistrationError (and leaves the group as it was) for an invalid definition, a
   *   name listed twice, a name another registration holds in the scope (naming its owner), a
   *   throwing `tools/change` listener, or a disposed group.
   */
  replace(definitions: readonly AnyToolDefinition[]): void
  /** Unregisters every tool of the group (one `tools/change`); also runs when the owning fiber is disposed. */
  dispose: Disposer
}

interface Registration {
  readonly definition: AnyToolDefinition
  readonly schema: ToolSchema
  readonly scope: Scope
  readonly when: ToolCondition | undefined
  readonly owner: string
  readonly seq: number
  /** The execution lookup's answer for this registration (one object, not one per call; it keeps the validators after first use). */
  readonly found: FoundTool
}

type Mask = (name: string, definition: AnyToolDefinition) => boolean

interface Layer {
  readonly byName: Map<string, Registration>
  readonly masks: Mask[]
  readonly guards: ToolGuard[]
  readonly executors: ToolExecutor[]
  readonly approvals: ApprovalService[]
}

interface Visible {
  readonly version: number
  readonly list: readonly Registration[]
  readonly byName: ReadonlyMap<string, Registration>
  /** `list` by name, in list order: the pins of a set that admitted every tool (built on first use). */
  allPinned?: ReadonlyMap<string, Registration>
}

/** The longest tool name, in Unicode code points. */
export const MAX_TOOL_NAME_LENGTH = 128
/** Control, lone-surrogate, line/paragraph-separator and invisible format characters (the emoji and script joiners U+200C/U+200D allowed). */
const NAME_FORBIDDEN = /(?![\u200C\u200D])[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u
const NAME_RULE_TEXT = `a tool name must be 1–${MAX_TOOL_NAME_LENGTH} Unicode characters in NFC form, without control or invisible characters and without surrounding whitespace`

/**
 * Why `name` cannot be a tool name, or `undefined` when it can: any non-empty Unicode text
 * (`search_docs`, `搜索工具`, `🔍`) of at most {@link MAX_TOOL_NAME_LENGTH} code points, in
 * NFC form, without control or invisible format characters, without leading or trailing
 * whitespace. Provider adapters map names their wire format cannot carry reversibly.
 */
export function toolNameProblem(name: string): string | undefined {
  if (name === '') return 'it is empty'
  let length = 0
  for (const _ of name) length++
  if (length > MAX_TOOL_NAME_LENGTH) return `it has ${length} characters`
  if (NAME_FORBIDDEN.test(name)) return 'it contains a control or invisible character'
  if (/^\s|\s$/u.test(name)) return 'it has whitespace around it'
  if (name.normalize('NFC') !== name) return `it is not in Unicode NFC form (register it as ${quoteText(name.normalize('NFC'))})`
  return undefined
}
/** Names the registry refuses: the PTC executor's own tool. */
export const RESERVED_TOOL_NAMES: readonly string[] = Object.freeze(['run_code'])
/** The platform's timer limit in ms (setTimeout clamps above it). */
export const MAX_TIMER_MS = 2_147_483_647

function isAgent(ref: ScopeRef): ref is Agent {
  return ref !== undefined && !Context.is(ref) && 'scope' in ref
}

function maskOf(filter: ToolFilter): Mask {
  if (typeof filter === 'function') return filter
  if (filter !== null && typeof filter === 'object') {
    if ('allow' in filter && Array.isArray(filter.allow)) {
      const allow = new Set(filter.allow)
      return (name) => allow.has(name)
    }
    if ('deny' in filter && Array.isArray(filter.deny)) {
      const deny = new Set(filter.deny)
      return (name) => !deny.has(name)
    }
  }
  throw new ToolRegistrationError('restrict() takes { allow: string[] }, { deny: string[] } or a predicate (name, definition) => boolean')
}

function validateConfig(config: ToolRegistryConfig | undefined): PipelineConfig {
  const maxArgumentBytes = config?.maxArgumentBytes ?? 1_048_576
  if (!Number.isInteger(maxArgumentBytes) || maxArgumentBytes < 2) {
    throw new RangeError(`tools config: maxArgumentBytes must be an integer of at least 2 bytes, got ${String(maxArgumentBytes)}`)
  }
  const limits = { ...DEFAULT_CONTENT_LIMITS, ...config?.contentLimits }
  for (const key of ['maxChars', 'maxLines'] as const) {
    const v = limits[key]
    if (!Number.isInteger(v) || v < 0) throw new RangeError(`tools config: contentLimits.${key} must be a non-negative integer (0 disables it), got ${String(v)}`)
  }
  const repair = { ...config?.repair }
  for (const [key, v] of Object.entries(repair)) {
    if (v !== undefined && typeof v !== 'boolean') throw new RangeError(`tools config: repair.${key} must be a boolean, got ${String(v)}`)
  }
  const unknownKeys = config?.unknownKeys ?? 'allow'
  if (unknownKeys !== 'allow' && unknownKeys !== 'reject') throw new RangeError(`tools config: unknownKeys must be "allow" or "reject", got ${JSON.stringify(unknownKeys) ?? String(unknownKeys)}`)
  const progressIntervalMs = config?.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS
  if (typeof progressIntervalMs !== 'number' || !Number.isFinite(progressIntervalMs) || progressIntervalMs < 0 || progressIntervalMs > MAX_TIMER_MS) {
    throw new RangeError(`tools config: progressIntervalMs must be a number of ms from 0 to ${MAX_TIMER_MS}, got ${String(progressIntervalMs)}`)
  }
  return Object.freeze({ maxArgumentBytes, repair: Object.freeze(repair), contentLimits: Object.freeze(limits), unknownKeys, progressIntervalMs })
}

const NEVER_ABORTED = new AbortController().signal
/** The events `ctx.tools.on` accepts (every key of {@link ToolEvents}). */
const TOOL_EVENT_NAMES: ReadonlySet<string> = new Set(Object.keys({
  'tools/pre-execute': true,
  'tools/execute': true,
  'tools/post-execute': true,
  'tools/result': true,
  'tools/progress': true,
  'tools/batch-start': true,
  'tools/batch-end': true,
  'tools/change': true,
} satisfies Record<keyof ToolEvents, true>))
const NON_ASCII = /[^\x00-\x7f]/

/** cordis' listener lists by event name (`ctx.events._hooks`). */
type EventHooks = Record<string, { ctx: Context; callback: unknown; prepend?: boolean; global?: boolean }[] | undefined>

/**
 * The registry object behind cordis' per-caller proxy (`ctx.tools`), or `registry` itself.
 * Every property read through that proxy runs its `get` trap (a prototype walk and a lookup in
 * the reflect service, which builds a tracing proxy of its own); the hot entry points
 * (`resolve`, `describe`, `execute`) take the caller's scope from the proxy, then make their
 * internal calls on the plain object (docs/benchmarks.md, "Optimisations").
 */
function serviceOf(registry: ToolRegistry): ToolRegistry {
  return (registry as unknown as { readonly [key: symbol]: ToolRegistry | undefined })[symbols.original] ?? registry
}

/**
 * The tool registry (`ctx.tools`). Mount it with `ctx.plugin(ToolRegistry, config?)`.
 *
 * Errors: registration-time problems throw {@link ToolRegistrationError} (naming the tool and
 * the JSON pointer); `resolve` rejects with {@link ToolActivationError}
 * (`TOOL_ACTIVATION_FAILED`); `execute` and `describe` reject with {@link NoExecutorError}
 * (`NO_EXECUTOR`) while no executor is mounted for the scope. Tool, policy and argument
 * failures never reject: they are results. Construction (plugin start) throws a `RangeError`
 * (`tools config: <field> must be …, got …`) for an invalid {@link ToolRegistryConfig} field.
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

  constructor(ctx: Context, config?: ToolRegistryConfig) {
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
      hooks: (scope) => self._hooks(scope),
      report: (stage, error) => {
        try {
          self._root.logger('tools').warn(`${stage} failed: %s`, error instanceof Error ? error.stack ?? error.message : String(error))
        } catch {
          // Reporting must never disturb a batch.
        }
      },
    }
    this.pipeline = Object.freeze({
      runBatch: (batch: ExecutorBatch, options?: { maxParallel?: number; admit?: RunnerOptions['admit']; local?: RunnerOptions['local'] }) => self._runBatch(batch, options),
      createRunner: (options: RunnerOptions): CallRunner => createRunner(self._host, options),
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
    const chain = scopeChain(scope)
    const byName = new Map<string, Registration>()
    const masksBelow: Mask[] = []
    for (const s of chain) {
      const layer = this._layers.get(s)
      if (layer !== undefined) {
        for (const reg of layer.byName.values()) {
          if (byName.has(reg.definition.name)) continue
          let admitted = true
          for (const mask of masksBelow) {
            let ok: boolean
            try {
              ok = mask(reg.definition.name, reg.definition) === true
            } catch (error) {
              // A throwing restriction masks the tool (fail closed) and is reported.
              this._host.report(`restrict() predicate on "${reg.definition.name}"`, error)
              ok = false
            }
            if (!ok) {
              admitted = false
              break
            }
          }
          if (admitted) byName.set(reg.definition.name, reg)
        }
        masksBelow.push(...layer.masks)
      }
    }
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
      if (existing !== undefined) {
        throw new ToolRegistrationError(
          `Cannot register tool "${name}" in scope "${scope.id}": a tool of that name is already registered there by ${existing.owner}; this registration came from ${owner}. Rename one (for example with a server prefix) or register it in another scope.`,
          { toolName: name },
        )
      }
      const reg: Registration = { definition, schema, scope, when, owner, seq: this._seq++, found: new FoundTool(definition, schema.parameters) }
      layer.byName.set(name, reg)
      this._version++
      try {
        this._emitChange({ type: 'register', scope, name })
      } catch (error) {
        layer.byName.delete(name)
        this._version++
        throw error
      }
      return () => {
        if (layer.byName.get(name) !== reg) return
        layer.byName.delete(name)
        this._version++
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
    const scope = scopeOf(ctx)
    const owner = fiberName(ctx)
    const self = serviceOf(this)
    let current = new Map<string, Registration>()
    let live = true
    const swap = (next: readonly AnyToolDefinition[]): void => {
      if (!Array.isArray(next)) throw new ToolRegistrationError('registerGroup() and replace() take an array of tool definitions')
      const layer = self._layer(scope)
      const prepared = new Map<string, Registration>()
      for (const definition of next) {
        const name = (definition as { name?: unknown } | null)?.name
        const kept = typeof name === 'string' ? current.get(name) : undefined
        if (kept !== undefined && kept.definition === definition && !prepared.has(name as string)) {
          prepared.set(kept.definition.name, kept)
          continue
        }
        const schema = self._validateDefinition(definition)
        if (prepared.has(definition.name)) throw new ToolRegistrationError(`Cannot register tool "${definition.name}" in scope "${scope.id}": the group from ${owner} lists it twice`, { toolName: definition.name })
        const other = layer.byName.get(definition.name)
        if (other !== undefined && current.get(definition.name) !== other) {
          throw new ToolRegistrationError(
            `Cannot register tool "${definition.name}" in scope "${scope.id}": a tool of that name is already registered there by ${other.owner}; this registration came from ${owner}. Rename one (for example with a server prefix) or register it in another scope.`,
            { toolName: definition.name },
          )
        }
        const seq = kept?.seq ?? self._seq++
        prepared.set(definition.name, { definition, schema, scope, when: undefined, owner, seq, found: new FoundTool(definition, schema.parameters) })
      }
      const registered: string[] = []
      const unregistered: string[] = []
      for (const [name, reg] of current) if (prepared.get(name) !== reg) unregistered.push(name)
      for (const [name, reg] of prepared) if (current.get(name) !== reg) registered.push(name)
      if (registered.length === 0 && unregistered.length === 0) {
        current = prepared
        return
      }
      const install = (from: Map<string, Registration>, to: Map<string, Registration>): void => {
        for (const [name, reg] of from) if (layer.byName.get(name) === reg) layer.byName.delete(name)
        for (const [name, reg] of to) layer.byName.set(name, reg)
        self._version++
      }
      install(current, prepared)
      try {
        self._emitChange({ type: 'replace', scope, registered, unregistered })
      } catch (error) {
        install(prepared, current)
        throw error
      }
      current = prepared
    }
    const dispose = ctx.effect(() => {
      swap(definitions)
      return () => {
        if (!live) return
        live = false
        try {
          swap([])
        } catch (error) {
          self._host.report('tools/change', error)
        }
      }
    }, `ctx.tools.registerGroup(${definitions.length} tools)`) as Disposer
    return Object.freeze({
      get names(): readonly string[] {
        return Object.freeze([...current.keys()])
      },
      replace(next: readonly AnyToolDefinition[]): void {
        if (!live) throw new ToolRegistrationError(`Cannot replace the tools of a disposed group (scope "${scope.id}", ${owner})`)
        swap(next)
      },
      dispose,
    })
  }

  protected _validateDefinition(definition: AnyToolDefinition): ToolSchema {
    if (definition === null || typeof definition !== 'object') throw new ToolRegistrationError(`Cannot register a tool: expected a definition object, got ${definition === null ? 'null' : typeof definition}`)
    const given: unknown = definition.name
    const nameIssue = typeof given === 'string' ? toolNameProblem(given) : `it is ${given === null ? 'null' : typeof given}, not a string`
    if (nameIssue !== undefined) {
      const shown = typeof given === 'string' ? quoteText(given.length > 200 ? `${given.slice(0, 200)}…` : given) : String(given)
      throw new ToolRegistrationError(
        `Cannot register tool ${shown}: ${NAME_RULE_TEXT} (${nameIssue})`,
        typeof given === 'string' ? { toolName: given, pointer: '/name' } : { pointer: '/name' },
      )
    }
    const name = given as string
    const fail = (pointer: string, problem: string): never => {
      throw new ToolRegistrationError(`Cannot register tool ${quoteText(name)}: ${capPointer(pointer)} ${problem}`, { toolName: name, pointer })
    }

    if (RESERVED_TOOL_NAMES.includes(name)) fail('/name', `"${name}" is reserved for the PTC executor`)
    if (typeof definition.description !== 'string') fail('/description', 'must be a string')
    if (typeof definition.execute !== 'function') fail('/execute', 'must be a function')
    const parameters = definition.parameters
    // checkSchema applies the one nesting limit (MAX_JSON_DEPTH) first, iteratively, so nothing
    // recursive here or later (compilation, projection, declaration) can overflow the stack.
    const paramProblem = checkSchema(parameters)
    if (paramProblem !== undefined) fail(`/parameters${paramProblem.pointer}`, paramProblem.message)
    if (typeof parameters === 'object' && parameters !== null) {
      const type = (parameters as { type?: unknown }).type
      if (type !== undefined && type !== 'object' && !(Array.isArray(type) && type.includes('object'))) fail('/parameters/type', `must be "object" (tool arguments are a JSON object), got ${JSON.stringify(type)}`)
    } else if (parameters === false) fail('/parameters', 'is `false`, which admits no arguments at all')
    const output = definition.output as unknown
    if (output === null || typeof output !== 'object') fail('/output', 'is missing: declare { schema, render } for the canonical value')
    const { schema: outSchema, render } = output as { schema?: unknown; render?: unknown }
    if (outSchema === undefined) fail('/output/schema', 'is missing')
    const outProblem = checkSchema(outSchema as JsonSchemaNode)
    if (outProblem !== undefined) fail(`/output/schema${outProblem.pointer}`, outProblem.message)
    if (typeof render !== 'function') fail('/output/render', 'must be a function (args, value) => ContentBlock[]')
    const timeoutMs = definition.timeoutMs
    if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0 || timeoutMs > MAX_TIMER_MS)) {
      fail('/timeoutMs', `must be a positive finite number of ms up to ${MAX_TIMER_MS}, got ${String(timeoutMs)}`)
    }
    for (const key of ['isConcurrencySafe', 'presentCall', 'presentResult', 'finalizeContent', 'projectContent'] as const) {
      const fn = definition[key]
      if (fn !== undefined && typeof fn !== 'function') fail(`/${key}`, 'must be a function')
    }
    const projected: ToolSchema = {
      name,
      description: definition.description,
      parameters: typeof parameters === 'object' ? deepFreeze(this._config.unknownKeys === 'reject' ? closeObjects(structuredClone(parameters)) : structuredClone(parameters)) : parameters,
      ...(definition.deferLoading === true ? { deferLoading: true as const } : {}),
    }
    return Object.freeze(projected)
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
      this._version++
      try {
        this._emitChange({ type: 'restrict', scope })
      } catch (error) {
        layer.masks.splice(layer.masks.indexOf(mask), 1)
        this._version++
        throw error
      }
      return () => {
        const i = layer.masks.indexOf(mask)
        if (i === -1) return
        layer.masks.splice(i, 1)
        this._version++
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
    if (!TOOL_EVENT_NAMES.has(name)) throw new ToolRegistrationError(`tools.on() takes one of ${[...TOOL_EVENT_NAMES].map((n) => `"${n}"`).join(', ')}, got ${typeof name === 'string' ? `"${name}"` : typeof name}`)
    if (typeof listener !== 'function') throw new ToolRegistrationError(`tools.on("${name}") takes a function, got ${typeLabel(listener)}`)
    const prepend = typeof options === 'boolean' ? options : options.prepend === true
    const ctx = this.ctx
    const hooks = this._eventHooks
    return ctx.effect(() => {
      const hook = { ctx, callback: listener, prepend }
      const list = (hooks[name] ??= [])
      if (hook.prepend) list.unshift(hook)
      else list.push(hook)
      return () => {
        const current = hooks[name]
        const i = current === undefined ? -1 : current.indexOf(hook)
        if (i === -1) return
        current!.splice(i, 1)
        if (current!.length === 0) delete hooks[name]
      }
    }, `ctx.tools.on(${JSON.stringify(name)})`) as Disposer
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

  /** @internal Whether `reg` is still the registration `scope` sees under its name. */
  _isCurrent(scope: Scope, reg: Registration): boolean {
    return this._visibleFor(scope).byName.get(reg.definition.name) === reg
  }

  protected _admitted(scope: Scope, toolSet: ResolvedToolSet | undefined, includeConditional: boolean): Registration[] {
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
    return includeConditional ? [...list] : list.filter((r) => r.when === undefined)
  }

  /** The definition `name` resolves to as `scope` sees it (without a set: registered, conditions not evaluated). */
  get(name: string, scope?: ScopeRef, toolSet?: ResolvedToolSet): AnyToolDefinition | undefined {
    const s = this._scope(scope)
    if (toolSet !== undefined) return this._admitted(s, toolSet, true).find((r) => r.definition.name === name)?.definition
    return this._visibleFor(s).byName.get(name)?.definition
  }

  /** Visible definitions in prompt order (registration order). */
  definitions(scope?: ScopeRef, toolSet?: ResolvedToolSet): AnyToolDefinition[] {
    return this._admitted(this._scope(scope), toolSet, true).map((r) => r.definition)
  }

  /** Model-facing projections `{ name, description, parameters, deferLoading? }` (frozen), in prompt order. */
  schemas(scope?: ScopeRef, toolSet?: ResolvedToolSet): ToolSchema[] {
    return this._admitted(this._scope(scope), toolSet, true).map((r) => r.schema)
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
    return { available: this._admitted(scope, toolSet, false).map((r) => r.definition.name) }
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
    return { pre: pick('tools/pre-execute'), execute: pick('tools/execute'), post: pick('tools/post-execute'), result: pick('tools/result'), progress: pick('tools/progress'), guards, approval }
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
    if (executor === undefined) throw new NoExecutorError(scope.id)
    const admitted = self._admitted(scope, options.toolSet, options.toolSet !== undefined)
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
   * @throws NoExecutorError (`NO_EXECUTOR`) when no executor is mounted for the scope;
   *   TypeError when `batch.calls` is not an array.
   */
  async execute(batch: ToolBatch): Promise<readonly ToolResult[]> {
    if (batch === null || typeof batch !== 'object' || !Array.isArray(batch.calls)) throw new TypeError('ctx.tools.execute() takes { calls: RawToolCall[], agent?, log?, toolSet?, signal? }')
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
      definitions: () => (visible ??= self._admitted(scope, toolSet, toolSet !== undefined).map((r) => r.definition)),
      ...(batch.agent === undefined ? {} : { agent: batch.agent }),
      ...(log === undefined ? {} : { log }),
      ...(batch.toolSet === undefined ? {} : { toolSet: batch.toolSet }),
    }
    const hooks = self._eventHooks
    if ((hooks['tools/batch-start']?.length ?? 0) + (hooks['tools/batch-end']?.length ?? 0) > 0) return self._observedBatch(executor, input, scope)
    const results = await executor.execute(input)
    return Object.isFrozen(results) ? results : Object.freeze([...results])
  }

  /** {@link execute} with `tools/batch-start` / `tools/batch-end` observers. */
  protected async _observedBatch(executor: ToolExecutor, input: ExecutorBatch, scope: Scope): Promise<readonly ToolResult[]> {
    const event: ToolBatchEvent = Object.freeze({ batchId: input.batchId!, calls: input.calls, scope, executor: executor.name, ...(input.agent === undefined ? {} : { agent: input.agent }) })
    this._observe(scope, 'tools/batch-start', [event])
    let results = await executor.execute(input)
    results = Object.isFrozen(results) ? results : Object.freeze([...results])
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
      ...(options?.maxParallel === undefined ? {} : { maxParallel: options.maxParallel }),
      ...(options?.admit === undefined ? {} : { admit: options.admit }),
      ...(options?.local === undefined ? {} : { local: options.local }),
    })
    return Object.freeze(await runner.submitAll(batch.calls))
  }
}

/** A resolved tool set (see {@link ResolvedToolSet}). */
class ToolSet implements ResolvedToolSet {
  disposed = false
  readonly agent?: Agent
  readonly modelSelection?: ModelSelection

  constructor(
    private readonly registry: ToolRegistry,
    readonly scope: Scope,
    readonly pinned: ReadonlyMap<string, Registration>,
    input: ResolveInput,
    /** The visible set it was resolved from (identity: unchanged registry version). */
    readonly visible: Visible,
  ) {
    if (input.agent !== undefined) this.agent = input.agent
    if (input.modelSelection !== undefined) this.modelSelection = input.modelSelection
  }

  get definitions(): readonly AnyToolDefinition[] {
    return this.registry.definitions(this.scope, this)
  }

  has(name: string): boolean {
    const reg = this.disposed ? undefined : this.pinned.get(name)
    return reg !== undefined && this.registry._isCurrent(this.scope, reg)
  }

  dispose(): void {
    this.disposed = true
  }
}

function fiberName(ctx: Context): string {
  try {
    const name = ctx.fiber?.name
    return typeof name === 'string' && name !== '' ? `plugin "${name}"` : 'the root context'
  } catch {
    return 'an unnamed plugin'
  }
}

declare module 'cordis' {
  interface Context {
    tools: ToolRegistry
  }
}
