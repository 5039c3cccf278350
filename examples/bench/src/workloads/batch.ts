/**
 * Workloads 1 and 2 (docs/design.md, "Performance targets", "Batch overhead"): one model step of N trivial calls
 * through every system, alternating systems, for N in {10, 100, 1,000} and for
 * sequential-safe and parallel-safe tools. Reports per-call time (median, p25/p75, MAD), each
 * peer's ratio to ours, our ratio to the floor, and a linear fit of step time over N.
 */
import { alternate, type Contender } from '../sampler'
import { linearFit, scaleSummary, summarize, type Summary } from '../stats'
import { createAgentsSdk } from '../systems/agents-sdk'
import { createAiSdk } from '../systems/ai-sdk'
import { createDsh } from '../systems/dsh'
import { createFloor } from '../systems/floor'
import { scriptedCalls, verifyOutputs, type StepSystem, type Variant } from '../systems/trivial'

/**
 * The systems of the batch workload, in report order. `dsh-bare` and `dsh-ctx-on` are
 * attribution runs: our pipeline without the listener, the guard and the wrapper, and with the
 * listener and the wrapper registered through cordis' `ctx.on` instead of `ctx.tools.on`
 * (everything else identical).
 */
export const BATCH_SYSTEMS = ['floor', 'dsh-bare', 'dsh', 'dsh-ctx-on', 'ai-sdk', 'agents-sdk'] as const
export type BatchSystemId = (typeof BATCH_SYSTEMS)[number]

/** Sampling plan for one batch size. */
export interface BatchPlan {
  readonly n: number
  readonly rounds: number
  readonly warmup: number
  readonly minSampleMs: number
  /** Per-system caps (slow peers at large N): warm-up runs and samples. */
  readonly caps?: Partial<Record<BatchSystemId, { readonly warmup?: number; readonly maxSamples?: number }>>
}

/** Workload configuration. */
export interface BatchConfig {
  readonly variants: readonly Variant[]
  readonly plans: readonly BatchPlan[]
  /** Progress lines go here. */
  readonly log: (line: string) => void
}

/** One measured cell: a system at a batch size and variant. */
export interface BatchRow {
  readonly variant: Variant
  readonly n: number
  readonly system: BatchSystemId
  /** Time per call, µs. */
  readonly perCallUs: Summary
  /** Time per step (all N calls), ms. */
  readonly stepMs: Summary
  /** Runs per sample. */
  readonly reps: number
}

/** A peer's median per-call time divided by ours (> 1: we are faster). */
export interface PeerRatio {
  readonly variant: Variant
  readonly n: number
  readonly peer: 'ai-sdk' | 'agents-sdk'
  readonly ratio: number
}

/** Our median per-call time divided by the floor's (the overhead factor). */
export interface FloorRatio {
  readonly variant: Variant
  readonly n: number
  readonly ratio: number
  /** Our per-call overhead above the floor, µs. */
  readonly overheadUs: number
}

/**
 * One of our systems against the floor, round by round: each round of `alternate` runs every
 * system back to back, so a change in the host's speed between rounds (which moves both) cancels
 * in the ratio of that round's two samples. `ratio` summarises those per-round ratios (the
 * statistic the MCP section uses too); {@link FloorRatio} is the ratio of the two medians.
 */
export interface PairedFloorRatio {
  readonly variant: Variant
  readonly n: number
  readonly system: 'dsh' | 'dsh-bare'
  readonly ratio: Summary
}

/** Least-squares fit of median step time over N. */
export interface Linearity {
  readonly variant: Variant
  readonly system: BatchSystemId
  /** Marginal cost per call, µs. */
  readonly slopeUs: number
  /** Fixed cost per step, µs. */
  readonly interceptUs: number
  readonly r2: number
  /** Per-call time at the largest N over per-call time at the middle N (1.0 = linear, no fixed cost). */
  readonly growth: number
}

/** The workload's result. */
export interface BatchResult {
  readonly rows: readonly BatchRow[]
  readonly peerRatios: readonly PeerRatio[]
  readonly floorRatios: readonly FloorRatio[]
  /** Per-round ratios of `dsh` and `dsh-bare` to the floor (absent in results made before they were recorded). */
  readonly pairedFloorRatios?: readonly PairedFloorRatio[]
  readonly linearity: readonly Linearity[]
}

async function createSystem(id: BatchSystemId, n: number, variant: Variant): Promise<StepSystem> {
  const calls = scriptedCalls(n)
  switch (id) {
    case 'floor':
      return createFloor(calls)
    case 'dsh':
      return createDsh(calls, variant)
    case 'dsh-bare':
      return createDsh(calls, variant, { hooks: 'none' })
    case 'dsh-ctx-on':
      return createDsh(calls, variant, { hooks: 'ctx' })
    case 'ai-sdk':
      return createAiSdk(calls)
    case 'agents-sdk':
      return createAgentsSdk(calls)
  }
}

