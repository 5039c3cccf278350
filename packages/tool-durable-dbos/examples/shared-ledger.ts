// Suspended batches resumed by several processes: the ledger lives in PostgreSQL, so a state is
// resumed once and a call runs once whichever process gets there first.
// Needs DSH_DATABASE_URL (a PostgreSQL the ledger may create its table in).
import { Context } from 'cordis'
import pg from 'pg'
import { createSuspension, defineTool, SuspensionError, ToolRegistry } from '@deepseek-ai/dsh-tools'
import NativeExecutor from '@deepseek-ai/dsh-tool-executor-native'
import { PostgresResumeLedger } from '@deepseek-ai/dsh-tool-durable-dbos'

const pool = new pg.Pool({ connectionString: process.env.DSH_DATABASE_URL })
const suspension = createSuspension({
  keys: { k1: 'a deployment secret of 32 bytes or more!' }, // from your secret store
  signWith: 'k1',
  ledger: new PostgresResumeLedger(pool), // every process shares it
})

const ctx = new Context()
await ctx.plugin(ToolRegistry)
await ctx.plugin(NativeExecutor, {})
ctx.tools.register(defineTool({ name: 'deploy', description: 'Deploys a service', parameters: { service: { type: 'string' } }, execute: ({ service }) => `deployed ${service}` }))
ctx.tools.on('tools/pre-execute', (exec, next) => (exec.name === 'deploy' ? { type: 'ask', reason: 'Deploys to production.' } : next()))
ctx.tools.approval({ request: async () => ({ type: 'defer' }) }) // a person answers later

const out = await ctx.tools.executeSuspendable({ calls: [{ callId: 'c1', name: 'deploy', arguments: '{"service":"api"}' }], suspension })
const state = out.status === 'suspended' ? out.state : undefined // store it; any process may resume it
const resumed = await ctx.tools.resume({ state: state!, decisions: { c1: { type: 'approve' } }, suspension })
console.log(resumed.status, resumed.results[0]?.content)
// complete [ { type: 'text', text: 'deployed api' } ]
await ctx.tools.resume({ state: state!, decisions: { c1: { type: 'approve' } }, suspension }).catch((e: SuspensionError) => console.log(e.code))
// STATE_REPLAYED
ctx.fiber.dispose()
await pool.end()
