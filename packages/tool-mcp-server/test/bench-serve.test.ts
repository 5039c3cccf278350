/**
 * The serving benchmark at tiny sizes (`examples/bench-serve.ts`): it runs to completion, counts
 * what it says, and orders the two sides as expected (a served call costs more CPU than the same
 * call in process). No wall-clock value is asserted.
 */
import { expect, test } from 'vitest'
import { runServeBench, summarize } from '../examples/bench-serve'

test('bridge → server → pipeline costs more than the in-process call, per round', { timeout: 60_000 }, async () => {
  const r = await runServeBench({ n: 20, rounds: 3, warmup: 1 })
  expect([r.local.length, r.served.length, r.ratios.length]).toEqual([3, 3, 3])
  expect(r.ratios.every((x) => x > 1)).toBe(true)
  expect(summarize(r).split('\n').map((l) => l.split(':')[0])).toEqual(['in-process ctx.tools.execute', 'bridge → HTTP → server → pipeline', 'served ÷ in-process (CPU, median of per-round ratios)'])
})
