/**
 * The README's "your own handler" snippet in context (typechecked, not run): a Restate
 * virtual-object handler that runs several model turns, each batch with its own durable context
 * and key. `nextTurn` stands for the model call the handler makes (itself journaled with ctx.run).
 */
import * as restate from '@restatedev/restate-sdk'
import { Context } from 'cordis'
import { ToolRegistry, type RawToolCall, type ToolResult } from '@deepseek-ai/dsh-tools'
import { restateDurable, type PendingApproval } from '@deepseek-ai/dsh-tool-durable-restate'

const tools = new Context()
await tools.plugin(ToolRegistry)

const onApprovalRequest = (p: PendingApproval): void => console.log(`approval needed: ${p.toolName}: awakeable ${p.awakeableId}`)

export const agent = restate.object({
  name: 'agent',
  handlers: {
    async run(ctx: restate.ObjectContext, nextTurn: { readonly turns: readonly (readonly RawToolCall[])[] }): Promise<readonly (readonly ToolResult[])[]> {
      const out: (readonly ToolResult[])[] = []
      for (const [n, calls] of nextTurn.turns.entries()) {
const durable = restateDurable(ctx, { key: `${ctx.request().id}:turn-${n}`, calls, approvals: { onApprovalRequest } })
const results = await tools.tools.execute({ calls, durable })
        out.push(results)
      }
      return out
    },
  },
})
