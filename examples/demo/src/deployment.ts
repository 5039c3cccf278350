/**
 * The deployment every section of the demo runs in: the registry, an executor, the timeout policy,
 * a policy that denies writes, the workspace tools, one agent with an in-memory session log, and
 * a stage tracer whose timed entries give each call's time and the timeline picture.
 */
import { Context } from 'cordis'
import { ToolRegistry, createAgent, type Agent, type JsonValue, type ToolExecution } from '@deepseek-ai/dsh-tools'
import { TimeoutPolicy } from '@deepseek-ai/dsh-tool-call-timeout-policy'
import { MemorySessionLog, StageTracer } from '@deepseek-ai/dsh-tool-testkit'
import { workspaceTools } from './tools'
import type { TimelineBatch, TimelineCall } from './timeline'

/** A booted demo deployment. */
export interface Deployment {
  /** The deployment's root context (`ctx.tools` is the registry). */
  readonly ctx: Context
  /** The `support-agent` scope the demo's batches run in. */
  readonly agent: Agent
  /** The agent's session log. */
  readonly log: MemorySessionLog
  /** Every pipeline stage of every call, timed (installed outside the timeout policy). */
  readonly tracer: StageTracer
}

/** Time a call spent in `tools/execute` (wrappers and body), in ms; undefined if it never got there. */
export function dispatchMs(tracer: StageTracer, callId: string): number | undefined {
  const wrap = tracer.events.find((e) => e.callId === callId && e.stage === 'wrap')
  const unwrap = tracer.events.find((e) => e.callId === callId && e.stage === 'unwrap')
  return wrap === undefined || unwrap === undefined ? undefined : unwrap.at - wrap.at
}

/**
 * Boots the demo deployment over the sample workspace at `root`; `mountExecutor` loads the
 * executor plugin right after the registry (e.g. `(ctx) => ctx.plugin(NativeExecutor, {})`).
 */
export function bootDeployment(root: string, mountExecutor: (ctx: Context) => PromiseLike<unknown>): Promise<Deployment> {
  return bootWith(
    mountExecutor,
    (exec) => exec.name === 'write_file',
    (ctx) => {
      for (const tool of workspaceTools(root)) ctx.tools.register(tool)
    },
  )
}

/**
 * The deployment every demo step shares: the registry, the executor (`mountExecutor`), the stage
 * tracer (outside the timeout policy), the timeout policy, a read-only policy that denies the
 * calls `denies` picks (reason "the demo workspace is read-only"), the tools `mountTools` adds,
 * and one agent with an in-memory session log.
 */
export async function bootWith(
  mountExecutor: (ctx: Context) => PromiseLike<unknown>,
  denies: (exec: ToolExecution) => boolean,
  mountTools: (ctx: Context) => unknown,
): Promise<Deployment> {
  const ctx = new Context()
  await ctx.plugin(ToolRegistry)
  await mountExecutor(ctx)
  const tracer = new StageTracer()
  tracer.install(ctx)
  await ctx.plugin(TimeoutPolicy, {})
  ctx.on('tools/pre-execute', (exec, next) => (denies(exec) ? { type: 'deny', reason: 'the demo workspace is read-only' } : next()))
  await mountTools(ctx)
  const log = new MemorySessionLog()
  const { agent } = createAgent(ctx, 'support-agent', { log })
  return { ctx, agent, log, tracer }
}

/** Whether a call runs alone: its tool's `isConcurrencySafe(args)` is not exactly `true`. */
export function isExclusive(ctx: Context, agent: Agent, name: string, args: string | JsonValue): boolean {
  const definition = ctx.tools.get(name, agent)
  if (definition === undefined) return false
  try {
    const parsed: unknown = typeof args === 'string' ? JSON.parse(args.trim() === '' ? '{}' : args) : args
    return definition.isConcurrencySafe?.(parsed) !== true
  } catch {
    return true
  }
}

/** The timeline of the calls `ids` from the tracer entries recorded from `since` on. */
export function timelineBatch(title: string, calls: readonly TimelineCall[], tracer: StageTracer, since: number): TimelineBatch {
  const ids = new Set(calls.map((c) => c.id))
  return { title, calls, events: tracer.events.slice(since).filter((e) => ids.has(e.callId)) }
}
