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

/**
 * How the guard measures, for the committed baseline and for the check alike: N = 1,000, 60
 * warm-up steps, then 5 attempts of 15 alternating rounds, in a fresh child process of its own
 * ({@link measureFloorRatiosInChild}) so both measurements start from the same state (in the
 * process of a full run, after minutes of other workloads, the ratio read 10–20 % lower than in
 * a fresh one).
 */
export const GUARD_PLAN = { n: 1000, rounds: 15, attempts: 5, warmup: 60 } as const

/** The flag that makes the benchmark entry run only the guard's measurement and print it as JSON. */
export const GUARD_FLAG = '--guard-measure'

/**
 * Runs {@link measureFloorRatios} with {@link GUARD_PLAN} in a child process: `entry` (this
 * benchmark's entry module, run with this process's Node and flags) started with
 * {@link GUARD_FLAG} and the variants, which prints one JSON line `{ "<variant>": ratio }`.
 *
 * @throws Error when the child fails or prints no result.
 */
export async function measureFloorRatiosInChild(entry: string, variants: readonly Variant[]): Promise<Map<Variant, number>> {
  const { execFile } = await import('node:child_process')
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, [...process.execArgv, '--expose-gc', entry, GUARD_FLAG, variants.join(',')], { maxBuffer: 1 << 20 }, (error, out, err) => {
      if (error !== null) reject(new Error(`regression guard: the measuring process failed: ${error.message}\n${err}`))
      else resolve(out)
    })
  })
  const line = stdout.trim().split('\n').pop() ?? ''
  const parsed = JSON.parse(line) as Record<string, number>
  return new Map(variants.map((v) => {
    const ratio = parsed[v]
    if (typeof ratio !== 'number') throw new Error(`regression guard: no ratio for ${v} in ${JSON.stringify(line)}`)
    return [v, ratio] as const
  }))
}

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
export async function measureFloorRatios(options: { readonly n: number; readonly variants: readonly Variant[]; readonly rounds: number; readonly attempts: number; readonly warmup?: number }): Promise<Map<Variant, number>> {
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
        { rounds: options.rounds, warmup: options.warmup ?? 10, minSampleMs: 0 },
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
