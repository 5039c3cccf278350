/**
 * Workload 6: the overhead of each ecosystem plugin mounted and idle — one step of N parallel
 * trivial calls through our native pipeline with nothing but the plugin under test added:
 *
 * - `baseline`: the registry, the native executor and the DSL tool (as `dsh-bare` in workload 1);
 * - `progress-listener`: a `tools/progress` listener (the tool never reports);
 * - `otel-noop`: `@deepseek-ai/dsh-tool-otel` with the global no-op tracer (no SDK installed);
 * - `retry-idle`: `@deepseek-ai/dsh-tool-call-retry-policy`, the tool declared idempotent, no
 *   call failing;
 * - `timeout`: `@deepseek-ai/dsh-tool-call-timeout-policy` with a 30 s default (for reference);
 * - `zod-schema`: the same tool declared with zod 4 (Standard Schema) instead of the DSL:
 *   validation by zod instead of ajv;
 * - `hooks`: one `tools/pre-execute` listener and one `tools/execute` wrapper (both
 *   `(exec, next) => next()`, registered with `ctx.tools.on`) and one guard — the hooks of the
 *   batch workload's native pipeline;
 * - `hooks-ctx-on`: the same with the listener and the wrapper registered with cordis' `ctx.on`.
 *
 * Reports per-call CPU time and the overhead above the baseline (median difference, µs per
 * call). CPU time rather than wall time: these deltas are a few µs, and the machine the
 * figures were taken on was shared.
 */
import { z } from 'zod'
import { defineTool, type AnyToolDefinition, type RawToolCall } from '@deepseek-ai/dsh-tools'
import { createHarness, type HarnessPlugin } from '@deepseek-ai/dsh-tool-testkit'
import { ToolTracing } from '@deepseek-ai/dsh-tool-otel'
import { RetryPolicy } from '@deepseek-ai/dsh-tool-call-retry-policy'
import { TimeoutPolicy } from '@deepseek-ai/dsh-tool-call-timeout-policy'
import { roundOrder, type Contender } from '../sampler'
import { scaleSummary, summarize, type Summary } from '../stats'
import { addHooks, dshAddTool } from '../systems/dsh'
import { addBody, scriptedCalls, TOOL_DESCRIPTION, TOOL_NAME, verifyOutputs } from '../systems/trivial'

/** The systems, in report order. */
export const PLUGIN_SYSTEMS = ['baseline', 'progress-listener', 'otel-noop', 'retry-idle', 'timeout', 'zod-schema', 'hooks', 'hooks-ctx-on'] as const
export type PluginSystemId = (typeof PLUGIN_SYSTEMS)[number]

/** Workload configuration. */
export interface PluginsConfig {
  readonly n: number
  readonly rounds: number
  readonly warmup: number
  readonly minSampleMs: number
  readonly log: (line: string) => void
}

/** One measured system. */
export interface PluginRow {
  readonly system: PluginSystemId
  /** CPU time per call (this process, user + system), µs. */
  readonly perCallUs: Summary
  /** Median per-call time minus the baseline's, µs. */
  readonly overheadUs: number
}

/** What the workload measured. */
export interface PluginsResult {
  readonly n: number
  readonly rows: readonly PluginRow[]
}

/** The trivial tool with zod 4 schemas (a Standard Schema tool). */
function zodAddTool(): AnyToolDefinition {
  return defineTool({
    name: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    parameters: z.object({ a: z.number().int(), b: z.number().int(), label: z.string() }),
    output: { schema: z.object({ sum: z.number().int(), label: z.string() }).strict(), render: (_args, value) => [{ type: 'text', text: `${value.label}: ${value.sum}` }] },
    isConcurrencySafe: () => true,
    execute: (args) => addBody(args),
  })
}

