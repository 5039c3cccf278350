/**
 * `pnpm --filter @dsh-examples/bench bench:mcp` (`--smoke` for tiny sizes): measures the MCP
 * bridge workload ({@link ./workloads/mcp}), writes `results/mcp.json` and, for a full run,
 * splices its section into `docs/benchmarks.md` (between the MCP markers; `pnpm bench` keeps it).
 * Restarts itself with `--single-threaded-gc` when started without it (see the workload's notes).
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { runMcp } from './workloads/mcp'
import { renderMcpSection, spliceMcpSection } from './report/mcp'

if (!process.execArgv.includes('--single-threaded-gc')) {
  const child = spawnSync(process.execPath, ['--single-threaded-gc', ...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' })
  process.exit(child.status ?? 1)
}

const smoke = process.argv.includes('--smoke')
const packageRoot = new URL('../', import.meta.url)
const result = await runMcp(smoke ? { n: 20, rounds: 2, warmup: 1, log: console.log } : { n: 1000, rounds: 101, warmup: 10, log: console.log })
const resultsDir = new URL('results/', packageRoot)
mkdirSync(resultsDir, { recursive: true })
writeFileSync(new URL(smoke ? 'mcp-smoke.json' : 'mcp.json', resultsDir), `${JSON.stringify({ date: new Date().toISOString(), node: process.version, ...result }, null, 2)}\n`)
if (!smoke) {
  const doc = new URL('../../docs/benchmarks.md', packageRoot)
  writeFileSync(doc, spliceMcpSection(readFileSync(doc, 'utf8'), renderMcpSection(result)))
  console.log(`wrote ${fileURLToPath(doc)}`)
}
