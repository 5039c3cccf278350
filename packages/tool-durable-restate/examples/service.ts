import * as restate from '@restatedev/restate-sdk'
import { Context } from 'cordis'
import { ToolRegistry, defineTool } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'
import { toolBatchService } from '@deepseek-ai/dsh-tool-durable-restate'

const ctx = new Context()
await ctx.plugin(ToolRegistry)
await ctx.plugin(NativeExecutor, { maxParallelCalls: 10 })

ctx.tools.register(defineTool({
  name: 'send_invoice',
  description: 'Send an invoice.',
  parameters: { customer: { type: 'string', required: true } },
  output: { schema: { type: 'string' }, render: (_args, id) => [{ type: 'text', text: `sent ${id}` }] },
  // Idempotent: a call interrupted by a crash is run again, with the same idempotency key.
  idempotent: true,
  async execute(args, exec) {
    // exec.idempotencyKey is '<batch key>/<call id>', the same on every retry and replay:
    // hand it to the downstream API so a repeated request takes effect once.
    return `invoice-for-${args.customer} (${exec.idempotencyKey})`
  },
}))

const service = toolBatchService({
  name: 'tools',
  tools: ctx,
  approvals: { onApprovalRequest: (p) => console.log(`approval needed: ${p.toolName} (${p.reason ?? 'no reason'}): awakeable ${p.awakeableId}`) },
})
const port = await restate.serve({ services: [service], port: Number(process.env.PORT ?? 9080) })
console.log(`serving tools on port ${port}`) // serving tools on port 9080
