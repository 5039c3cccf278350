/**
 * Alternating sampler: every round runs each contender once (one sample = `reps` back-to-back
 * runs), rotating the order each round so no system always goes first or last, after a
 * warm-up. No GC is ever forced while timing: after `global.gc()` our 1,000-call step cost
 * 2–3× more CPU time for many runs afterwards (still 2× after 50 ms of untimed runs), a bias
 * against whichever system allocates most. Garbage one system leaves is collected during
 * whichever sample follows; the rotating order spreads that over all systems.
 */

/** One system under measurement. */
export interface Contender {
  readonly id: string
  /** One unit of work. */
  run(): Promise<void>
  /** Warm-up runs before the first sample (default: the sampler's `warmup`). */
  readonly warmup?: number
  /** Upper bound on samples (a time budget for slow peers); default: one per round. */
  readonly maxSamples?: number
  /**
   * First round this contender is sampled in (default 0). A slow, allocation-heavy peer capped
   * to a few samples takes the last rounds, so the garbage it leaves disturbs fewer samples of
   * the others.
   */
  readonly firstRound?: number
}

/** Sampler options. */
export interface SamplerOptions {
  /** Rounds of samples (each contender at most one sample per round). */
  readonly rounds: number
  /** Default warm-up runs per contender. */
  readonly warmup: number
  /**
   * A sample repeats the run until it lasts at least this many ms (calibrated from the
   * warm-up; 0 = one run per sample). Short runs are otherwise dominated by timer noise.
   */
  readonly minSampleMs: number
  /** Upper bound on runs per sample. Default 1,000. */
  readonly maxReps?: number
}

/** What the sampler measured for one contender. */
export interface Samples {
  readonly id: string
  /** Duration of one run (ms), one entry per sample. */
  readonly ms: readonly number[]
  /** Runs per sample. */
  readonly reps: number
}

const gc: (() => void) | undefined = (globalThis as { gc?: () => void }).gc

/**
 * Runs a full GC when exposed (`node --expose-gc`); returns whether it ran. For heap
 * measurements only, after all timing: code runs slower for a while after a forced GC.
 */
export function collectGarbage(): boolean {
  if (gc === undefined) return false
  gc()
  return true
}

function rotate<T>(items: readonly T[], by: number): T[] {
  const k = items.length === 0 ? 0 : by % items.length
  return [...items.slice(k), ...items.slice(0, k)]
}

/**
 * Measures `contenders` alternately. Resolves with one {@link Samples} per contender, in the
 * given order.
 */
export async function alternate(contenders: readonly Contender[], options: SamplerOptions): Promise<Samples[]> {
  const maxReps = options.maxReps ?? 1000
  const reps = new Map<string, number>()
  const warmRounds = Math.max(0, ...contenders.map((c) => c.warmup ?? options.warmup))
  const lastRun = new Map<string, number>()
  for (let round = 0; round < warmRounds; round++) {
    for (const c of rotate(contenders, round)) {
      if (round >= (c.warmup ?? options.warmup)) continue
      const t0 = performance.now()
      await c.run()
      lastRun.set(c.id, performance.now() - t0)
    }
  }
  for (const c of contenders) {
    const last = lastRun.get(c.id)
    reps.set(c.id, last === undefined || options.minSampleMs <= 0 ? 1 : Math.min(maxReps, Math.max(1, Math.ceil(options.minSampleMs / Math.max(last, 1e-3)))))
  }
  const samples = new Map<string, number[]>(contenders.map((c) => [c.id, []]))
  for (let round = 0; round < options.rounds; round++) {
    for (const c of rotate(contenders, round)) {
      const list = samples.get(c.id)!
      if (round < (c.firstRound ?? 0) || list.length >= (c.maxSamples ?? Number.POSITIVE_INFINITY)) continue
      const n = reps.get(c.id)!
      const t0 = performance.now()
      for (let i = 0; i < n; i++) await c.run()
      list.push((performance.now() - t0) / n)
    }
  }
  return contenders.map((c) => ({ id: c.id, ms: samples.get(c.id)!, reps: reps.get(c.id)! }))
}
