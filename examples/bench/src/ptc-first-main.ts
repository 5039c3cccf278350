/**
 * One sample of "PTC first run after plugin start", in a process of its own (started by the
 * `ptc` workload, `measureFirstRuns`): boots a harness the way a user does — `createHarness`
 * with the `PtcExecutor` plugin, whose start awaits the executor's `warmUp()` — registers the
 * `add` tool, times the first `run_code` of one program, and prints one JSON line
 * `{ startMs, firstMs, text }` (plugin start and first run in ms, the run's output text).
 *
 * Usage: `node dist/ptc-first-main.mjs trivial|sub-call` (bundle) or
 * `node --import tsx --conditions=dsh-source src/ptc-first-main.ts trivial|sub-call` (sources).
 */
import { createHarness } from '@deepseek-ai/dsh-tool-testkit'
import { PtcExecutor } from '@deepseek-ai/dsh-tool-executor-ptc'
import { dshAddTool } from './systems/dsh'
import { FIRST_RUN_PROGRAMS, type FirstRunProgram } from './workloads/ptc-first'

const kind = process.argv[2] as FirstRunProgram
const program = FIRST_RUN_PROGRAMS[kind]
if (program === undefined) throw new Error(`usage: ptc-first-main trivial|sub-call (got ${JSON.stringify(kind)})`)
const t0 = performance.now()
const h = await createHarness({ executor: 'none', plugins: [{ plugin: PtcExecutor, config: {} }] })
const startMs = performance.now() - t0
h.ctx.tools.register(dshAddTool(true))
const t1 = performance.now()
const [result] = await h.tools.execute({ calls: [{ callId: 'first', name: 'run_code', arguments: JSON.stringify({ code: program.code, description: 'first run' }) }] })
const firstMs = performance.now() - t1
const text = result === undefined ? 'no result' : result.isError ? `error: ${result.error.message}` : result.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
await h.dispose()
console.log(JSON.stringify({ startMs, firstMs, text }))
