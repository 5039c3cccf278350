/**
 * A harness that boots a deployment with the registry, an executor and optional policies in
 * one call, and tears it down quiescently (docs/design.md, "Testkit").
 *
 * Layout of a booted harness (each line a cordis fiber, disposed bottom-up):
 *
 * ```
 * root context (deployment scope)
 * ├─ ToolRegistry            ctx.tools
 * ├─ NativeExecutor          (or the executor object you passed, or none)
 * ├─ plugins[0], plugins[1]  policies, in the order given
 * └─ the test fiber          h.ctx — everything the test registers lives here
 * ```
 *
 * `h.ctx` is a fiber of its own, so `h.dispose()` removes every tool, listener, guard,
 * approval service and executor mount the test made through it before the policies, the
 * executor and the registry go; then the root fiber itself is disposed.
 */
import { Context } from 'cordis'
import {
  ToolRegistry,
  createAgent,
  createScope,
  type AgentHandle,
  type ResolvedToolSet,
  type SessionLog,
  type ToolBatch,
  type ToolExecutor,
  type ToolRegistryConfig,
  type ToolResult,
  showConfigValue,
  unknownOption,
  assertSupportedCordis,
} from '@deepseek-ai/dsh-tools'
import { NativeExecutor, type NativeExecutorPluginConfig } from '@deepseek-ai/dsh-tool-executor-native'
import { MemorySessionLog } from './log'

/** A cordis plugin and its config, loaded after the registry and executor. */
export interface HarnessPlugin {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any cordis plugin shape
  readonly plugin: any
  readonly config?: unknown
}

/**
 * Options of {@link createHarness}.
 *
 * @example { native: { maxParallelCalls: 2 }, plugins: [{ plugin: TimeoutPolicy, config: { defaultTimeoutMs: 5_000 } }] }
 */
export interface HarnessOptions {
  /** Registry config (argument size cap, repair modes, content limits). */
  readonly registry?: ToolRegistryConfig
  /** `native` (default; absent or `null` means it too), `none`, or an executor object to mount at the deployment. */
  readonly executor?: 'native' | 'none' | ToolExecutor
  /** Config of the `NativeExecutor` plugin when `executor` is `native` (`warmUp: true` awaits the pipeline warm-up). */
  readonly native?: NativeExecutorPluginConfig
  /** Policies and other plugins, loaded in order on the deployment context. */
  readonly plugins?: readonly HarnessPlugin[]
}

/** An agent minted with its own in-memory session log ({@link Harness.agentWithLog}). */
export interface LoggedAgentHandle extends AgentHandle {
  readonly log: MemorySessionLog
}

/**
 * A booted deployment (see {@link createHarness}).
 *
 * @example
 * const { agent, log } = h.agentWithLog('a1')
 * await h.execute([call('echo', {}, 'c1')], { agent })
 */
export interface Harness {
  /**
   * The test fiber's context, in the deployment scope. Register tools, listeners, guards and
   * approval services through it; they are disposed first by {@link Harness.dispose}.
   */
  readonly ctx: Context
  /** The root context (where the registry, executor and plugins are loaded). Rarely needed. */
  readonly root: Context
  /** `ctx.tools` of the test fiber (the deployment scope). */
  readonly tools: ToolRegistry
  /** Mints a preset scope under the deployment (or under `parent`). */
  preset(id: string, parent?: Context): Context
  /** Mints an agent scope under `parent` (default: the deployment) with an optional log. */
  agent(id: string, options?: { parent?: Context; log?: SessionLog }): AgentHandle
  /**
   * Mints an agent scope with a fresh {@link MemorySessionLog} attached as `agent.log`.
   *
   * @example
   * const { agent, log } = h.agentWithLog('a1')
   * await h.execute([call('echo', {}, 'c1')], { agent })
   * log.trace() // ['tool/call:c1', 'tool/result:c1']
   */
  agentWithLog(id: string, options?: { parent?: Context }): LoggedAgentHandle
  /** `ctx.tools.execute({ calls, ...options })` on the deployment. */
  execute(calls: ToolBatch['calls'], options?: Omit<ToolBatch, 'calls'>): Promise<readonly ToolResult[]>
  /** Resolves a tool set for an agent (or the deployment). */
  resolve(options?: Parameters<ToolRegistry['resolve']>[0]): Promise<ResolvedToolSet>
  /**
   * Counts the listeners registered on the deployment's event bus per event name, ignoring
   * cordis' own `internal/*` events. After {@link Harness.dispose} it must be `{}`.
   *
   * @example h.listeners() // { 'tools/pre-execute': 1, 'tools/result': 2 }
   */
  listeners(): Record<string, number>
  /** True once {@link Harness.dispose} finished. */
  readonly disposed: boolean
  /**
   * Disposes the test fiber, then every plugin in reverse order (awaiting each; a draining
   * executor waits for running batches), then the root fiber. Idempotent (later calls return
   * the same promise). Every fiber is disposed even if one throws; the first error rejects.
   */
  dispose(): Promise<void>
}

