/**
 * Workload 5 (docs/design.md, "Performance targets", "PTC"): programmatic tool calling through our PTC executor
 * (QuickJS sandbox, every SDK call re-entering the full pipeline):
 *
 * - the first `run_code` after plugin start (the `PtcExecutor` plugin awaits the runtime's
 *   `warmUp()`: worker boot, WebAssembly compile, esbuild's service, a warm-up program with
 *   sub-calls) of a trivial program and of a program with one sub-call, each in fresh
 *   processes (`./ptc-first`); then steady runs of a trivial program;
 * - per-sub-call overhead: a program awaiting K calls of the trivial `add` tool one by one,
 *   and K calls at once (`Promise.all`), minus the trivial program, divided by K;
 * - model-facing bytes of a fixed multi-call task (look up 20 inventory records, report the
 *   cheapest in-stock item) done natively (20 calls, 20 results) and as one program.
 *
 * The Vercel AI SDK's code mode (`@ai-sdk/code-mode`, needs `ai` 7 and Node 22) is measured the
 * same way in a Node 22 child process (`./ptc-code-mode`); the Agents SDK has no programmatic
 * tool calling.
 */
import { defineTool, type RawToolCall, type ToolResult } from '@deepseek-ai/dsh-tools'
import { createHarness, type Harness } from '@deepseek-ai/dsh-tool-testkit'
import { PtcExecutor } from '@deepseek-ai/dsh-tool-executor-ptc'
import { alternate } from '../sampler'
import { measureFirstRuns, type PtcFirstRun } from './ptc-first'
import { dshAddTool } from '../systems/dsh'
import { ptcTimings, runCodeModePeer, type CodeModePeerResult, type PtcTimings } from './ptc-code-mode'

/** Workload configuration. */
export interface PtcConfig {
  /** Sub-calls per program. */
  readonly subCalls: number
  readonly rounds: number
  readonly warmup: number
  /** Records looked up by the bytes task. */
  readonly lookups: number
  /** Fresh processes started per program for the first-run measurement (the median is reported). */
  readonly boots: number
  /** Which code those processes run: the bundle in `dist/` or the sources (through tsx). */
  readonly build: 'bundle' | 'source'
  /** Kill the code-mode peer's child process after this long, ms. */
  readonly peerTimeoutMs: number
  readonly log: (line: string) => void
}

/** Bytes the model sends and receives for the task. */
export interface TaskBytes {
  readonly system: 'native' | 'ptc'
  /** Tool calls the model emits (name + argument text). */
  readonly callBytes: number
  /** Result content returned to the model. */
  readonly resultBytes: number
  /** What the executor describes to the model (tool schemas JSON + prompt sections). */
  readonly describeBytes: number
  readonly calls: number
}

/** The workload's result: the timings of our PTC executor, the bytes task and the code-mode peer. */
export interface PtcResult extends PtcTimings {
  /** First `run_code` (trivial program) on the harness the timings use, after its plugin start, ms. */
  readonly coldMs: number
  /** First runs after plugin start, in fresh processes. */
  readonly firstRun: PtcFirstRun
  readonly task: { readonly lookups: number; readonly native: TaskBytes; readonly ptc: TaskBytes; readonly resultRatio: number; readonly totalRatio: number; readonly answer: string }
  /** The same measurements for the Vercel AI SDK's code mode (Node 22 child), or why not. */
  readonly codeMode: CodeModePeerResult
}

const utf8 = (text: string): number => Buffer.byteLength(text, 'utf8')

function contentBytes(results: readonly ToolResult[]): number {
  let bytes = 0
  for (const r of results) for (const block of r.content) bytes += block.type === 'text' ? utf8(block.text) : utf8(block.data)
  return bytes
}

/** What the model exchanges for a batch run on `h`: the calls it emits, the results it reads, the tools described to it. */
function taskBytes(system: TaskBytes['system'], h: Harness, calls: readonly RawToolCall[], results: readonly ToolResult[]): TaskBytes {
  const description = h.tools.describe()
  return {
    system,
    calls: calls.length,
    callBytes: calls.reduce((s, c) => s + utf8(c.name) + utf8(c.arguments as string), 0),
    resultBytes: contentBytes(results),
    describeBytes: utf8(JSON.stringify(description.tools)) + description.sections.reduce((s, x) => s + utf8(x.text), 0),
  }
}

function textOf(result: ToolResult | undefined, label = 'ptc'): string {
  if (result === undefined) throw new Error(`${label}: no result`)
  if (result.isError) throw new Error(`${label}: run_code failed: ${result.error.message}`)
  return result.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
}

