/**
 * `pnpm bench` entry: runs every workload, writes `results/latest.json` (`results/smoke.json`
 * with `--smoke` or `BENCH_SMOKE=1`) and, for a full run, renders `docs/benchmarks.md` and
 * `docs/benchmarks-batch.svg`. `--render` (`pnpm bench:render`) measures nothing: it renders the
 * report again from the committed `results/latest.json` — for a change of the report's code or
 * of `src/report/optimisations.md` between runs; the figures, date and commit stay the run's.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { runBench, type BenchResults } from './run'
import { committedRatios, GUARD_FLAG, GUARD_PLAN, judgeRegression, measureFloorRatios, measureFloorRatiosInChild, REGRESSION_FACTOR } from './regression'
import type { Variant } from './systems/trivial'
import { renderBatchChart, renderReport } from './report/markdown'
import { carryKeptSections, spliceSection } from './report/kept'
import { renderEagerStreamSection } from './report/eager-stream'

// `--guard-measure sequential,parallel`: only the regression guard's measurement, printed as one
// JSON line (the child process of `measureFloorRatiosInChild`).
const guardAt = process.argv.indexOf(GUARD_FLAG)
if (guardAt !== -1) {
  const variants = (process.argv[guardAt + 1] ?? '').split(',').filter((v): v is Variant => v === 'sequential' || v === 'parallel')
  const ratios = await measureFloorRatios({ ...GUARD_PLAN, variants })
  console.log(JSON.stringify(Object.fromEntries(ratios)))
  process.exit(0)
}

const smoke = process.argv.includes('--smoke') || process.env.BENCH_SMOKE === '1'
const bundled = import.meta.url.includes('/dist/')
const packageRoot = new URL('../', import.meta.url)
const resultsDir = new URL('results/', packageRoot)
const docsDir = new URL('../../docs/', packageRoot)

/**
 * Writes `docs/benchmarks.md` and the chart for `results`, keeping the sections other runs wrote
 * between markers (`report/kept.ts`); the eager-start section is rendered anew when `results`
 * has it (results from before that workload keep the file's).
 */
function writeReport(results: BenchResults): void {
  const optimisations = readFileSync(new URL('src/report/optimisations.md', packageRoot), 'utf8')
  mkdirSync(docsDir, { recursive: true })
  writeFileSync(new URL('benchmarks-batch.svg', docsDir), renderBatchChart(results))
  const report = renderReport(results, { chartFile: 'benchmarks-batch.svg', optimisations })
  // Keep the sections other runs wrote (MCP bridge and server, durable engines, PTC replay): each between its markers.
  const old = existsSync(new URL('benchmarks.md', docsDir)) ? readFileSync(new URL('benchmarks.md', docsDir), 'utf8') : ''
  const kept = carryKeptSections(report, old)
  const eager = results.eagerStream === undefined ? undefined : renderEagerStreamSection(results.eagerStream, { date: results.meta.date, ...(results.meta.commit === undefined ? {} : { commit: results.meta.commit }) })
  writeFileSync(new URL('benchmarks.md', docsDir), eager === undefined ? kept : spliceSection(kept, eager))
  console.log(`[bench] wrote ${fileURLToPath(new URL('benchmarks.md', docsDir))} and benchmarks-batch.svg`)
}

if (process.argv.includes('--render')) {
  const committed = new URL('latest.json', resultsDir)
  const results = JSON.parse(readFileSync(committed, 'utf8')) as BenchResults
  writeReport(results)
  console.log(`[bench] rendered from ${fileURLToPath(committed)} (measured ${results.meta.date}; nothing measured now)`)
  process.exit(0)
}

const started = performance.now()
const measuredResults = await runBench({ smoke, build: bundled ? 'bundle' : 'source', log: (line) => console.log(`[bench] ${line}`) })
// A full run also records the regression guard's own measurement (floor and native pipeline
// alone, alternating, best attempt, in a fresh child process): `bench:smoke` later measures the
// same way and compares.
const guardBaseline = smoke ? undefined : await measureFloorRatiosInChild(fileURLToPath(import.meta.url), ['sequential', 'parallel'])
const results = guardBaseline === undefined ? measuredResults : { ...measuredResults, guardRatios: [...guardBaseline].map(([variant, ratio]) => ({ variant, n: 1000, ratio, overheadUs: 0 })) }
if (guardBaseline !== undefined) console.log(`[bench] regression guard baseline: ${[...guardBaseline].map(([v, r]) => `${v} ${r.toFixed(2)}×`).join(', ')}`)
mkdirSync(resultsDir, { recursive: true })
const resultFile = new URL(smoke ? 'smoke.json' : 'latest.json', resultsDir)
writeFileSync(resultFile, `${JSON.stringify(results, null, 2)}\n`)
console.log(`[bench] wrote ${fileURLToPath(resultFile)}`)
if (!smoke) writeReport(results)
if (smoke) {
  // The regression guard: ratios to the floor at N = 1,000 against the committed report.
  const committed = committedRatios(new URL('latest.json', resultsDir), 1000)
  const measured = await measureFloorRatiosInChild(fileURLToPath(import.meta.url), committed.map((c) => c.variant))
  const checks = judgeRegression(committed, measured)
  for (const c of checks) console.log(`[bench] regression guard ${c.variant} N=${c.n}: ${c.measured.toFixed(1)}× the floor (committed ${c.committed.toFixed(1)}×, limit ${(c.committed * REGRESSION_FACTOR).toFixed(1)}×) ${c.ok ? 'ok' : 'REGRESSED'}`)
  if (checks.some((c) => !c.ok)) process.exitCode = 1
}
console.log(`[bench] done in ${((performance.now() - started) / 1000).toFixed(0)} s`)
