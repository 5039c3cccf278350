/**
 * `pnpm --filter @dsh-examples/bench bench:mcp` (`--smoke` for tiny sizes): measures the MCP
 * bridge workload ({@link ./workloads/mcp}), writes `results/mcp.json` and, for a full run,
 * splices its section into `docs/benchmarks.md` (between the MCP markers; `pnpm bench` keeps it).
 *
 * Started from the TypeScript source (tsx), it bundles itself first with `build.mjs` — the way
 * the main benchmark and tsup build the packages: tsx compiles with esbuild's `keepNames`, which
 * adds an `Object.defineProperty` to every named closure the pipeline creates per call, a cost
 * the published build does not have and the SDK's plain JavaScript never pays — and runs the
 * bundle (`dist/mcp-main.mjs`) with `--single-threaded-gc` (see the workload's notes) under the
 * Node that runs the package manager, or this one.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { runMcp } from './workloads/mcp'
import { renderMcpSection, spliceMcpSection } from './report/mcp'
import { gitCommit } from './meta'

const fromSource = import.meta.url.endsWith('.ts')
if (fromSource || !process.execArgv.includes('--single-threaded-gc')) {
  const here = new URL('../', import.meta.url)
  const node = process.env.npm_node_execpath || process.execPath
  const run = (args: readonly string[]): void => {
    const child = spawnSync(node, args, { stdio: 'inherit', cwd: fileURLToPath(here) })
    if (child.error !== undefined) throw child.error
    if (child.status !== 0) process.exit(child.status ?? 1)
  }
  if (fromSource) run([fileURLToPath(new URL('build.mjs', here)), 'src/mcp-main.ts'])
  run(['--single-threaded-gc', fileURLToPath(new URL('dist/mcp-main.mjs', here)), ...process.argv.slice(2)])
  process.exit(0)
}

const smoke = process.argv.includes('--smoke')
const packageRoot = new URL('../', import.meta.url)
const result = await runMcp(smoke ? { n: 20, rounds: 2, warmup: 1, log: console.log } : { n: 1000, batches: 3, rounds: 101, warmup: 10, log: console.log })
const resultsDir = new URL('results/', packageRoot)
mkdirSync(resultsDir, { recursive: true })
const date = new Date().toISOString()
const commit = gitCommit()
writeFileSync(new URL(smoke ? 'mcp-smoke.json' : 'mcp.json', resultsDir), `${JSON.stringify({ date, ...(commit === undefined ? {} : { commit }), node: process.version, ...result }, null, 2)}\n`)
if (!smoke) {
  const doc = new URL('../../docs/benchmarks.md', packageRoot)
  writeFileSync(doc, spliceMcpSection(readFileSync(doc, 'utf8'), renderMcpSection(result, { date, ...(commit === undefined ? {} : { commit }) })))
  console.log(`wrote ${fileURLToPath(doc)}`)
}