/**
 * Thrown by {@link withHarness} when disposal left listeners behind.
 *
 * @example
 * await withHarness(fn).catch((e) => e instanceof HarnessLeakError && e.listeners) // { 'tools/result': 1 }
 */
export class HarnessLeakError extends Error {
  override readonly name = 'HarnessLeakError'
  /** The listeners left, per event name. */
  readonly listeners: Readonly<Record<string, number>>
  constructor(listeners: Record<string, number>) {
    super(`the harness was disposed but listeners remain: ${Object.entries(listeners).map(([k, v]) => `${k} ×${v}`).join(', ')}`)
    this.listeners = Object.freeze({ ...listeners })
  }
}

/** A fiber-like thing with an awaitable `dispose`. */
interface Disposable {
  dispose(): Promise<void> | void
}

/** The plugin that owns the test's registrations: it only captures its context. */
function testFiberPlugin(sink: { ctx?: Context }) {
  return {
    name: 'dsh-tool-testkit/test',
    inject: ['tools'],
    apply(ctx: Context): void {
      sink.ctx = ctx
    },
  }
}

function countListeners(root: Context): Record<string, number> {
  const hooks = root.events._hooks as Record<string | symbol, readonly unknown[] | undefined>
  const counts: Record<string, number> = {}
  for (const key of Reflect.ownKeys(hooks)) {
    const name = String(typeof key === 'symbol' ? key.description ?? 'symbol' : key)
    if (name.startsWith('internal/')) continue
    const n = hooks[key]?.length ?? 0
    if (n > 0) counts[name] = n
  }
  return counts
}

const OPTION_KEYS = ['registry', 'executor', 'native', 'plugins'] as const satisfies readonly (keyof HarnessOptions)[]
const PLUGIN_KEYS = ['plugin', 'config'] as const satisfies readonly (keyof HarnessPlugin)[]

/** Refuses options that are not an object, an unknown key, an `executor` that is none of its three forms and a malformed `plugins` list. */
function checkOptions(options: unknown): asserts options is HarnessOptions {
  const fail = (pointer: string, detail: string): never => {
    throw new RangeError(`createHarness options: ${pointer === '' ? '' : `${pointer} `}${detail}`)
  }
  const checkObject = (value: unknown, known: readonly string[], pointer: string): void => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) fail(pointer, `must be an object, got ${showConfigValue(value)}`)
    const unknown = unknownOption(value as object, known, pointer)
    if (unknown !== undefined) fail(unknown.pointer, unknown.detail)
  }
  checkObject(options, OPTION_KEYS, '')
  const executor = (options as HarnessOptions).executor
  // null means the default, as for `registry` and `native` (their plugins take null as no config).
  if (executor !== undefined && executor !== null && executor !== 'native' && executor !== 'none' && !hasMethods(executor, ['describe', 'execute'])) {
    fail('/executor', `must be "native", "none" or an executor { name, describe(input), execute(batch) }, got ${showConfigValue(executor)}`)
  }
  const plugins = (options as HarnessOptions).plugins
  if (plugins === undefined) return
  if (!Array.isArray(plugins)) fail('/plugins', `must be an array, got ${showConfigValue(plugins)}`)
  plugins.forEach((entry, i) => {
    checkObject(entry, PLUGIN_KEYS, `/plugins/${i}`)
    const plugin: unknown = (entry as HarnessPlugin).plugin
    if (typeof plugin !== 'function' && !hasMethods(plugin, ['apply'])) fail(`/plugins/${i}/plugin`, `must be a cordis plugin (a function or an object with apply), got ${showConfigValue(plugin)}`)
  })
}

/** Whether `value` is an object (not an array) with a function under each of `methods`. */
function hasMethods(value: unknown, methods: readonly string[]): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && methods.every((m) => typeof (value as Record<string, unknown>)[m] === 'function')
}

