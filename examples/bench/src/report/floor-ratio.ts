/**
 * How the report quotes our per-call cost against the floor: the median of the per-round ratios
 * (`PairedFloorRatio`, recorded by the batch workload) beside the ratio of the medians (pure).
 */
import type { BenchResults } from '../run'

/** The median of the per-round ratios of `system` to the floor, when the run recorded them. */
export function pairedFloorRatio(r: BenchResults, variant: string, n: number, system: 'dsh' | 'dsh-bare'): number | undefined {
  return r.batch.pairedFloorRatios?.find((p) => p.variant === variant && p.n === n && p.system === system)?.ratio.median
}

/**
 * A ratio to the floor as the targets quote it: the median of per-round ratios (with their
 * p25–p75) and the ratio of the medians beside it, or the latter alone for older results.
 */
export function floorRatioText(r: BenchResults, variant: string, n: number, system: 'dsh' | 'dsh-bare', ofMedians: number): string {
  const paired = r.batch.pairedFloorRatios?.find((p) => p.variant === variant && p.n === n && p.system === system)?.ratio
  if (paired === undefined) return `${ofMedians.toFixed(2)}×`
  return `${paired.median.toFixed(2)}× (median of per-round ratios, p25–p75 ${paired.p25.toFixed(2)}–${paired.p75.toFixed(2)}; ratio of the medians ${ofMedians.toFixed(2)}×)`
}