/** A deterministic inventory record (a realistic, verbose tool result). */
function inventoryRecord(sku: number) {
  return {
    sku: `SKU-${String(sku).padStart(5, '0')}`,
    name: `Widget model ${sku}`,
    price: Math.round((10 + ((sku * 37) % 90) + ((sku * 13) % 100) / 100) * 100) / 100,
    inStock: sku % 3 !== 0,
    warehouse: ['Rotterdam', 'Memphis', 'Singapore', 'Leipzig'][sku % 4]!,
    tags: ['hardware', sku % 2 === 0 ? 'steel' : 'aluminium', sku % 5 === 0 ? 'clearance' : 'regular'],
    description: `A dependable widget (model ${sku}) for everyday assembly work, rated for indoor and outdoor use.`,
  }
}

function inventoryTool() {
  return defineTool({
    name: 'inventory_lookup',
    description: 'Looks up one inventory record by numeric SKU.',
    parameters: { sku: { type: 'integer', required: true, description: 'The numeric SKU.' } },
    output: {
      schema: {
        type: 'object',
        properties: {
          sku: { type: 'string', required: true },
          name: { type: 'string', required: true },
          price: { type: 'number', required: true },
          inStock: { type: 'boolean', required: true },
          warehouse: { type: 'string', required: true },
          tags: { type: 'array', items: { type: 'string' }, required: true },
          description: { type: 'string', required: true },
        },
      },
      render: (_args, value) => [{ type: 'text', text: JSON.stringify(value, null, 2) }],
    },
    isConcurrencySafe: () => true,
    execute: (args) => inventoryRecord(args.sku),
  })
}

async function boot(executor: 'native' | 'ptc'): Promise<Harness> {
  const h = await createHarness(executor === 'ptc' ? { executor: 'none', plugins: [{ plugin: PtcExecutor, config: {} }] } : {})
  h.ctx.tools.register(dshAddTool(true))
  h.ctx.tools.register(inventoryTool())
  return h
}

function runCode(h: Harness, id: string, code: string): Promise<readonly ToolResult[]> {
  return h.tools.execute({ calls: [{ callId: id, name: 'run_code', arguments: JSON.stringify({ code, description: 'benchmark program' }) }] })
}

/** The three programs of the PTC timing (same meaning in every language). */
export interface PtcPrograms {
  /** Prints `1` with no sub-call. */
  readonly trivial: string
  /** Awaits `subCalls` `add` sub-calls one by one and returns the sum of their `sum`s. */
  readonly sequential: string
  /** Awaits the same sub-calls all at once and returns the same sum. */
  readonly parallel: string
}

/**
 * Times the {@link PtcPrograms} through `run_code` on a harness whose PTC executor and `add`
 * tool are registered: one first run of the trivial program (its wall time, ms), a correctness
 * check of each program (sum of `i + 2` for `i < subCalls`), then alternating samples
 * (`alternate`, ms) summarised by `ptcTimings`. Shared by the TypeScript (`ptc`) and Python
 * (`ptc-python`) workloads.
 *
 * @throws Error prefixed with `label` when a run fails or a program prints a wrong value.
 */
export async function measurePtcPrograms(
  h: Harness,
  label: string,
  programs: PtcPrograms,
  config: { readonly subCalls: number; readonly rounds: number; readonly warmup: number },
): Promise<{ readonly firstMs: number; readonly timings: PtcTimings }> {
  const k = config.subCalls
  const { trivial, sequential, parallel } = programs
  const expectedSum = String((k * (k - 1)) / 2 + 2 * k)
  const t0 = performance.now()
  const first = textOf((await runCode(h, 'first', trivial))[0], label)
  const firstMs = performance.now() - t0
  if (first !== '1') throw new Error(`${label}: trivial program printed ${JSON.stringify(first)}`)
  if (textOf((await runCode(h, 'check-seq', sequential))[0], label) !== expectedSum) throw new Error(`${label}: sequential program gave a wrong sum`)
  if (textOf((await runCode(h, 'check-par', parallel))[0], label) !== expectedSum) throw new Error(`${label}: parallel program gave a wrong sum`)
  let n = 0
  const measured = await alternate(
    [
      { id: 'trivial', run: async () => void (await runCode(h, `t${n++}`, trivial)) },
      { id: 'sequential', run: async () => void (await runCode(h, `s${n++}`, sequential)) },
      { id: 'parallel', run: async () => void (await runCode(h, `p${n++}`, parallel)) },
    ],
    { rounds: config.rounds, warmup: config.warmup, minSampleMs: 0 },
  )
  const [steady, seq, par] = measured.map((m) => m.ms) as [number[], number[], number[]]
  return { firstMs, timings: ptcTimings({ steady, sequential: seq, parallel: par }, k) }
}

