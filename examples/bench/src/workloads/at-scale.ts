/**
 * Workload 6 — cost at scale and allocations: whether the native pipeline's per-call cost stays
 * flat when a batch grows to 10,000 calls and when 100 agents in their own scopes run 100-call
 * batches at the same time, whether the heap after a full GC stays flat across repeats, and how
 * many bytes each system allocates per call.
 *
 * - Per-call cost: the "native pipeline" system of the batch workload (one listener, one guard,
 *   one wrapper; parallel-safe tool), N = 1,000 against N = 10,000, alternating; then 100 agent
 *   scopes (one deployment, each agent resolving its own tool set) each submitting a 100-call
 *   batch at once (10,000 calls in flight), against the same N = 1,000 figure.
 * - Heap: `heapUsed` after a forced full GC following each repeat of the agents round.
 * - Allocations: `v8.GCProfiler` over one step — bytes allocated = heap growth over the step
 *   plus what every collection inside it freed. Measured last, after all timing.
 */
import v8 from 'node:v8'
import type { RawToolCall, ToolResult } from '@deepseek-ai/dsh-tools'
import { createHarness } from '@deepseek-ai/dsh-tool-testkit'
import { alternate, collectGarbage } from '../sampler'
import { summarize, scaleSummary, type Summary } from '../stats'
import { addHooks, createDsh, dshAddTool } from '../systems/dsh'
import { createFloor } from '../systems/floor'
import { scriptedCalls, verifyOutputs, type StepSystem } from '../systems/trivial'

/** Workload configuration. */
export interface AtScaleConfig {
  /** The two batch sizes compared (default 1,000 and 10,000). */
  readonly small: number
  readonly large: number
  /** Agents running at once, and calls per agent batch (default 100 × 100). */
  readonly agents: number
  readonly callsPerAgent: number
  readonly rounds: number
  readonly warmup: number
  /**
   * A sample repeats its step until it lasts at least this many ms (0: one step per sample).
   * Every sample must hold its share of garbage collection: a 1,000-call step (~3 ms) is
   * shorter than the time between two young-generation collections, so one-step samples of it
   * mostly miss them and their median leaves GC out, while every 10,000-call sample pays it.
   */
  readonly minSampleMs: number
  /** Repeats of the agents round between which the heap is measured. */
  readonly heapRepeats: number
  readonly log: (line: string) => void
}

/** Per-call time of the native pipeline at one size (µs), and the agents round. */
export interface AtScaleCost {
  readonly small: { readonly n: number; readonly perCallUs: Summary }
  readonly large: { readonly n: number; readonly perCallUs: Summary }
  /** large ÷ small medians (target ≤ 1.2). */
  readonly largeRatio: number
  readonly agents: { readonly agents: number; readonly callsPerAgent: number; readonly perCallUs: Summary }
  /** agents ÷ small medians (target ≤ 1.2). */
  readonly agentsRatio: number
}

/** Heap after a full GC following each repeat (MiB), first to last. */
export interface AtScaleHeap {
  readonly afterGcMiB: readonly number[]
  /** last ÷ first (flat: ≤ 1.1). */
  readonly growth: number
}

/** Bytes allocated per call by one system in one N = `n` step. */
export interface Allocation {
  readonly system: 'floor' | 'dsh-bare' | 'dsh'
  readonly n: number
  readonly bytesPerCall: number
  /** Collections that ran inside the measured step. */
  readonly collections: number
}

/** The workload's result. */
export interface AtScaleResult {
  readonly cost: AtScaleCost
  readonly heap: AtScaleHeap
  readonly allocations: readonly Allocation[]
}

const MiB = 1024 * 1024

/** 100 agents (or `agents`) in their own scopes of one deployment, each running a `callsPerAgent` batch per step. */
async function createAgentsSystem(agents: number, callsPerAgent: number): Promise<StepSystem & { readonly calls: number }> {
  const h = await createHarness()
  h.ctx.tools.register(dshAddTool(true))
  // The hooks of the native pipeline row (`createDsh`): listener and wrapper with `ctx.tools.on`.
  addHooks(h.ctx, 'tools')
  const batch: RawToolCall[] = scriptedCalls(callsPerAgent).map((c) => ({ callId: c.id, name: c.name, arguments: c.arguments }))
  const handles = Array.from({ length: agents }, (_, i) => h.agent(`agent-${i}`))
  const step = async (): Promise<(readonly ToolResult[])[]> =>
    Promise.all(
      handles.map(async ({ agent }) => {
        const toolSet = await h.tools.resolve({ agent })
        try {
          return await h.tools.execute({ calls: batch, toolSet, agent })
        } finally {
          toolSet.dispose()
        }
      }),
    )
  return {
    id: 'dsh-agents',
    calls: agents * callsPerAgent,
    async step() {
      await step()
    },
    async outputs() {
      // Every agent's batch must be exact; the first one stands for the shape check.
      const all = await step()
      for (const [i, results] of all.entries()) {
        const values = results.map((r) => (r.isError ? r.error.message : r.value))
        verifyOutputs(`dsh-agents (agent ${i})`, values, callsPerAgent)
      }
      return all[0]!.map((r) => (r.isError ? r.error.message : r.value))
    },
    dispose: () => h.dispose(),
  }
}

