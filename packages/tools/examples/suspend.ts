import { Context } from 'cordis'
import { ToolRegistry, createSuspension, defineTool } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'

const ctx = new Context()
await ctx.plugin(ToolRegistry)
await ctx.plugin(NativeExecutor)
ctx.tools.register(defineTool({
  name: 'delete_file',
  description: 'Delete a file.',
  parameters: { path: { type: 'string', required: true } },
  output: { schema: { type: 'string' }, render: (_args, value) => [{ type: 'text', text: value }] },
  execute: ({ path }) => `deleted ${path}`,
}))
ctx.on('tools/pre-execute', (exec, next) => (exec.name === 'delete_file' ? { type: 'ask', reason: 'deletes a file' } : next()))
// The person answers later, elsewhere: defer.
ctx.tools.approval({ request: async () => ({ type: 'defer' }) })

const suspension = createSuspension({ keys: { k1: 'a secret of at least 32 bytes, from a vault' }, signWith: 'k1' })
const calls = [{ callId: 'call_1', name: 'delete_file', arguments: '{"path":"/tmp/a"}' }]
const outcome = await ctx.tools.executeSuspendable({ calls, suspension })
if (outcome.status !== 'suspended') throw new Error('expected a suspension')
console.log(outcome.pending.map((p) => `${p.callId} ${p.status}: ${p.reason}`).join(', '))
// call_1 awaiting-approval: deletes a file
const saved = JSON.stringify(outcome.state) // keep it anywhere; resume in any process

const resumed = await ctx.tools.resume({ state: saved, decisions: { call_1: { type: 'approve' } }, suspension })
console.log(resumed.status, resumed.results.map((r) => r?.content[0]))
// complete [{"type":"text","text":"deleted /tmp/a"}]
await ctx.tools.resume({ state: saved, suspension }).catch((error: Error) => console.log(error.message))
// STATE_REPLAYED: state <id> was resumed before; resume the state that resume returned (at /payload/stateId)
await ctx.fiber.dispose()
