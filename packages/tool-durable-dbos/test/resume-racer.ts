/**
 * One process of the shared-ledger resume test: registers the same tools as the suspending
 * process, builds the suspension with a `PostgresResumeLedger` on `DSH_DB_URL`, prints `ready`,
 * waits for a line on stdin, resumes the state in `DSH_STATE_FILE` with the approval of call `b`,
 * and prints one JSON line: `{ status, results }` or `{ refused: code }`. The `write` body appends
 * a line to `DSH_EFFECTS` (one line per run, whichever process runs it).
 */
import { appendFileSync, readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import pg from 'pg'
import { PostgresResumeLedger } from '@deepseek-ai/dsh-tool-durable-dbos'
import { createSuspension, SuspensionError } from '@deepseek-ai/dsh-tools'
import { createHarness } from '@deepseek-ai/dsh-tool-testkit'
import { registerRaceTools, RACE_KEY } from './resume-tools'

const pool = new pg.Pool({ connectionString: process.env.DSH_DB_URL, max: 2 })
pool.on('error', () => undefined)
const h = await createHarness()
registerRaceTools(h.ctx, (text) => appendFileSync(process.env.DSH_EFFECTS!, `${process.pid} ${text}\n`))
const suspension = createSuspension({ keys: { k1: RACE_KEY }, signWith: 'k1', ledger: new PostgresResumeLedger(pool) })
process.stdout.write('ready\n')
await new Promise<void>((resolve) => createInterface({ input: process.stdin }).once('line', () => resolve()))
try {
  const outcome = await h.tools.resume({ state: readFileSync(process.env.DSH_STATE_FILE!, 'utf8'), decisions: { b: { type: 'approve' } }, suspension })
  process.stdout.write(`${JSON.stringify({ status: outcome.status, results: outcome.results })}\n`)
} catch (error) {
  if (!(error instanceof SuspensionError)) throw error
  process.stdout.write(`${JSON.stringify({ refused: error.code })}\n`)
} finally {
  await h.dispose()
  await pool.end()
}
