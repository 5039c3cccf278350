/**
 * Instructions per call of the native pipeline, for callgrind (docs/benchmarks.md, "Instruction
 * counts"): one process runs `warmup` batches, then `batches` batches of `n` trivial calls, and
 * exits. Run it twice under `valgrind --tool=callgrind node --single-threaded --predictable` with
 * two batch counts; the difference of the two totals divided by the difference of the calls is
 * the cost of a call without the process's start-up and warm-up.
 *
 * Usage: node dist/instructions-main.mjs <batches> [--n 1000] [--warmup 10] [--variant sequential|parallel] [--hooks none|tools]
 */
import { createDsh, type DshHooks } from './systems/dsh'
import { scriptedCalls, verifyOutputs, type Variant } from './systems/trivial'

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`)
  return i === -1 ? fallback : process.argv[i + 1]!
}

const batches = Number(process.argv[2] ?? '5')
const n = Number(option('n', '1000'))
const warmup = Number(option('warmup', '10'))
const variant = option('variant', 'sequential') as Variant
const hooks = option('hooks', 'none') as DshHooks
const system = await createDsh(scriptedCalls(n), variant, { hooks })
verifyOutputs(system.id, await system.outputs(), n)
for (let i = 0; i < warmup; i++) await system.step()
for (let i = 0; i < batches; i++) await system.step()
await system.dispose()
