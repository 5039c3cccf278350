/**
 * The pipeline's warm-up (internal; `ToolPipeline.warmUp`): a few calls of a private tool run
 * through the real stages — prepare (parse, freeze, ajv validation), policy, dispatch, output
 * validation, render, finalize — on a runner of their own, so that V8 has compiled that code
 * before the first real call. Right after start-up the stages run interpreted and each function
 * is compiled on its first call: the first call of a process costs milliseconds more than the
 * next ones (measured: a PTC program's first run with one sub-call after plugin start, median
 * 23.6 → 19.0 ms in alternated fresh processes on a slow host).
 *
 * Nothing of it can be observed: its runner's host answers no lookup (the tool is the runner's
 * own `local` definition), has no listeners, guards or approval service, no session log, and a
 * signal nobody can abort; no event, log entry or registration results from it. The one trace
 * it leaves is in the process-wide `validatorCacheStats()` counters: the private tool's two
 * validators are compiled (and cached by structure) like any other.
 */
import type { Scope, ToolResult } from './contracts'
import { createRunner } from './batch'
import type { PipelineConfig, PipelineHost, StageHooks } from './pipeline'
import { defineTool } from './schema'

const NO_HOOKS: StageHooks = Object.freeze({ pre: [], execute: [], post: [], result: [], progress: [], preliminary: [], guards: [], approval: undefined })

/** The warm-up's own scope: no registry layer or listener belongs to it. */
const WARM_UP_SCOPE: Scope = Object.freeze({ id: 'dsh-tools/warm-up', kind: 'deployment', parent: undefined })

/** The private tool: validated arguments, a validated object output and a template render, as a typical tool has. */
const WARM_UP_TOOL = defineTool({
  name: 'warm_up',
  description: 'The pipeline warm-up tool (never registered).',
  parameters: {
    n: { type: 'integer', required: true },
    label: { type: 'string', required: true },
  },
  output: {
    schema: { type: 'object', properties: { n: { type: 'integer', required: true }, label: { type: 'string', required: true } }, additionalProperties: false },
    render: (_args, value) => [{ type: 'text', text: `${value.label}: ${value.n}` }],
  },
  execute: (args) => ({ n: args.n + 1, label: args.label }),
})

/** Sequential calls one by one (the PTC sub-call path), then one batch (the native path); one malformed call in each. */
const SEQUENTIAL_CALLS = 12
const BATCH_CALLS = 12

/** The process's warm-up, once started (compiled code is shared by every registry of the process). */
let warmed: Promise<void> | undefined

/**
 * Runs the warm-up calls through a private runner over `config` (the first caller's registry
 * configuration), once per process: later calls get the same promise. Resolves when they are
 * done (~10–30 ms in a fresh process); never rejects — a failure only means less was warmed.
 */
export function warmUpPipeline(config: PipelineConfig): Promise<void> {
  return (warmed ??= runWarmUp(config).then(() => undefined))
}

/** The warm-up's results, in call order (only those before a failure of the runner itself, if one failed). Exported for tests. */
export async function runWarmUp(config: PipelineConfig): Promise<readonly ToolResult[]> {
  const host: PipelineHost = {
    config,
    lookup: () => ({ available: [] }),
    version: 0,
    hooks: () => NO_HOOKS,
    report: () => {},
  }
  const options = {
    scope: WARM_UP_SCOPE,
    signal: new AbortController().signal,
    local: (name: string) => (name === WARM_UP_TOOL.name ? WARM_UP_TOOL : undefined),
  }
  const results: ToolResult[] = []
  try {
    const one = createRunner(host, options)
    for (let i = 0; i < SEQUENTIAL_CALLS; i++) {
      results.push(await one.submit({ callId: `warm-up-${i}`, name: WARM_UP_TOOL.name, arguments: i === 0 ? '{"n":"x"}' : `{"n":${i},"label":"w"}` }))
    }
    const batch = createRunner(host, options)
    results.push(...(await batch.submitAll(Array.from({ length: BATCH_CALLS }, (_, i) => ({ callId: `warm-up-batch-${i}`, name: WARM_UP_TOOL.name, arguments: i === 0 ? '{}' : `{"n":${i},"label":"b"}` })))))
  } catch {
    // Only less was warmed.
  }
  return results
}