/**
 * Bytes `run` allocates, from `v8.GCProfiler`: heap growth over the run plus what every
 * collection during it freed.
 */
export async function allocatedBytes(run: () => Promise<void>): Promise<{ readonly bytes: number; readonly collections: number }> {
  const profiler = new v8.GCProfiler()
  const before = v8.getHeapStatistics().used_heap_size
  profiler.start()
  await run()
  const after = v8.getHeapStatistics().used_heap_size
  const stats = profiler.stop() as { statistics: { beforeGC: { heapStatistics: { usedHeapSize: number } }; afterGC: { heapStatistics: { usedHeapSize: number } } }[] }
  let freed = 0
  for (const gc of stats.statistics) freed += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize
  return { bytes: after - before + freed, collections: stats.statistics.length }
}

/** Runs the workload. Outputs are verified before anything is timed. */
export async function runAtScale(config: AtScaleConfig): Promise<AtScaleResult> {
  const small = await createDsh(scriptedCalls(config.small), 'parallel')
  const large = await createDsh(scriptedCalls(config.large), 'parallel')
  const agents = await createAgentsSystem(config.agents, config.callsPerAgent)
  verifyOutputs(`dsh (N=${config.small})`, await small.outputs(), config.small)
  verifyOutputs(`dsh (N=${config.large})`, await large.outputs(), config.large)
  verifyOutputs('dsh-agents', await agents.outputs(), config.callsPerAgent)

  const measured = await alternate(
    [
      { id: 'small', run: () => small.step() },
      { id: 'large', run: () => large.step() },
      { id: 'agents', run: () => agents.step() },
    ],
    { rounds: config.rounds, warmup: config.warmup, minSampleMs: config.minSampleMs },
  )
  const perCall = (id: string, calls: number): Summary => scaleSummary(summarize(measured.find((m) => m.id === id)!.ms), 1000 / calls)
  const smallUs = perCall('small', config.small)
  const largeUs = perCall('large', config.large)
  const agentsUs = perCall('agents', agents.calls)
  const cost: AtScaleCost = {
    small: { n: config.small, perCallUs: smallUs },
    large: { n: config.large, perCallUs: largeUs },
    largeRatio: largeUs.median / smallUs.median,
    agents: { agents: config.agents, callsPerAgent: config.callsPerAgent, perCallUs: agentsUs },
    agentsRatio: agentsUs.median / smallUs.median,
  }
  config.log(`at-scale: N=${config.small} ${smallUs.median.toFixed(2)}µs, N=${config.large} ${largeUs.median.toFixed(2)}µs (×${cost.largeRatio.toFixed(2)}), ${config.agents}×${config.callsPerAgent} agents ${agentsUs.median.toFixed(2)}µs (×${cost.agentsRatio.toFixed(2)}) per call`)

  // Heap after a full GC across repeats of the agents round (timing is over: GCs may be forced now).
  const afterGcMiB: number[] = []
  for (let i = 0; i < config.heapRepeats; i++) {
    await agents.step()
    collectGarbage()
    afterGcMiB.push(process.memoryUsage().heapUsed / MiB)
  }
  const heap: AtScaleHeap = { afterGcMiB, growth: afterGcMiB.length > 0 ? afterGcMiB[afterGcMiB.length - 1]! / afterGcMiB[0]! : 1 }
  config.log(`at-scale: heap after GC ${afterGcMiB.map((m) => m.toFixed(1)).join(' → ')} MiB`)

  // Allocations per call, N = small, each system measured on a warm, collected heap (median of 5).
  const floor = createFloor(scriptedCalls(config.small))
  const bare = await createDsh(scriptedCalls(config.small), 'parallel', { hooks: 'none' })
  const allocations: Allocation[] = []
  for (const [system, s] of [['floor', floor], ['dsh-bare', bare], ['dsh', small]] as const) {
    for (let i = 0; i < 3; i++) await s.step()
    const samples: { bytes: number; collections: number }[] = []
    for (let i = 0; i < 5; i++) {
      collectGarbage()
      samples.push(await allocatedBytes(() => s.step()))
    }
    samples.sort((a, b) => a.bytes - b.bytes)
    const mid = samples[Math.floor(samples.length / 2)]!
    allocations.push({ system, n: config.small, bytesPerCall: Math.round(mid.bytes / config.small), collections: mid.collections })
  }
  config.log(`at-scale: allocated per call ${allocations.map((a) => `${a.system} ${a.bytesPerCall} B`).join(', ')}`)
  for (const s of [small, large, agents, floor, bare]) await s.dispose()
  return { cost, heap, allocations }
}