/** Runs the batch workload. Every system's outputs are verified before it is timed. */
export async function runBatch(config: BatchConfig): Promise<BatchResult> {
  const rows: BatchRow[] = []
  const pairedFloorRatios: PairedFloorRatio[] = []
  for (const variant of config.variants) {
    for (const plan of config.plans) {
      // Verified in reverse report order, so the slowest, most allocating peer goes first and
      // the others' verification and warm-up runs absorb the collection of its garbage.
      const systems: StepSystem[] = []
      for (const id of [...BATCH_SYSTEMS].reverse()) {
        const system = await createSystem(id, plan.n, variant)
        verifyOutputs(`${id} (${variant}, N=${plan.n})`, await system.outputs(), plan.n)
        systems.unshift(system)
      }
      const contenders: Contender[] = systems.map((s) => {
        const cap = plan.caps?.[s.id as BatchSystemId]
        return {
          id: s.id,
          run: () => s.step(),
          ...(cap?.warmup === undefined ? {} : { warmup: cap.warmup }),
          // A capped peer takes the last rounds (see `Contender.firstRound`).
          ...(cap?.maxSamples === undefined ? {} : { maxSamples: cap.maxSamples, firstRound: Math.max(0, plan.rounds - cap.maxSamples) }),
        }
      })
      const t0 = performance.now()
      const measured = await alternate(contenders, { rounds: plan.rounds, warmup: plan.warmup, minSampleMs: plan.minSampleMs })
      for (const m of measured) {
        const stepMs = summarize(m.ms)
        rows.push({ variant, n: plan.n, system: m.id as BatchSystemId, stepMs, perCallUs: scaleSummary(stepMs, 1000 / plan.n), reps: m.reps })
      }
      const floorSamples = measured.find((m) => m.id === 'floor')?.ms
      for (const system of ['dsh', 'dsh-bare'] as const) {
        const ours = measured.find((m) => m.id === system)?.ms
        if (floorSamples === undefined || ours === undefined || ours.length !== floorSamples.length || ours.length === 0) continue
        pairedFloorRatios.push({ variant, n: plan.n, system, ratio: summarize(ours.map((x, i) => x / floorSamples[i]!)) })
      }
      for (const s of systems) await s.dispose()
      const line = measured.map((m) => `${m.id} ${((summarize(m.ms).median * 1000) / plan.n).toFixed(2)}µs`).join(', ')
      config.log(`batch ${variant} N=${plan.n}: ${line} per call (${((performance.now() - t0) / 1000).toFixed(1)} s)`)
    }
  }
  return { rows, ...deriveBatch(rows), pairedFloorRatios }
}

/** Ratios and linear fits from measured rows (pure). */
export function deriveBatch(rows: readonly BatchRow[]): Omit<BatchResult, 'rows'> {
  const cell = (variant: Variant, n: number, system: BatchSystemId) => rows.find((r) => r.variant === variant && r.n === n && r.system === system)
  const peerRatios: PeerRatio[] = []
  const floorRatios: FloorRatio[] = []
  const linearity: Linearity[] = []
  const variants = [...new Set(rows.map((r) => r.variant))]
  for (const variant of variants) {
    const ns = [...new Set(rows.filter((r) => r.variant === variant).map((r) => r.n))].sort((a, b) => a - b)
    for (const n of ns) {
      const ours = cell(variant, n, 'dsh')
      if (ours === undefined) continue
      for (const peer of ['ai-sdk', 'agents-sdk'] as const) {
        const p = cell(variant, n, peer)
        if (p !== undefined) peerRatios.push({ variant, n, peer, ratio: p.perCallUs.median / ours.perCallUs.median })
      }
      const floor = cell(variant, n, 'floor')
      if (floor !== undefined) floorRatios.push({ variant, n, ratio: ours.perCallUs.median / floor.perCallUs.median, overheadUs: ours.perCallUs.median - floor.perCallUs.median })
    }
    if (ns.length >= 2) {
      for (const system of BATCH_SYSTEMS) {
        const points = ns.flatMap((n) => {
          const c = cell(variant, n, system)
          return c === undefined ? [] : [{ x: n, y: c.stepMs.median * 1000 }]
        })
        if (points.length < 2) continue
        const fit = linearFit(points)
        const last = cell(variant, ns[ns.length - 1]!, system)!
        const middle = cell(variant, ns[ns.length - 2]!, system)!
        linearity.push({ variant, system, slopeUs: fit.slope, interceptUs: fit.intercept, r2: fit.r2, growth: last.perCallUs.median / middle.perCallUs.median })
      }
    }
  }
  return { peerRatios, floorRatios, linearity }
}
