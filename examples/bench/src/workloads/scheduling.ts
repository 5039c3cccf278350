/**
 * Workload 3 (docs/design.md, "Performance targets", "Scheduling"): calls that sleep 20 ms (observing their abort
 * signal), run through each system with the same calls:
 *
 * - `pool`: 100 parallel-safe calls, pool of 10 → ideal makespan 10 waves × 20 ms = 200 ms.
 * - `barriers`: 50 calls alternating parallel-safe and exclusive → every call runs alone
 *   (an exclusive call is a barrier, and each parallel call sits between two) → ideal 50 × 20 ms.
 *
 * Every body is tracked (live/peak concurrency, exclusive calls that overlapped another body)
 * so a system that finishes early by breaking the contract shows it. The peers have no bounded
 * pool and no exclusive calls (every call of a step runs at once); their figures are context.
 */
import { generateText, tool as aiTool } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { Agent, Runner, tool as agentsTool } from '@openai/agents-core'
import { z } from 'zod'
import { defineTool, type RawToolCall } from '@deepseek-ai/dsh-tools'
import { createHarness, sleep } from '@deepseek-ai/dsh-tool-testkit'
import { alternate } from '../sampler'
import { summarize, type Summary } from '../stats'
import { ScriptedAgentsModel } from '../systems/agents-sdk'
import type { ScriptedCall } from '../systems/trivial'

/** The systems of the scheduling workload. */
export const SCHEDULING_SYSTEMS = ['dsh', 'ai-sdk', 'agents-sdk'] as const
export type SchedulingSystemId = (typeof SCHEDULING_SYSTEMS)[number]

/** A scheduling scenario. */
export interface Scenario {
  readonly id: 'pool' | 'barriers'
  readonly title: string
  /** Parallel-safe (`p`) or exclusive (`x`) per call. */
  readonly modes: readonly ('p' | 'x')[]
  readonly sleepMs: number
  readonly pool: number
  /** The contract's ideal makespan, ms. */
  readonly idealMs: number
}

/** The two scenarios, scaled by `calls` (100 and 50 in the full run). */
export function scenarios(poolCalls: number, barrierCalls: number, sleepMs = 20, pool = 10): Scenario[] {
  return [
    { id: 'pool', title: `${poolCalls} parallel-safe calls of ${sleepMs} ms, pool of ${pool}`, modes: Array.from({ length: poolCalls }, () => 'p' as const), sleepMs, pool, idealMs: Math.ceil(poolCalls / pool) * sleepMs },
    { id: 'barriers', title: `${barrierCalls} calls alternating parallel-safe and exclusive, ${sleepMs} ms each`, modes: Array.from({ length: barrierCalls }, (_, i) => (i % 2 === 0 ? ('p' as const) : ('x' as const))), sleepMs, pool, idealMs: barrierCalls * sleepMs },
  ]
}

/** Records body overlap. */
class Tracker {
  live = 0
  peak = 0
  /** Exclusive calls that overlapped another body. */
  violations = 0
  private exclusiveLive = 0
  started = 0

  async body(mode: 'p' | 'x', ms: number, signal: AbortSignal | undefined): Promise<{ ok: true }> {
    this.started++
    if (mode === 'x' && this.live > 0) this.violations++
    if (mode !== 'x' && this.exclusiveLive > 0) this.violations++
    this.live++
    if (mode === 'x') this.exclusiveLive++
    this.peak = Math.max(this.peak, this.live)
    try {
      await sleep(ms, signal)
    } finally {
      this.live--
      if (mode === 'x') this.exclusiveLive--
    }
    return { ok: true }
  }

  reset(): void {
    this.live = 0
    this.peak = 0
    this.violations = 0
    this.exclusiveLive = 0
    this.started = 0
  }
}

function callsOf(scenario: Scenario): ScriptedCall[] {
  return scenario.modes.map((mode, i) => ({ id: `call_${i}`, name: 'nap', arguments: JSON.stringify({ i, mode }) }))
}

interface SchedulingSystem {
  readonly id: SchedulingSystemId
  readonly tracker: Tracker
  step(): Promise<void>
  dispose(): Promise<void>
}

const napArgs = z.object({ i: z.number().int(), mode: z.enum(['p', 'x']) })

