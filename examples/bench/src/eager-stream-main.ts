/**
 * `pnpm --filter @dsh-examples/bench bench:stream` (`--smoke` for tiny sizes): runs workload 12
 * (eager start from a stream) alone, writes `results/eager-stream.json` and, for a full run,
 * puts its section in `docs/benchmarks.md` (between its markers; `pnpm bench` keeps it, or
 * renders it anew from its own run).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { gitCommit } from './meta'
import { renderEagerStreamSection } from './report/eager-stream'
import { spliceSection } from './report/kept'
import { runEagerStream } from './workloads/eager-stream'

const smoke = process.argv.includes('--smoke')
const packageRoot = new URL('../', import.meta.url)
const result = await runEagerStream(smoke ? { streamMs: 60, calls: 5, fragments: 2, toolMs: 10, rounds: 1, warmup: 0, log: console.log } : { streamMs: 2000, calls: 5, fragments: 6, toolMs: 300, rounds: 5, warmup: 1, log: console.log })
const date = new Date().toISOString()
const commit = gitCommit()
const resultsDir = new URL('results/', packageRoot)
mkdirSync(resultsDir, { recursive: true })
writeFileSync(new URL(smoke ? 'eager-stream-smoke.json' : 'eager-stream.json', resultsDir), `${JSON.stringify({ date, ...(commit === undefined ? {} : { commit }), node: process.version, ...result }, null, 2)}\n`)
if (!smoke) {
  const doc = new URL('../../docs/benchmarks.md', packageRoot)
  const section = renderEagerStreamSection(result, { date, by: '`bench:stream`', ...(commit === undefined ? {} : { commit }) })
  writeFileSync(doc, spliceSection(readFileSync(doc, 'utf8'), section))
  console.log(`wrote ${fileURLToPath(doc)}`)
}
