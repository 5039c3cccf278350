/**
 * Summary statistics of benchmark samples (pure functions).
 *
 * Percentiles use linear interpolation between closest ranks (the "R-7" / NumPy default
 * method); MAD is the median absolute deviation from the median, unscaled.
 */

/** Median, quartiles and spread of a sample set. Units are those of the input. */
export interface Summary {
  /** Number of samples. */
  readonly n: number
  readonly median: number
  readonly p25: number
  readonly p75: number
  /** Median absolute deviation from the median (unscaled). */
  readonly mad: number
  readonly min: number
  readonly max: number
}

/**
 * The `q`-quantile (0–1) of ascending `sorted` values, linearly interpolated.
 *
 * @throws RangeError when `sorted` is empty or `q` is outside 0–1.
 */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) throw new RangeError('quantile of an empty sample set')
  if (!(q >= 0 && q <= 1)) throw new RangeError(`quantile q must be within 0..1, got ${q}`)
  const pos = (sorted.length - 1) * q
  const lo = Math.floor(pos)
  const hi = Math.ceil(pos)
  const a = sorted[lo]!
  const b = sorted[hi]!
  return a + (b - a) * (pos - lo)
}

/**
 * Summarises samples: median, p25/p75, MAD, min and max.
 *
 * @throws RangeError when `samples` is empty.
 */
export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((x, y) => x - y)
  const median = quantile(sorted, 0.5)
  const deviations = sorted.map((v) => Math.abs(v - median)).sort((x, y) => x - y)
  return {
    n: sorted.length,
    median,
    p25: quantile(sorted, 0.25),
    p75: quantile(sorted, 0.75),
    mad: quantile(deviations, 0.5),
    min: sorted[0]!,
    max: sorted[sorted.length - 1]!,
  }
}

/** Multiplies every statistic of a summary by `factor` (unit conversion, per-call division). */
export function scaleSummary(summary: Summary, factor: number): Summary {
  return {
    n: summary.n,
    median: summary.median * factor,
    p25: summary.p25 * factor,
    p75: summary.p75 * factor,
    mad: summary.mad * factor,
    min: summary.min * factor,
    max: summary.max * factor,
  }
}

/**
 * Least-squares slope and intercept of `y` over `x`, and the ratio of the largest-N per-unit
 * cost to the smallest-N per-unit cost (1.0 = perfectly linear with no fixed cost).
 *
 * @throws RangeError with fewer than two points.
 */
export function linearFit(points: readonly { readonly x: number; readonly y: number }[]): { readonly slope: number; readonly intercept: number; readonly r2: number } {
  if (points.length < 2) throw new RangeError('linearFit needs at least two points')
  const n = points.length
  const mx = points.reduce((s, p) => s + p.x, 0) / n
  const my = points.reduce((s, p) => s + p.y, 0) / n
  let sxy = 0
  let sxx = 0
  let syy = 0
  for (const p of points) {
    sxy += (p.x - mx) * (p.y - my)
    sxx += (p.x - mx) ** 2
    syy += (p.y - my) ** 2
  }
  const slope = sxx === 0 ? 0 : sxy / sxx
  const intercept = my - slope * mx
  const r2 = syy === 0 ? 1 : (sxy * sxy) / (sxx * syy)
  return { slope, intercept, r2 }
}
