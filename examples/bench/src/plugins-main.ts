/**
 * Runs workload 6 (plugins mounted and idle) on its own and prints its report section, for
 * updating docs/benchmarks.md without the whole run: `node build.mjs src/plugins-main.ts &&
 * node --expose-gc dist/plugins-main.mjs [--rounds N]` (from examples/bench).
 */
import os from 'node:os'
import { runPlugins } from './workloads/plugins'
import { renderPluginsSection } from './report/markdown'

const at = process.argv.indexOf('--rounds')
const rounds = at === -1 ? 15 : Number(process.argv[at + 1])
const load = os.loadavg()[0] ?? 0
const result = await runPlugins({ n: 100, rounds, warmup: 3, minSampleMs: 20, log: (line) => console.error(`[bench] ${line}`) })
console.log(renderPluginsSection(result))
console.log(`Measured on its own (${rounds} rounds, Node ${process.version}, ${os.cpus().length} cores, load average ${load.toFixed(1)} → ${(os.loadavg()[0] ?? 0).toFixed(1)} during the run).`)
