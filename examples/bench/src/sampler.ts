/**
 * Alternating sampler: every round runs each contender once (one sample = `reps` back-to-back
 * runs), in an order shuffled per round ({@link roundOrder}) so no system always goes first or
 * last or always follows the same one, after a warm-up. No GC is ever forced while timing: after
 * `global.gc()` our 1,000-call step cost 2–3× more CPU time for many runs afterwards (still 2×
 * after 50 ms of untimed runs), a bias against whichever system allocates most. Garbage one
 * system leaves is collected during whichever sample follows; the shuffled order spreads that
 * over all systems.
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

/**
 * The order of `items` in round `round`: a shuffle seeded by the round number (Fisher–Yates over
 * mulberry32), the same in every run. A rotation would keep each contender's predecessor fixed,
 * so the garbage-collection work one contender leaves (an incremental marking it started, pages
 * to sweep) would always land on the same next one — in the batch workload the Vercel AI SDK's on
 * the floor and `dsh-bare`, whose samples then split into a fast and a slow half. Shuffled, every
 * contender follows every other in some rounds.
 */
export function roundOrder<T>(items: readonly T[], round: number): T[] {
  const out = [...items]
  let state = (0x9e3779b9 ^ Math.imul(round + 1, 0x85ebca6b)) >>> 0
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1))
    const tmp = out[i]!
    out[i] = out[j]!
    out[j] = tmp
  }
  return out
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
    for (const c of roundOrder(contenders, round)) {
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
    for (const c of roundOrder(contenders, round)) {
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
