/**
 * One client session: an agent scope of its own (a cordis fiber under the served context, so
 * everything the `session` hook sets up goes away with it), the approval service that turns an
 * `ask` into a question to the client's user, and the progress relay of its running calls.
 */
import type { Context } from 'cordis'
import { createAgent, type ApprovalDecision, type ApprovalRequest, type ToolExecution, type ToolPreliminaryEvent, type ToolProgressEvent } from '@deepseek-ai/dsh-tools'
import type { McpClientView } from './input'
import type { CallRun } from './call-run'
import type { McpAuthInfo, McpSession, ResolvedOptions } from './options'

let sessionSeq = 0

/** A live session. */
export interface SessionHandle {
  readonly session: McpSession
  /** Calls running in this session, by call id. */
  readonly runs: Map<string, CallRun>
  /** Ends the session: disposes its agent scope (aborting nothing by itself: the transport aborts its calls). */
  dispose(): Promise<void>
}

/** The run of `exec`'s outer call in `runs` (a PTC sub-call finds its outer call's). */
function runOf(runs: Map<string, CallRun>, exec: ToolExecution): CallRun | undefined {
  for (let e: ToolExecution | undefined = exec; e !== undefined; e = e.parent) {
    const run = runs.get(e.callId)
    if (run !== undefined) return run
  }
  return undefined
}

/**
 * Opens a session under `served` (the context whose scope is served): mints the agent scope,
 * mounts the approval service and the progress relay, and runs the `session` hook.
 *
 * @throws what the `session` hook throws (the scope is disposed first).
 */
export async function openSession(served: Context, options: ResolvedOptions, kind: McpSession['kind'], client: McpClientView, auth: McpAuthInfo | undefined): Promise<SessionHandle> {
  const id = `mcp-${++sessionSeq}`
  const runs = new Map<string, CallRun>()
  let session: McpSession | undefined
  const fiber = served.plugin({
    name: `mcp-session:${id}`,
    inject: ['tools'],
    apply: (ctx: Context) => {
      const handle = createAgent(ctx, id)
      session = Object.freeze({ id, ctx: handle.ctx, agent: handle.agent, client, kind, ...(auth === undefined ? {} : { auth }) })
      handle.ctx.tools.approval({
        request: async (request: ApprovalRequest): Promise<ApprovalDecision> => {
          const run = runOf(runs, request.exec)
          if (run === undefined) return { type: 'reject', reason: `Tool "${request.exec.name}" needs approval, and this call did not come from an MCP client` }
          return run.approve(request)
        },
      })
      handle.ctx.on('tools/progress', (event: ToolProgressEvent) => {
        const run = runOf(runs, event.exec)
        run?.progress(event)
      })
      handle.ctx.on('tools/preliminary', (event: ToolPreliminaryEvent) => {
        const run = runOf(runs, event.exec)
        run?.preliminary(event)
      })
    },
  })
  await fiber
  const dispose = async (): Promise<void> => {
    await fiber.dispose()
  }
  try {
    await options.session?.(session!)
  } catch (error) {
    await dispose()
    throw error
  }
  return { session: session!, runs, dispose }
}
