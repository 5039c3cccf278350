// A batch as a DBOS workflow: each call a durable step, results in call order.
// Needs DSH_DATABASE_URL (a PostgreSQL DBOS may create a database on).
import { Context } from 'cordis'
import { DBOS } from '@dbos-inc/dbos-sdk'
import { defineTool, ToolRegistry, type RawToolCall } from '@deepseek-ai/dsh-tools'
import NativeExecutor from '@deepseek-ai/dsh-tool-executor-native'
import { assertSystemDatabaseReachable, registerBatchWorkflow } from '@deepseek-ai/dsh-tool-durable-dbos'

const url = process.env.DSH_DATABASE_URL!
await assertSystemDatabaseReachable(url) // names the URL (password hidden) when nothing answers

const ctx = new Context()
await ctx.plugin(ToolRegistry)
await ctx.plugin(NativeExecutor, {})
ctx.tools.register(
  defineTool({
    name: 'charge',
    description: 'Charges a card',
    parameters: { cents: { type: 'integer' } },
    output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
    idempotent: true, // safe to re-run after a crash: the payment API deduplicates on the key
    execute: (args, exec) => `charged ${args.cents} (key ${exec.idempotencyKey})`,
  }),
)

const batch = registerBatchWorkflow(ctx.tools) // before DBOS.launch(), in every worker
DBOS.setConfig({ name: 'readme-example', systemDatabaseUrl: url, logLevel: 'error' })
await DBOS.launch()

const calls: RawToolCall[] = [{ callId: 'c1', name: 'charge', arguments: '{"cents":500}' }]
const handle = await DBOS.startWorkflow(batch, { workflowID: `checkout-${process.pid}` })(calls)
const [result] = await handle.getResult()
console.log(result!.content) // [ { type: 'text', text: 'charged 500 (key checkout-<pid>:1/c1)' } ]
await DBOS.shutdown()