/** Runs the PTC workload. */
export async function runPtc(config: PtcConfig): Promise<PtcResult> {
  const k = config.subCalls
  const firstRun = await measureFirstRuns(config.boots, config.build)
  const h = await boot('ptc')
  try {
    const trivial = 'return 1'
    const sequential = `let s = 0\nfor (let i = 0; i < ${k}; i++) { const r = await tools.add({ a: i, b: 2, label: 'x' }); s += r.sum }\nreturn s`
    const parallel = `const rs = await Promise.all(Array.from({ length: ${k} }, (_, i) => tools.add({ a: i, b: 2, label: 'x' })))\nreturn rs.reduce((s, r) => s + r.sum, 0)`
    const { firstMs: coldMs, timings } = await measurePtcPrograms(h, 'ptc', { trivial, sequential, parallel }, config)

    // The bytes task, natively and as one program.
    const skus = Array.from({ length: config.lookups }, (_, i) => 1000 + i * 7)
    const nativeH = await boot('native')
    let native: TaskBytes
    let nativeAnswer: string
    try {
      const calls: RawToolCall[] = skus.map((sku, i) => ({ callId: `n${i}`, name: 'inventory_lookup', arguments: JSON.stringify({ sku }) }))
      const results = await nativeH.tools.execute({ calls })
      if (results.some((r) => r.isError)) throw new Error('ptc task: a native lookup failed')
      const records = results.map((r) => (r.isError ? undefined : (r.value as ReturnType<typeof inventoryRecord>)))
      const cheapest = records.filter((r) => r !== undefined && r.inStock).sort((a, b) => a!.price - b!.price)[0]!
      nativeAnswer = `${cheapest.sku} ${cheapest.price}`
      native = taskBytes('native', nativeH, calls, results)
    } finally {
      await nativeH.dispose()
    }
    const program = [
      `const skus = ${JSON.stringify(skus)}`,
      'const items = await Promise.all(skus.map((sku) => tools.inventory_lookup({ sku })))',
      'const cheapest = items.filter((i) => i.inStock).sort((a, b) => a.price - b.price)[0]',
      'return `${cheapest.sku} ${cheapest.price}`',
    ].join('\n')
    const ptcCall: RawToolCall = { callId: 'task', name: 'run_code', arguments: JSON.stringify({ code: program, description: 'cheapest in-stock item' }) }
    const ptcResults = await h.tools.execute({ calls: [ptcCall] })
    const answer = textOf(ptcResults[0])
    if (answer !== nativeAnswer) throw new Error(`ptc task: program answered ${JSON.stringify(answer)}, native run ${JSON.stringify(nativeAnswer)}`)
    const ptc = taskBytes('ptc', h, [ptcCall], ptcResults)
    const codeMode = await runCodeModePeer({ subCalls: k, rounds: config.rounds, warmup: config.warmup, lookups: config.lookups, timeoutMs: config.peerTimeoutMs }, answer)
    const result: PtcResult = {
      codeMode,
      coldMs,
      firstRun,
      ...timings,
      task: {
        lookups: skus.length,
        native,
        ptc,
        resultRatio: native.resultBytes / ptc.resultBytes,
        totalRatio: (native.callBytes + native.resultBytes) / (ptc.callBytes + ptc.resultBytes),
        answer,
      },
    }
    config.log(
      `ptc: plugin start ${firstRun.startMs.median.toFixed(0)} ms, first run after it ${firstRun.trivialMs.median.toFixed(1)} ms (one sub-call: ${firstRun.subCallMs.median.toFixed(1)} ms), first on the timing harness ${coldMs.toFixed(1)} ms, steady ${timings.steadyMs.median.toFixed(2)} ms, per sub-call ${result.perSubCallSequentialUs.toFixed(0)} µs sequential / ${result.perSubCallParallelUs.toFixed(0)} µs parallel; task bytes native ${native.resultBytes} vs ptc ${ptc.resultBytes} (×${result.task.resultRatio.toFixed(1)})`,
    )
    config.log(
      codeMode.status === 'measured'
        ? `ptc: code mode (Node ${codeMode.node}): cold ${codeMode.coldMs.toFixed(1)} ms, steady ${codeMode.steadyMs.median.toFixed(2)} ms, per sub-call ${codeMode.perSubCallSequentialUs.toFixed(0)} µs sequential / ${codeMode.perSubCallParallelUs.toFixed(0)} µs parallel; task result bytes ${codeMode.task.resultBytes}`
        : `ptc: code mode not measured: ${codeMode.reason}`,
    )
    return result
  } finally {
    await h.dispose()
  }
}
