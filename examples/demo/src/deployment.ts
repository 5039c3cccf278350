/**
 * The deployment both halves of the demo run in: the registry, an executor, the timeout policy,
 * a policy that denies writes, the workspace tools, and one agent with an in-memory session log.
 */
import { Context } from 'cordis'
import { ToolRegistry, createAgent, type Agent } from '@deepseek-ai/dsh-tools'
import { TimeoutPolicy } from '@deepseek-ai/dsh-tool-call-timeout-policy'
import { MemorySessionLog } from '@deepseek-ai/dsh-tool-testkit'
import { workspaceTools } from './tools'

/** A booted demo deployment. */
export interface Deployment {
  /** The deployment's root context (`ctx.tools` is the registry). */
  readonly ctx: Context
  /** The `support-agent` scope the demo's batches run in. */
  readonly agent: Agent
  /** The agent's session log. */
  readonly log: MemorySessionLog
}

/**
 * Boots the demo deployment over the sample workspace at `root`; `mountExecutor` loads the
 * executor plugin right after the registry (e.g. `(ctx) => ctx.plugin(NativeExecutor, {})`).
 */
export async function bootDeployment(root: string, mountExecutor: (ctx: Context) => PromiseLike<unknown>): Promise<Deployment> {
  const ctx = new Context()
  await ctx.plugin(ToolRegistry)
  await mountExecutor(ctx)
  await ctx.plugin(TimeoutPolicy, {})
  // A deployment policy: the demo workspace is read-only.
  ctx.on('tools/pre-execute', (exec, next) => (exec.name === 'write_file' ? { type: 'deny', reason: 'the demo workspace is read-only' } : next()))
  for (const tool of workspaceTools(root)) ctx.tools.register(tool)
  const log = new MemorySessionLog()
  const { agent } = createAgent(ctx, 'support-agent', { log })
  return { ctx, agent, log }
}
