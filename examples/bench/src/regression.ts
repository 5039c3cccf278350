/**
 * The regression guard of `pnpm bench:smoke`: the native pipeline's per-call time divided by the
 * floor's, at N = 1,000, must not exceed the committed report's ratio by more than 1.5×. Ratios
 * only — both systems are measured side by side in one process, alternating — so a slower or
 * busier machine moves both and the guard holds; absolute times are never compared.
 */
import { readFileSync } from 'node:fs'
import { alternate } from './sampler'
import { summarize } from './stats'
import { createDsh } from './systems/dsh'
import { createFloor } from './systems/floor'
import { scriptedCalls, verifyOutputs, type Variant } from './systems/trivial'
import type { FloorRatio } from './workloads/batch'

/** How much worse than the committed ratio a measured ratio may be. */
export const REGRESSION_FACTOR = 1.5

/** One variant's verdict. */
export interface RegressionCheck {
  readonly variant: Variant
  readonly n: number
  /** The committed report's ratio (native pipeline ÷ floor, medians). */
  readonly committed: number
  /** The best ratio of this run's attempts. */
  readonly measured: number
  /** `measured ≤ committed × REGRESSION_FACTOR`. */
  readonly ok: boolean
}

/**
 * The committed ratios at `n` from a results file (`results/latest.json`): the guard baseline a
 * full run measured the same way as the guard does (`guardRatios`: floor and pipeline alone), or,
 * in an older file, the batch workload's ratios (measured among all five systems, where the
 * others' garbage also lands in the floor's samples, so they read lower).
 */
export function committedRatios(resultsFile: URL | string, n: number): FloorRatio[] {
  const parsed = JSON.parse(readFileSync(resultsFile, 'utf8')) as { guardRatios?: FloorRatio[]; batch?: { floorRatios?: FloorRatio[] } }
  const ratios = (parsed.guardRatios ?? parsed.batch?.floorRatios)?.filter((r) => r.n === n) ?? []
  if (ratios.length === 0) throw new Error(`no committed floor ratio at N=${n} in ${String(resultsFile)}`)
  return ratios
}

/** Pure verdicts: each committed variant against the measured ratio of the same variant. */
export function judgeRegression(committed: readonly FloorRatio[], measured: ReadonlyMap<Variant, number>): RegressionCheck[] {
  return committed.map((c) => {
    const m = measured.get(c.variant)
    if (m === undefined) throw new Error(`no measured ratio for the ${c.variant} variant`)
    return { variant: c.variant, n: c.n, committed: c.ratio, measured: m, ok: m <= c.ratio * REGRESSION_FACTOR }
  })
}

/**
 * Measures the ratio for each variant: `attempts` alternations of `rounds` rounds each (after a
 * warm-up); the ratio of medians per attempt, the best attempt kept (a noisy neighbour can only
 * make a ratio worse, never better).
 */
export async function measureFloorRatios(options: { readonly n: number; readonly variants: readonly Variant[]; readonly rounds: number; readonly attempts: number }): Promise<Map<Variant, number>> {
  const out = new Map<Variant, number>()
  const calls = scriptedCalls(options.n)
  for (const variant of options.variants) {
    const floor = createFloor(calls)
    const ours = await createDsh(calls, variant)
    verifyOutputs(`dsh (${variant}, N=${options.n})`, await ours.outputs(), options.n)
    let best = Number.POSITIVE_INFINITY
    for (let attempt = 0; attempt < options.attempts; attempt++) {
      const measured = await alternate(
        [
          { id: 'floor', run: () => floor.step() },
          { id: 'dsh', run: () => ours.step() },
        ],
        { rounds: options.rounds, warmup: 10, minSampleMs: 0 },
      )
      const median = (id: string): number => summarize(measured.find((m) => m.id === id)!.ms).median
      best = Math.min(best, median('dsh') / median('floor'))
    }
    out.set(variant, best)
    await ours.dispose()
    await floor.dispose()
  }
  return out
}
