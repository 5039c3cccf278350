/**
 * A worker process for the crash and scale-out tests: a registry with the test tools, the batch
 * workflow, the batch queue, DBOS launched on `DSH_DB_URL` as executor `DSH_EXECUTOR` (a restart
 * with the same id recovers its unfinished workflows). Prints `ready` once dequeuing; runs until
 * killed. Side effects go to files under `DSH_LOG_DIR`:
 *
 * - `attempts.log`: one line per body run, `<tool> <idempotency key>`;
 * - `effects/<sha1 of key>`: linked into place atomically by `effect` (fails if it exists), so an
 *   effect applies once per key however often the body runs (what a payment API's idempotency key
 *   gives); a killed attempt may leave a `*.tmp` file, never a partial effect;
 * - `once.log`: `begin <key>` / `end <key>` of the non-idempotent `once`.
 */
import { appendFileSync, linkSync, unlinkSync, writeFileSync } from 'node:fs'
import { createHash, randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { DBOS } from '@dbos-inc/dbos-sdk'
import { defineTool } from '@deepseek-ai/dsh-tools'
import { createHarness } from '@deepseek-ai/dsh-tool-testkit'
import { registerBatchWorkflow } from '@deepseek-ai/dsh-tool-durable-dbos'

const url = process.env.DSH_DB_URL!
const dir = process.env.DSH_LOG_DIR!
const executorID = process.env.DSH_EXECUTOR ?? 'w1'
/** `DSH_FAST=1` (a restarted worker in a test): bodies skip their sleeps, so a re-run is quick. */
const pause = (ms: number, signal: AbortSignal) => (process.env.DSH_FAST === '1' ? Promise.resolve() : sleep(ms, undefined, { signal }))
const QUEUE = 'dsh-batches'

const h = await createHarness()
h.ctx.tools.register(
  defineTool({
    name: 'effect',
    description: 'Applies an effect once per idempotency key',
    parameters: { batch: { type: 'integer' }, n: { type: 'integer' }, ms: { type: 'integer' } },
    output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
    idempotent: true,
    isConcurrencySafe: () => true,
    async execute(args, exec) {
      appendFileSync(join(dir, 'attempts.log'), `effect ${exec.idempotencyKey}\n`)
      await pause(args.ms ?? 0, exec.signal)
      // Atomic, as an idempotent API's write is: the content goes to a file of this attempt, then
      // is linked under the key's name (fails if it exists). An exclusive create followed by a
      // write could leave an empty file behind a SIGKILL between the two, and the re-run would
      // take it for the applied effect.
      const name = join(dir, 'effects', createHash('sha1').update(exec.idempotencyKey!).digest('hex'))
      const attempt = `${name}.${process.pid}.${randomUUID()}.tmp`
      writeFileSync(attempt, `${exec.idempotencyKey}\n`)
      try {
        linkSync(attempt, name)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      } finally {
        unlinkSync(attempt)
      }
      return `${args.batch}:${(args.n ?? 0) * 2}`
    },
  }),
)
h.ctx.tools.register(
  defineTool({
    name: 'once',
    description: 'A side effect that must not repeat',
    parameters: { n: { type: 'integer' }, ms: { type: 'integer' } },
    output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
    async execute(args, exec) {
      appendFileSync(join(dir, 'once.log'), `begin ${exec.idempotencyKey}\n`)
      await pause(args.ms ?? 0, exec.signal)
      appendFileSync(join(dir, 'once.log'), `end ${exec.idempotencyKey}\n`)
      return `done ${args.n}`
    },
  }),
)
// `transfer` needs a person's decision.
h.ctx.on('tools/pre-execute', (exec, next) => (exec.name === 'transfer' ? { type: 'ask', reason: 'moves money' } : next()))
h.ctx.tools.register(
  defineTool({
    name: 'transfer',
    description: 'Moves money',
    parameters: { amount: { type: 'integer' } },
    output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
    execute(args, exec) {
      appendFileSync(join(dir, 'attempts.log'), `transfer ${exec.idempotencyKey}\n`)
      return `moved ${args.amount}`
    },
  }),
)

registerBatchWorkflow(h.tools)
DBOS.setConfig({ name: 'dsh-durable-test', systemDatabaseUrl: url, executorID, applicationVersion: 'dsh-test', logLevel: 'error' })
await DBOS.launch()
await DBOS.registerQueue(QUEUE, { workerConcurrency: Number(process.env.DSH_WORKER_CONCURRENCY ?? 4) })
process.stdout.write('ready\n')
process.on('SIGTERM', () => {
  void DBOS.shutdown().finally(() => process.exit(0))
})
