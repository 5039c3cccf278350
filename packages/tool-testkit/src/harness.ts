/**
 * A harness that boots a deployment with the registry, an executor and optional policies in
 * one call, and tears it down quiescently (ARCHITECTURE §8).
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
} from '@deepseek-ai/dsh-tools'
import { NativeExecutor, type NativeExecutorConfig } from '@deepseek-ai/dsh-tool-executor-native'

/** A cordis plugin and its config, loaded after the registry and executor. */
export interface HarnessPlugin {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any cordis plugin shape
  readonly plugin: any
  readonly config?: unknown
}

/** Options of {@link createHarness}. */
export interface HarnessOptions {
  /** Registry config (argument size cap, repair modes, content limits). */
  readonly registry?: ToolRegistryConfig
  /** `native` (default), `none`, or an executor object to mount at the deployment. */
  readonly executor?: 'native' | 'none' | ToolExecutor
  /** Config of the native executor when `executor` is `native`. */
  readonly native?: NativeExecutorConfig
  /** Policies and other plugins, loaded in order on the deployment context. */
  readonly plugins?: readonly HarnessPlugin[]
}

/** A booted deployment. */
export interface Harness {
  /** The deployment's root context. */
  readonly ctx: Context
  /** `ctx.tools` of the deployment. */
  readonly tools: ToolRegistry
  /** Mints a preset scope under the deployment (or under `parent`). */
  preset(id: string, parent?: Context): Context
  /** Mints an agent scope under `parent` (default: the deployment) with an optional log. */
  agent(id: string, options?: { parent?: Context; log?: SessionLog }): AgentHandle
  /** `ctx.tools.execute({ calls, ...options })` on the deployment. */
  execute(calls: ToolBatch['calls'], options?: Omit<ToolBatch, 'calls'>): Promise<readonly ToolResult[]>
  /** Resolves a tool set for an agent (or the deployment). */
  resolve(options?: Parameters<ToolRegistry['resolve']>[0]): Promise<ResolvedToolSet>
  /** Disposes every plugin in reverse order, awaiting their disposal. */
  dispose(): Promise<void>
}

/**
 * Boots a deployment: `new Context()`, the registry, the executor, then `plugins`.
 *
 * @example
 * const h = await createHarness({ native: { maxParallelCalls: 2 } })
 * h.ctx.tools.register(echoTool())
 * const [result] = await h.execute([call('echo', { text: 'hi' })])
 * await h.dispose()
 */
export async function createHarness(options: HarnessOptions = {}): Promise<Harness> {
  const ctx = new Context()
  const fibers: { dispose(): Promise<void> }[] = []
  fibers.push(await ctx.plugin(ToolRegistry, options.registry ?? {}))
  const executor = options.executor ?? 'native'
  if (executor === 'native') fibers.push(await ctx.plugin(NativeExecutor, options.native ?? {}))
  else if (executor !== 'none') {
    const dispose = ctx.tools.mount(executor)
    fibers.push({ dispose })
  }
  for (const p of options.plugins ?? []) fibers.push(await ctx.plugin(p.plugin, p.config))
  return {
    ctx,
    tools: ctx.tools,
    preset: (id, parent) => createScope(parent ?? ctx, id, 'preset'),
    agent: (id, opts) => createAgent(opts?.parent ?? ctx, id, opts?.log === undefined ? undefined : { log: opts.log }),
    execute: (calls, opts) => ctx.tools.execute({ ...opts, calls }),
    resolve: (opts) => ctx.tools.resolve(opts),
    async dispose() {
      for (const fiber of fibers.reverse()) await fiber.dispose()
    },
  }
}