function setup(system: PluginSystemId): { plugins: HarnessPlugin[]; tool: AnyToolDefinition; registry?: { progressIntervalMs: number } } {
  const dsl = dshAddTool(true)
  switch (system) {
    case 'baseline':
    case 'progress-listener':
    case 'hooks':
    case 'hooks-ctx-on':
      return { plugins: [], tool: dsl }
    case 'otel-noop':
      return { plugins: [{ plugin: ToolTracing, config: {} }], tool: dsl }
    case 'retry-idle':
      return { plugins: [{ plugin: RetryPolicy, config: {} }], tool: { ...dsl, idempotent: true } }
    case 'timeout':
      return { plugins: [{ plugin: TimeoutPolicy, config: { defaultTimeoutMs: 30_000 } }], tool: dsl }
    case 'zod-schema':
      return { plugins: [], tool: zodAddTool() }
  }
}

/**
 * Like the shared `alternate` sampler (shuffled order per round, warm-up, samples of back-to-back runs
 * lasting at least `minSampleMs`), but each sample is this process's CPU time
 * (`process.cpuUsage`, user + system) rather than wall time: on a machine shared with other
 * jobs, time spent waiting for a core is not counted. Returns ms per run.
 */
async function alternateCpu(contenders: readonly Contender[], config: PluginsConfig): Promise<{ id: string; ms: number[] }[]> {
  const cpuMs = (): number => {
    const u = process.cpuUsage()
    return (u.user + u.system) / 1000
  }
  const reps = new Map<string, number>()
  for (const c of contenders) {
    const t0 = performance.now()
    for (let i = 0; i < Math.max(1, config.warmup); i++) await c.run()
    const perRun = (performance.now() - t0) / Math.max(1, config.warmup)
    reps.set(c.id, Math.max(1, Math.min(1000, Math.ceil(config.minSampleMs / Math.max(perRun, 0.001)))))
  }
  const samples = new Map<string, number[]>(contenders.map((c) => [c.id, []]))
  for (let round = 0; round < config.rounds; round++) {
    const order = roundOrder(contenders, round)
    for (const c of order) {
      const n = reps.get(c.id)!
      const t0 = cpuMs()
      for (let i = 0; i < n; i++) await c.run()
      samples.get(c.id)!.push((cpuMs() - t0) / n)
    }
  }
  return contenders.map((c) => ({ id: c.id, ms: samples.get(c.id)! }))
}

/** Runs the workload: every system alternating, after checking each produces the right values. */
export async function runPlugins(config: PluginsConfig): Promise<PluginsResult> {
  const calls: RawToolCall[] = scriptedCalls(config.n).map((c) => ({ callId: c.id, name: c.name, arguments: c.arguments }))
  const disposers: (() => Promise<void>)[] = []
  const contenders: Contender[] = []
  try {
    for (const system of PLUGIN_SYSTEMS) {
      const { plugins, tool } = setup(system)
      const h = await createHarness({ plugins })
      disposers.push(() => h.dispose())
      h.ctx.tools.register(tool)
      if (system === 'progress-listener') h.ctx.on('tools/progress', () => undefined)
      if (system === 'hooks' || system === 'hooks-ctx-on') addHooks(h.ctx, system === 'hooks' ? 'tools' : 'ctx')
      const step = () => h.tools.execute({ calls })
      const results = await step()
      verifyOutputs(system, results.map((r) => (r.isError ? r.error.message : r.value)), config.n)
      contenders.push({ id: system, run: async () => void (await step()) })
    }
    const measured = await alternateCpu(contenders, config)
    const perCall = new Map(measured.map((m) => [m.id, scaleSummary(summarize(m.ms), 1000 / config.n)]))
    const base = perCall.get('baseline')!.median
    const rows = PLUGIN_SYSTEMS.map((system) => ({ system, perCallUs: perCall.get(system)!, overheadUs: perCall.get(system)!.median - base }))
    config.log(`plugins N=${config.n}: ${rows.map((r) => `${r.system} ${r.perCallUs.median.toFixed(2)}µs`).join(', ')} per call`)
    return { n: config.n, rows }
  } finally {
    for (const dispose of disposers) await dispose()
  }
}
