import { Context } from 'cordis'
import { ToolRegistry, defineTool, type ApprovalService } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'

const ctx = new Context()
await ctx.plugin(ToolRegistry)
await ctx.plugin(NativeExecutor)

ctx.tools.register(defineTool({
  name: 'delete_file',
  description: 'Delete a file.',
  parameters: { path: { type: 'string', required: true } },
  output: { schema: { type: 'null' }, render: () => [{ type: 'text', text: 'deleted' }] },
  execute: () => null,
}))

// tools/pre-execute decides allow / deny / ask (koa-style: call next() to defer to later listeners).
ctx.on('tools/pre-execute', (exec, next) => {
  if (exec.name === 'delete_file') return { type: 'ask', reason: `delete ${String(exec.arguments.path)}` }
  return next()
})

// A guard is synchronous and monotonic: once it denies, no listener can re-allow.
ctx.tools.guard((exec) => (String(exec.arguments.path).startsWith('/etc/') ? 'system files are protected' : undefined))

// `ask` goes to the nearest approval service; without one it degrades to deny.
const approval: ApprovalService = {
  async request({ exec, reason }) {
    console.log(`approve ${exec.name}? (${reason ?? 'no reason'})`)
    return { type: 'approve' }
  },
}
ctx.tools.approval(approval)

// tools/post-execute may replace content (or value), attach contexts, or block.
ctx.on('tools/post-execute', async (_exec, draft, next) => {
  const decision = await next()
  if (draft.isError || decision.type !== 'accept') return decision
  return { ...decision, content: [{ type: 'text', text: 'done (redacted)' }] }
})

// tools/result observes each frozen final result, in call order.
ctx.on('tools/result', (result, { call }) => console.log(call.name, result.isError ? result.error.message : 'ok'))

await ctx.tools.execute({
  calls: [
    { callId: 'a', name: 'delete_file', arguments: '{"path":"/tmp/x"}' },
    { callId: 'b', name: 'delete_file', arguments: '{"path":"/etc/passwd"}' },
  ],
})
await ctx.fiber.dispose()
// a → ok (approved, content redacted); b → Error: system files are protected
