/**
 * The durable agent (README: commands to start, kill mid-turn, restart and approve).
 *
 *   db                       starts a local PostgreSQL in .durable-agent/ and prints its URL (runs until Ctrl-C)
 *   start [workflow id]      runs the agent's turns as a DBOS workflow (default id order-42), or
 *                            resumes it after a crash; prints each turn's results
 *   approve [workflow id]    approves the call the workflow waits on (reject with --reject "reason")
 *
 * `start` and `approve` read the database URL from DSH_DATABASE_URL.
 */
import { join } from 'node:path'
import { Context } from 'cordis'
import { DBOS, DBOSClient } from '@dbos-inc/dbos-sdk'
import { ToolRegistry, type ToolResult } from '@deepseek-ai/dsh-tools'
import NativeExecutor from '@deepseek-ai/dsh-tool-executor-native'
import { assertSystemDatabaseReachable, executeDurably, pendingDecision, sendDecision } from '@deepseek-ai/dsh-tool-durable-dbos'
import { startDatabase } from './db'
import { agentTools, TURNS } from './turns'

const [command = 'start', id = 'order-42', ...rest] = process.argv.slice(2)
const home = process.env.DSH_AGENT_DIR ?? join(process.cwd(), '.durable-agent')

function databaseUrl(): string {
  const url = process.env.DSH_DATABASE_URL
  if (url === undefined || url === '') throw new Error('set DSH_DATABASE_URL (the `db` command prints it)')
  return url
}

const line = (r: ToolResult) => `${r.callId}: ${r.isError ? `${r.error.info.code} ${r.error.message}` : (r.content[0] as { text: string }).text}`

if (command === 'db') {
  const db = await startDatabase(join(home, 'pg'), Number(process.env.DSH_DATABASE_PORT ?? 54329))
  console.log(`export DSH_DATABASE_URL=${db.url}`)
  const stop = () => void db.stop().finally(() => process.exit(0))
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
} else if (command === 'start') {
  const url = databaseUrl()
  await assertSystemDatabaseReachable(url)
  const ctx = new Context()
  await ctx.plugin(ToolRegistry)
  await ctx.plugin(NativeExecutor, {})
  // Refunds need a person: the durable batch waits for a decision sent with `approve`.
  ctx.on('tools/pre-execute', (exec, next) => (exec.name === 'refund' ? { type: 'ask', reason: 'refunds need a person' } : next()))
  for (const tool of agentTools(join(home, 'effects.log'), Number(process.env.DSH_PACK_MS ?? 8000))) ctx.tools.register(tool)
  // Each turn is one durable batch of the workflow; a replay returns finished calls from the journal.
  const agent = DBOS.registerWorkflow(
    async () => {
      const turns: string[][] = []
      for (const [n, calls] of TURNS.entries()) {
        const results = await executeDurably(ctx.tools, calls, { batch: n + 1 })
        turns.push(results.map(line))
      }
      return turns
    },
    { name: 'durable-agent.turns' },
  )
  // One executor id for this agent process: a restart recovers what the killed process left.
  DBOS.setConfig({ name: 'durable-agent', systemDatabaseUrl: url, executorID: 'durable-agent-1', applicationVersion: '1', logLevel: 'error' })
  await DBOS.launch()
  const existing = await DBOS.getWorkflowStatus(id)
  const handle = existing === null ? await DBOS.startWorkflow(agent, { workflowID: id })() : DBOS.retrieveWorkflow<string[][]>(id)
  console.log(existing === null ? `started workflow ${id}` : `resuming workflow ${id} (${existing.status})`)
  const watch = setInterval(() => {
    void pendingDecision(DBOS, id).then((p) => {
      if (p !== null) console.log(`waiting for approval of ${p.toolName} ${JSON.stringify(p.arguments)}: run \`approve ${id}\` in another shell`)
    })
  }, 1000)
  const turns = await handle.getResult()
  clearInterval(watch)
  for (const [n, results] of turns.entries()) console.log(`turn ${n + 1}\n  ${results.join('\n  ')}`)
  await DBOS.shutdown()
} else if (command === 'approve') {
  const client = await DBOSClient.create({ systemDatabaseUrl: databaseUrl() })
  try {
    const pending = await pendingDecision(client, id, 5)
    if (pending === null) throw new Error(`workflow ${id} waits on no decision`)
    const reject = rest[0] === '--reject'
    await sendDecision(client, id, pending.key, reject ? { type: 'reject', reason: rest[1] ?? 'rejected' } : { type: 'approve' })
    console.log(`${reject ? 'rejected' : 'approved'} ${pending.toolName} (${pending.key})`)
  } finally {
    await client.destroy()
  }
} else {
  console.error(`unknown command ${command}: use db, start or approve`)
  process.exitCode = 2
}