async function createSystem(id: SchedulingSystemId, scenario: Scenario): Promise<SchedulingSystem> {
  const tracker = new Tracker()
  const calls = callsOf(scenario)
  const expectOk = (n: number) => {
    if (n !== calls.length) throw new Error(`${id}: ${n} of ${calls.length} calls succeeded`)
  }
  if (id === 'dsh') {
    const h = await createHarness({ native: { maxParallelCalls: scenario.pool } })
    h.ctx.tools.register(
      defineTool({
        name: 'nap',
        description: 'Sleeps, then reports.',
        parameters: { i: { type: 'integer', required: true }, mode: { enum: ['p', 'x'], required: true } },
        output: { schema: { type: 'object', properties: { ok: { const: true, required: true } } }, render: () => [{ type: 'text', text: 'ok' }] },
        isConcurrencySafe: (args) => args.mode === 'p',
        execute: (args, exec) => tracker.body(args.mode, scenario.sleepMs, exec.signal),
      }),
    )
    const batch: RawToolCall[] = calls.map((c) => ({ callId: c.id, name: c.name, arguments: c.arguments }))
    return {
      id,
      tracker,
      async step() {
        const results = await h.tools.execute({ calls: batch })
        expectOk(results.filter((r) => !r.isError).length)
      },
      dispose: () => h.dispose(),
    }
  }
  if (id === 'ai-sdk') {
    const content = calls.map((c) => ({ type: 'tool-call' as const, toolCallId: c.id, toolName: c.name, input: c.arguments }))
    const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }
    const model = new MockLanguageModelV3({ doGenerate: async () => ({ content, finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [] }) })
    const tools = { nap: aiTool({ description: 'Sleeps, then reports.', inputSchema: napArgs, execute: (args, options) => tracker.body(args.mode, scenario.sleepMs, options.abortSignal) }) }
    return {
      id,
      tracker,
      async step() {
        const result = await generateText({ model, prompt: 'nap', tools })
        expectOk(result.toolResults.length)
      },
      async dispose() {},
    }
  }
  const agent = new Agent({
    name: 'bench',
    instructions: 'Nap.',
    model: new ScriptedAgentsModel(calls),
    tools: [agentsTool({ name: 'nap', description: 'Sleeps, then reports.', parameters: napArgs, execute: (args) => tracker.body(args.mode, scenario.sleepMs, undefined) })],
  })
  const runner = new Runner({ tracingDisabled: true })
  return {
    id,
    tracker,
    async step() {
      const result = await runner.run(agent, 'nap', { maxTurns: 3 })
      expectOk(result.newItems.filter((item) => item.type === 'tool_call_output_item').length)
    },
    async dispose() {},
  }
}

/** One system in one scenario. */
export interface SchedulingRow {
  readonly scenario: Scenario['id']
  readonly system: SchedulingSystemId
  readonly makespanMs: Summary
  readonly idealMs: number
  /** Median makespan over the ideal (1.0 = perfect). */
  readonly ratio: number
  /** Highest number of bodies running at once (max over samples). */
  readonly peakConcurrency: number
  /** Exclusive calls that overlapped another body, summed over all samples. */
  readonly barrierViolations: number
}

/** The workload's result. */
export interface SchedulingResult {
  readonly scenarios: readonly Scenario[]
  readonly rows: readonly SchedulingRow[]
}

/** Runs the scheduling workload. */
export async function runScheduling(config: { readonly scenarios: readonly Scenario[]; readonly rounds: number; readonly warmup: number; readonly log: (line: string) => void }): Promise<SchedulingResult> {
  const rows: SchedulingRow[] = []
  for (const scenario of config.scenarios) {
    const systems: SchedulingSystem[] = []
    for (const id of SCHEDULING_SYSTEMS) systems.push(await createSystem(id, scenario))
    const stats = new Map<string, { peak: number; violations: number }>(systems.map((s) => [s.id, { peak: 0, violations: 0 }]))
    const measured = await alternate(
      systems.map((s) => ({
        id: s.id,
        run: async () => {
          s.tracker.reset()
          await s.step()
          const st = stats.get(s.id)!
          st.peak = Math.max(st.peak, s.tracker.peak)
          st.violations += s.tracker.violations
        },
      })),
      { rounds: config.rounds, warmup: config.warmup, minSampleMs: 0 },
    )
    for (const m of measured) {
      const makespanMs = summarize(m.ms)
      const st = stats.get(m.id)!
      rows.push({ scenario: scenario.id, system: m.id as SchedulingSystemId, makespanMs, idealMs: scenario.idealMs, ratio: makespanMs.median / scenario.idealMs, peakConcurrency: st.peak, barrierViolations: st.violations })
    }
    for (const s of systems) await s.dispose()
    config.log(`scheduling ${scenario.id}: ${rows.filter((r) => r.scenario === scenario.id).map((r) => `${r.system} ${r.makespanMs.median.toFixed(1)} ms (×${r.ratio.toFixed(3)}, peak ${r.peakConcurrency}, violations ${r.barrierViolations})`).join('; ')}`)
  }
  return { scenarios: config.scenarios, rows }
}
