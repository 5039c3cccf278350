import { Context } from 'cordis'
import { ToolRegistry, createSuspension, defineTool } from '@deepseek-ai/dsh-tools'
import { PtcExecutor } from '@deepseek-ai/dsh-tool-executor-ptc'

const ctx = new Context()
await ctx.plugin(ToolRegistry)
await ctx.plugin(PtcExecutor)
const text = { schema: { type: 'string' }, render: (_args: unknown, value: string) => [{ type: 'text' as const, text: value }] } as const
ctx.tools.register(defineTool({ name: 'check_status', description: 'Health of the service.', parameters: {}, output: text, execute: () => 'healthy' }))
ctx.tools.register(defineTool({
  name: 'deploy',
  description: 'Deploy a version of the service.',
  parameters: { version: { type: 'string', required: true } },
  output: text,
  execute: ({ version }) => `deployed ${version}`,
}))
ctx.on('tools/pre-execute', (exec, next) => (exec.name === 'deploy' ? { type: 'ask', reason: 'deploys need a human' } : next()))
// The person answers later, elsewhere: defer.
ctx.tools.approval({ request: async () => ({ type: 'defer' }) })

// No extra config: in a suspendable batch the program's deferred sub-call suspends run_code.
const suspension = createSuspension({ keys: { k1: 'a secret of at least 32 bytes, from a vault' }, signWith: 'k1' })
const code = `const status = await tools.check_status({})
if (status !== 'healthy') return 'not deployed'
return await tools.deploy({ version: 'v2' })`
const calls = [{ callId: 'call_1', name: 'run_code', arguments: JSON.stringify({ code, description: 'deploy if healthy' }) }]
const outcome = await ctx.tools.executeSuspendable({ calls, suspension })
if (outcome.status !== 'suspended') throw new Error('expected a suspension')
console.log(outcome.pending[0]?.subCalls?.map((s) => `${s.callId} ${s.toolName} ${JSON.stringify(s.arguments)}: ${s.reason}`).join(', '))
// call_1:code:2 deploy {"version":"v2"}: deploys need a human
const saved = JSON.stringify(outcome.state) // holds the program's journal: check_status is not run again

// Decide the sub-call by its id; the program is replayed in a fresh sandbox and continues.
const resumed = await ctx.tools.resume({ state: saved, decisions: { 'call_1:code:2': { type: 'approve' } }, suspension })
console.log(resumed.status, resumed.results[0]?.content)
// complete [{"type":"text","text":"deployed v2"}]
await ctx.fiber.dispose()
