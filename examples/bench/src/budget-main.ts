/**
 * The cost of result budgets, on its own, for docs/benchmarks.md ("Result budgets"):
 * `tsx --conditions=dsh-source src/budget-main.ts` (from examples/bench). Four cases of a
 * 100-call batch, interleaved in rounds (each round starting with the next case), median per call: a short result without a budget (the
 * fast path), the same with a budget it fits (the budgeted path, nothing cut), a 200,000-character
 * result capped by `contentLimits` (no budget), and the same cut by a 2,000-character budget
 * (marker, store put). Ratios within one run.
 */
import os from 'node:os'
import { Context } from 'cordis'
import { ToolRegistry, createMemoryResultStore, defineTool } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'

const BIG = '0123456789'.repeat(20_000)
const N = 100
const at = process.argv.indexOf('--rounds')
const ROUNDS = at === -1 ? 21 : Number(process.argv[at + 1])

const ctx = new Context()
await ctx.plugin(ToolRegistry, { resultBudget: { store: createMemoryResultStore({ maxBytes: 8 * 1024 * 1024 }) } })
await ctx.plugin(NativeExecutor, {})
const tool = (name: string, value: string, maxChars?: number) =>
  defineTool({ name, description: 'd', parameters: {}, isConcurrencySafe: () => true, execute: () => value, ...(maxChars === undefined ? {} : { resultBudget: { maxChars } }) })
ctx.tools.register(tool('short', 'ok: 42'))
ctx.tools.register(tool('short_budgeted', 'ok: 42', 2_000))
ctx.tools.register(tool('big', BIG))
ctx.tools.register(tool('big_budgeted', BIG, 2_000))

const cases = ['short', 'short_budgeted', 'big', 'big_budgeted'] as const
const calls = (name: string) => Array.from({ length: N }, (_, i) => ({ callId: `c${i}`, name, arguments: '{}' }))
const samples = new Map<string, number[]>(cases.map((c) => [c, []]))
for (let round = 0; round < ROUNDS + 3; round++) {
  // Each round starts with another case, so no case always follows the large ones (their GC).
  for (let k = 0; k < cases.length; k++) {
    const name = cases[(round + k) % cases.length]!
    const t0 = process.hrtime.bigint()
    await ctx.tools.execute({ calls: calls(name) })
    const perCall = Number(process.hrtime.bigint() - t0) / 1_000 / N
    if (round >= 3) samples.get(name)!.push(perCall)
  }
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const m = Object.fromEntries(cases.map((c) => [c, median(samples.get(c)!)]))
for (const c of cases) console.log(`${c}: ${m[c]!.toFixed(2)} µs per call`)
console.log(`short budgeted / short: ×${(m.short_budgeted! / m.short!).toFixed(2)}; big budgeted / big capped: ×${(m.big_budgeted! / m.big!).toFixed(2)}`)
console.log(`(${ROUNDS} rounds of ${N}-call batches, Node ${process.version}, ${os.cpus().length} cores, load ${(os.loadavg()[0] ?? 0).toFixed(1)})`)
await ctx.fiber.dispose()