/**
 * Boots a deployment: `new Context()`, the registry, the executor, then `plugins`, then a test
 * fiber whose context is `h.ctx`. If a plugin fails to start, what was booted is disposed and
 * the error is rethrown.
 *
 * Rejects with a `RangeError` (as every config check of this repository's packages) before
 * anything boots for options that are not an object or hold an unknown key, here
 * or in a `plugins` entry (`createHarness options: /natve is not a known option (expected
 * registry, executor, native, plugins; did you mean "native"?)`), for an `executor` that is not
 * `'native'`, `'none'` or an object with `describe` and `execute` (`createHarness options:
 * /executor must be "native", "none" or an executor { name, describe(input), execute(batch) },
 * got "x"`) and for a `plugins` entry whose `plugin` is not a function or an object with
 * `apply` (`createHarness options: /plugins/0/plugin must be a cordis plugin (a function or an
 * object with apply), got undefined`); `registry` and `native` are checked by their plugins
 * (`tools config: …`, `native executor config: …`). `null` for `registry`, `native` or
 * `executor` means the default.
 *
 * Start also fails with a `CordisVersionError` (`UNSUPPORTED_CORDIS`) outside cordis
 * `>=4.0.0-rc.10 <5`, naming the version found (`assertSupportedCordis` of `@deepseek-ai/dsh-tools`).
 *
 * @example
 * const h = await createHarness({ native: { maxParallelCalls: 2 } })
 * h.ctx.tools.register(echoTool())
 * const [result] = await h.execute([call('echo', { text: 'hi' })])
 * await h.dispose()
 */
export async function createHarness(options: HarnessOptions = {}): Promise<Harness> {
  checkOptions(options)
  const root = new Context()
  assertSupportedCordis(root, 'createHarness')
  const fibers: Disposable[] = []
  // Every fiber is disposed even when one throws; the first error is rethrown at the end.
  const disposeAll = async (): Promise<void> => {
    const errors: unknown[] = []
    for (const fiber of [...fibers.splice(0).reverse(), root.fiber]) {
      try {
        await fiber.dispose()
      } catch (error) {
        errors.push(error)
      }
    }
    if (errors.length > 0) throw errors[0]
  }
  const sink: { ctx?: Context } = {}
  try {
    fibers.push(await root.plugin(ToolRegistry, options.registry ?? {}))
    const executor = options.executor ?? 'native'
    if (executor === 'native') fibers.push(await root.plugin(NativeExecutor, options.native ?? {}))
    else if (executor !== 'none') fibers.push({ dispose: root.tools.mount(executor) })
    for (const p of options.plugins ?? []) fibers.push(await root.plugin(p.plugin, p.config))
    fibers.push(await root.plugin(testFiberPlugin(sink)))
  } catch (error) {
    await disposeAll()
    throw error
  }
  const ctx = sink.ctx
  if (ctx === undefined) {
    await disposeAll()
    throw new Error('createHarness: the test fiber did not start (is the tools service mounted?)')
  }
  let disposing: Promise<void> | undefined
  let disposed = false
  return {
    ctx,
    root,
    tools: ctx.tools,
    preset: (id, parent) => createScope(parent ?? ctx, id, 'preset'),
    agent: (id, opts) => createAgent(opts?.parent ?? ctx, id, opts?.log === undefined ? undefined : { log: opts.log }),
    agentWithLog(id, opts) {
      const log = new MemorySessionLog()
      const handle = createAgent(opts?.parent ?? ctx, id, { log })
      return { ...handle, log }
    },
    execute: (calls, opts) => ctx.tools.execute({ ...opts, calls }),
    resolve: (opts) => ctx.tools.resolve(opts),
    listeners: () => countListeners(root),
    get disposed() {
      return disposed
    },
    dispose() {
      disposing ??= disposeAll().then(() => {
        disposed = true
      })
      return disposing
    },
  }
}

/**
 * Boots a harness, runs `fn` with it, disposes it (also when `fn` throws), then checks that
 * disposal left no listeners on the deployment's event bus.
 *
 * @throws what `fn` threw; otherwise {@link HarnessLeakError} when listeners remain.
 *
 * @example
 * const results = await withHarness(async (h) => {
 *   h.ctx.tools.register(echoTool())
 *   return h.execute([call('echo', { text: 'hi' }, 'c1')])
 * })
 */
export async function withHarness<T>(fn: (h: Harness) => T | Promise<T>, options?: HarnessOptions): Promise<T> {
  const h = await createHarness(options)
  let value: T
  try {
    value = await fn(h)
  } finally {
    await h.dispose()
  }
  const left = h.listeners()
  if (Object.keys(left).length > 0) throw new HarnessLeakError(left)
  return value
}
