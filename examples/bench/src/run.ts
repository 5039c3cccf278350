/**
 * The benchmark runner: runs every workload in order with the full or the smoke plan and
 * returns one result object. `main.ts` writes it to `results/` and renders `docs/benchmarks.md`;
 * the smoke test calls {@link runBench} in-process.
 */
import os from 'node:os'
import { describeThrown } from '@deepseek-ai/dsh-tools'
import { collectMeta, hostProbeMs, type RunMeta } from './meta'
import { runAtScale, type AtScaleResult } from './workloads/at-scale'
import { runBatch, type BatchResult } from './workloads/batch'
import { runEagerStream, type EagerStreamResult } from './workloads/eager-stream'
import { runFloor, type FloorPart } from './workloads/floor'
import { runPlugins, type PluginsResult } from './workloads/plugins'
import { runPtc, type PtcResult } from './workloads/ptc'
import { PTC_WARMUP_ROUNDS } from './workloads/ptc-plan'
import { runPtcPython, type PtcPythonResult } from './workloads/ptc-python'
import { runScale, type ScaleResult } from './workloads/scale'
import { runScheduling, scenarios, type SchedulingResult } from './workloads/scheduling'

/** A workload id, in run order. */
export const WORKLOADS = ['batch', 'floor', 'plugins', 'scheduling', 'eager-stream', 'ptc', 'at-scale', 'scale'] as const
export type WorkloadId = (typeof WORKLOADS)[number]

/** Everything one run measured. */
export interface BenchResults {
  readonly meta: RunMeta
  readonly batch: BatchResult
  readonly floor: readonly FloorPart[]
  /** Workload 6: each ecosystem plugin mounted and idle. */
  readonly plugins: PluginsResult
  readonly scheduling: SchedulingResult
  /** Workload 12: eager start from a stream against start-after-stream (absent in results of runs before it existed). */
  readonly eagerStream?: EagerStreamResult
  readonly scale: ScaleResult
  /** `{ skipped }` when the PTC workload could not run (the reason). */
  readonly ptc: PtcResult | { readonly skipped: string }
  /** Per-call cost at 10,000 calls and 100 parallel agents, heap flatness, allocations per call. */
  readonly atScale: AtScaleResult
  /** The PTC workload with Python programs (full runs only: Pyodide's boot does not fit the smoke budget), or why not. */
  readonly ptcPython?: PtcPythonResult | { readonly skipped: string }
  /** Wall time of each workload, s. */
  readonly durations: Readonly<Partial<Record<WorkloadId, number>>>
}

/** Runner options. */
export interface BenchOptions {
  /** Small N, few iterations (CI); no figure is meaningful. */
  readonly smoke: boolean
  /** Whether the code under test is the esbuild bundle (recorded in the metadata). */
  readonly build: 'bundle' | 'source'
  readonly log?: (line: string) => void
}

/** Runs every workload. Throws when a system produced wrong results (nothing is reported then). */
export async function runBench(options: BenchOptions): Promise<BenchResults> {
  const log = options.log ?? (() => undefined)
  const smoke = options.smoke
  const meta = collectMeta(smoke ? 'smoke' : 'full', options.build)
  log(`dsh-tools bench (${meta.mode}) on ${meta.cpu} ×${meta.cores}, Node ${meta.node}, load ${meta.loadStart.toFixed(2)}`)
  const durations: Partial<Record<WorkloadId, number>> = {}
  const timed = async <T>(id: WorkloadId, fn: () => Promise<T>): Promise<T> => {
    const t0 = performance.now()
    try {
      return await fn()
    } finally {
      durations[id] = (performance.now() - t0) / 1000
    }
  }

  const batch = await timed('batch', () =>
    runBatch({
      variants: ['sequential', 'parallel'],
      plans: smoke
        ? [
            { n: 3, rounds: 2, warmup: 1, minSampleMs: 0 },
            { n: 6, rounds: 2, warmup: 1, minSampleMs: 0 },
          ]
        : [
            { n: 10, rounds: 15, warmup: 5, minSampleMs: 20 },
            { n: 100, rounds: 15, warmup: 3, minSampleMs: 20, caps: { 'agents-sdk': { maxSamples: 6 } } },
            { n: 1000, rounds: 31, warmup: 3, minSampleMs: 0, caps: { 'agents-sdk': { warmup: 0, maxSamples: 2 } } },
          ],
      log,
    }),
  )
  const floor = await timed('floor', () => runFloor({ timeMs: smoke ? 20 : 1000, n: smoke ? 10 : 1000, log }))
  const plugins = await timed('plugins', () =>
    runPlugins(smoke ? { n: 5, rounds: 2, warmup: 1, minSampleMs: 0, log } : { n: 100, rounds: 15, warmup: 3, minSampleMs: 20, log }),
  )
  const scheduling = await timed('scheduling', () =>
    runScheduling({ scenarios: smoke ? scenarios(10, 4, 5, 5) : scenarios(100, 50), rounds: smoke ? 1 : 5, warmup: smoke ? 0 : 1, log }),
  )
  // Timer-bound (a ~2 s stream, 300 ms bodies): its figures are wall times against a computed limit, not CPU.
  const eagerStream = await timed('eager-stream', () =>
    runEagerStream(smoke ? { streamMs: 60, calls: 5, fragments: 2, toolMs: 10, rounds: 1, warmup: 0, log } : { streamMs: 2000, calls: 5, fragments: 6, toolMs: 300, rounds: 5, warmup: 1, log }),
  )
  let ptc: PtcResult | { skipped: string }
  try {
    ptc = await timed('ptc', () => runPtc(smoke ? { subCalls: 5, rounds: 1, warmup: 0, lookups: 5, boots: 1, build: options.build, peerTimeoutMs: 15_000, log } : { subCalls: 100, rounds: 15, warmup: PTC_WARMUP_ROUNDS, lookups: 20, boots: 5, build: options.build, peerTimeoutMs: 300_000, log }))
  } catch (error) {
    const reason = describeThrown(error)
    log(`ptc: skipped (${reason})`)
    ptc = { skipped: reason }
  }
  // After the timed workloads: its heap and allocation measurements force GCs.
  const atScale = await timed('at-scale', () =>
    runAtScale(
      smoke
        ? { small: 10, large: 30, agents: 3, callsPerAgent: 4, rounds: 2, warmup: 1, minSampleMs: 0, heapRepeats: 2, log }
        : { small: 1000, large: 10_000, agents: 100, callsPerAgent: 100, rounds: 15, warmup: 2, minSampleMs: 40, heapRepeats: 6, log },
    ),
  )
  let ptcPython: PtcPythonResult | { skipped: string }
  if (smoke) ptcPython = { skipped: 'not run in smoke mode (Pyodide boots in seconds)' }
  else {
    try {
      ptcPython = await runPtcPython({ subCalls: 100, rounds: 15, warmup: 3, log })
    } catch (error) {
      const reason = describeThrown(error)
      log(`ptc-python: skipped (${reason})`)
      ptcPython = { skipped: reason }
    }
  }
  // Last: its heap measurement forces GCs, after which code runs slower for a while.
  const scale = await timed('scale', () =>
    runScale(smoke ? { toolLimit: 200, registrationSamples: 1, steadySteps: 2, validationCalls: 10, log } : { toolLimit: Number.POSITIVE_INFINITY, registrationSamples: 3, steadySteps: 20, validationCalls: 300, log }),
  )
  return { meta: { ...meta, loadEnd: os.loadavg()[0] ?? 0, probeEndMs: hostProbeMs() }, batch, floor, plugins, scheduling, eagerStream, scale, ptc, ptcPython, atScale, durations }
}
