/**
 * The MCP bridge workload: per-call cost of a `tools/call` through `@deepseek-ai/dsh-tool-mcp`
 * and the full native pipeline (argument parse and validation, policy, wrappers, output
 * validation, content mapping, ordered results) over the MCP SDK's bare `client.callTool` — the
 * same in-process server (the SDK's `Server` on a linked in-memory transport), the same tool,
 * the same N calls, in one process with the systems interleaved round by round.
 *
 * How a run is timed, so the two sides are billed alike:
 * - CPU time (`process.cpuUsage()`, user + system), not wall time: the machine is shared, and
 *   CPU time does not count the time another process held the core. The in-memory transport
 *   delivers each message synchronously, so the in-process server's work for a call runs on the
 *   main thread, on both sides.
 * - `bench:mcp` runs with `--single-threaded-gc`, so each side's garbage collection runs on the
 *   main thread too and is billed to the side that made the garbage, instead of V8's helper
 *   threads (with the default parallel collector on this busy 2-core machine, the main thread had
 *   only 0.64–0.68 of the process's CPU time; with this flag 0.96–0.98). The check, per variant: the main thread's CPU time
 *   (Linux `/proc/thread-self/schedstat`) ÷ the process's, summed over all measured runs (that
 *   clock only advances at scheduler ticks, 4 ms here, so it is used for the sum, not per run).
 * - The event loop is drained (`setImmediate`) before each run, so work one system left queued
 *   is not billed to the next. No forced `gc()` between runs: it shrinks V8's young generation,
 *   and the next run then pays for many more scavenges (measured: the local-tool run went from
 *   3 to 13–15 µs per call).
 * - Garbage collection work a run leaves behind (an incremental marking it started, pages left
 *   to sweep) is paid by the next run, and the sides do not leave the same amount: with a
 *   bare, bridge, bridge, bare order each side would pay part of the other's (an in-process
 *   A/B that ran two kinds of run in a fixed pattern moved 20 % of the cost from one to the
 *   other). So each kind runs twice in a row and only the second run is measured.
 * - The two sides run back to back in each round and alternate which goes first; the headline
 *   figure is the median of the per-round ratios (bridge ÷ bare of the same round, so drift in
 *   the machine's load between rounds cancels), with their p25–p75.
 *
 * Two attribution runs follow in each round: the bridge's tool body alone (its `execute` called
 * directly, run like the bare side: what the bridge costs over the SDK's own path) and a local
 * tool with the same schema through the same pipeline.
 */
import { readFileSync } from 'node:fs'
import os from 'node:os'
import { Context } from 'cordis'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { defineRawTool, ToolRegistry, type RawToolCall, type ToolExecution, type ToolResult } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'
import { createMcpBridge } from '@deepseek-ai/dsh-tool-mcp'
import { summarize, type Summary } from '../stats'

/** The workload's plan. */
export interface McpPlan {
  /** Calls per batch (the bridge side sends them as one batch; the bare side makes as many `callTool`s). */
  readonly n: number
  /**
   * Batches per measured run (default 1). A run of N = 1,000 calls holds one or two scavenges of
   * 3–8 ms each (the SDK allocates about 24 KB per call), which moves a single run's CPU time by
   * ±15–30 %; a few batches per run average that out. Figures stay per call.
   */
  readonly batches?: number
  readonly rounds: number
  readonly warmup: number
  readonly log: (line: string) => void
}

/**
 * How the N calls run. `sequential`: one at a time on both sides (the tool is not annotated
 * read-only, so each call is exclusive in the batch). `parallel`: ten at a time on both sides
 * (the tool is annotated `readOnlyHint: true`, so the batch runs it in the native executor's
 * pool of 10; the bare side runs ten workers of sequential `callTool`s).
 */
export type McpVariant = 'sequential' | 'parallel'

/** One variant's figures. Times are CPU µs per call. */
export interface McpRow {
  readonly variant: McpVariant
  readonly bare: Summary
  readonly bridge: Summary
  /**
   * The bridge's tool body alone: the registered definition's `execute` called directly with a
   * minimal execution context (the caller's signal and a call token), no pipeline — the same
   * calls, run like the bare side (attribution: the bridge's own cost over the SDK's).
   */
  readonly body: Summary
  /** The same calls to a local tool with the same schema through the same pipeline (attribution: the pipeline's own cost for a body that resolves at once). */
  readonly local: Summary
  /** Per-round bridge ÷ bare (the two runs of one round); its median is the headline figure (target < 1.2). */
  readonly ratio: Summary
  /** Per-round body alone ÷ bare. */
  readonly bodyRatio: Summary
  /** Per-round bridge + pipeline − body alone, µs per call: the pipeline's work for an MCP call. */
  readonly pipelineOnMcp: Summary
  /**
   * Main-thread CPU ÷ process CPU, summed over the measured runs (1: all the work ran on the main
   * thread; the rest is V8's helper threads: optimizing compiles, and GC work unless
   * `--single-threaded-gc`); NaN where the main thread's CPU time cannot be read.
   */
  readonly threadShare: number
}

/** What the workload measured. */
export interface McpResult {
  readonly n: number
  /** Batches of N calls per measured run. */
  readonly batches: number
  readonly rounds: number
  readonly rows: readonly McpRow[]
  /** 1-minute load average at the start, and the core count. */
  readonly load: number
  readonly cores: number
  /** Whether the workspace code ran from an esbuild bundle without `keepNames` helpers (like the published build), not from the TypeScript sources under tsx. */
  readonly bundled: boolean
  /** Whether V8 ran its garbage collector on the main thread only (`--single-threaded-gc`; `bench:mcp` restarts itself with it). */
  readonly singleThreadedGc: boolean
}

const POOL = 10
/** Batches of the local tool per batch of the MCP one in a measured run (see `runBridge`). */
const LOCAL_FACTOR = 10

const INPUT_SCHEMA = {
  type: 'object' as const,
  properties: { a: { type: 'number' }, b: { type: 'number' }, label: { type: 'string' } },
  required: ['a', 'b'],
  additionalProperties: false,
}

/** A fresh in-process server with one `add` tool; returns the client side of the pair. */
async function connectServer(readOnly: boolean): Promise<Transport> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  const server = new Server({ name: 'bench-server', version: '1.0.0' }, { capabilities: { tools: {} } })
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: 'add', description: 'Adds two numbers.', inputSchema: INPUT_SCHEMA, annotations: { readOnlyHint: readOnly } }] }))
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const { a, b } = request.params.arguments as { a: number; b: number }
    return { content: [{ type: 'text', text: String(a + b) }] }
  })
  await server.connect(serverSide)
  return clientSide
}

function args(i: number): { a: number; b: number; label: string } {
  return { a: i, b: i * 2, label: `call ${i}` }
}

/** Runs one variant; throws when either system returns a wrong answer. */
async function runVariant(variant: McpVariant, plan: McpPlan): Promise<McpRow> {
  const parallel = variant === 'parallel'
  const bareClient = new Client({ name: 'bench-bare', version: '1.0.0' })
  await bareClient.connect(await connectServer(parallel))
  await bareClient.listTools()

  const ctx = new Context()
  await ctx.plugin(ToolRegistry)
  await ctx.plugin(NativeExecutor, { maxParallelCalls: POOL })
  const bridge = await createMcpBridge(ctx, { servers: [{ name: 'bench', transport: 'custom', create: () => connectServer(parallel) }] })
  const calls: RawToolCall[] = Array.from({ length: plan.n }, (_, i) => ({ callId: `c${i}`, name: 'bench__add', arguments: JSON.stringify(args(i)) }))
  ctx.tools.register(
    defineRawTool({
      name: 'local_add',
      description: 'Adds two numbers.',
      inputSchema: INPUT_SCHEMA,
      execute: async (a) => String((a.a as number) + (a.b as number)),
      ...(parallel ? { isConcurrencySafe: () => true } : {}),
    }),
  )
  const localCalls = calls.map((c) => ({ ...c, name: 'local_add' }))

  const bareCall = async (i: number): Promise<void> => {
    const result = await bareClient.callTool({ name: 'add', arguments: args(i) })
    if ((result.content as { text: string }[])[0]!.text !== String(3 * i)) throw new Error(`mcp bench: bare call ${i} answered ${JSON.stringify(result)}`)
  }
  // The bridge's body without the pipeline: what `execute` reads of its context is the signal
  // (cancellation) and the token (prepared content); the progress route is not used here.
  const definition = ctx.tools.get('bench__add')!
  const never = new AbortController().signal
  const bodyCall = async (i: number): Promise<void> => {
    const exec = { callId: `c${i}`, token: Symbol('call'), signal: never, reportProgress: () => undefined } as unknown as ToolExecution
    const value = await definition.execute(args(i), exec)
    if (value !== String(3 * i)) throw new Error(`mcp bench: bridge body call ${i} answered ${JSON.stringify(value)}`)
  }
  /** Process CPU and main-thread CPU µs of each measured run. */
  const threads: { cpu: number; thread: number }[] = []
  /** Process CPU µs of `work`, after draining the event loop; its process and main-thread CPU go to `threads`. */
  const cpu = async (work: () => Promise<void>): Promise<number> => {
    await new Promise<void>((resolve) => setImmediate(resolve))
    const thread = threadCpu()
    const start = process.cpuUsage()
    await work()
    const used = process.cpuUsage(start)
    const own = threadCpu() - thread
    threads.push({ cpu: used.user + used.system, thread: own })
    return used.user + used.system
  }
  const batches = plan.batches ?? 1
  /** CPU µs per call of `batches` times N calls of `one`, one at a time or ten workers at a time (like the batch's pool). */
  const runCalls = async (one: (i: number) => Promise<void>): Promise<number> =>
    (await cpu(async () => {
      for (let b = 0; b < batches; b++) {
        if (parallel) {
          let next = 0
          const worker = async (): Promise<void> => {
            while (next < plan.n) await one(next++)
          }
          await Promise.all(Array.from({ length: POOL }, worker))
        } else {
          for (let i = 0; i < plan.n; i++) await one(i)
        }
      }
    })) /
    (batches * plan.n)
  /** CPU µs per call of `batches` batches of the N calls through the pipeline (to the MCP tool, or the local one); each batch's answers are checked as it ends, like the bare side's. */
  const runBridge = async (local = false): Promise<number> => {
    // A local call costs a tenth of an MCP one: ten times the batches keep its run as long, so a
    // marking the previous runs started does not swamp it.
    const count = local ? LOCAL_FACTOR * batches : batches
    const used = await cpu(async () => {
      for (let b = 0; b < count; b++) {
        const results = await ctx.tools.execute({ calls: local ? localCalls : calls })
        for (let i = 0; i < plan.n; i++) {
          const r = results[i]!
          if (r.isError || r.value !== String(3 * i)) throw new Error(`mcp bench: ${local ? 'local' : 'bridge'} call ${i} answered ${JSON.stringify(r)}`)
        }
      }
    })
    return used / (count * plan.n)
  }

  /**
   * Runs `run` twice and returns the second figure. Garbage collection work a run leaves behind
   * (an incremental marking it started, pages to sweep) is paid by the run after it; the first,
   * unmeasured run pays for the previous kind's, so each measured run follows one of its own kind.
   */
  const twice = async (run: () => Promise<number>): Promise<number> => {
    await run()
    return run()
  }
  const bareSamples: number[] = []
  const bridgeSamples: number[] = []
  const bodySamples: number[] = []
  const localSamples: number[] = []
  try {
    for (let round = 0; round < plan.warmup + plan.rounds; round++) {
      if (round === plan.warmup) threads.length = 0
      // The two sides back to back, alternating which goes first, each measured after a run of
      // its own kind (see `twice`).
      const bareFirst = round % 2 === 0
      const x = bareFirst ? await twice(() => runCalls(bareCall)) : await twice(() => runBridge())
      const y = bareFirst ? await twice(() => runBridge()) : await twice(() => runCalls(bareCall))
      const w = await twice(() => runCalls(bodyCall))
      const z = await twice(() => runBridge(true))
      if (round < plan.warmup) continue
      bodySamples.push(w)
      localSamples.push(z)
      bareSamples.push(bareFirst ? x : y)
      bridgeSamples.push(bareFirst ? y : x)
    }
  } finally {
    await bridge.close()
    await bareClient.close()
  }
  const bare = summarize(bareSamples)
  const bridged = summarize(bridgeSamples)
  const body = summarize(bodySamples)
  const local = summarize(localSamples)
  const ratio = summarize(bridgeSamples.map((b, i) => b / bareSamples[i]!))
  const bodyRatio = summarize(bodySamples.map((b, i) => b / bareSamples[i]!))
  const pipelineOnMcp = summarize(bridgeSamples.map((b, i) => b - bodySamples[i]!))
  const threadShare = threads.reduce((sum, t) => sum + t.thread, 0) / threads.reduce((sum, t) => sum + t.cpu, 0)
  plan.log(
    `mcp ${variant}: bridge + pipeline ÷ bare callTool, median of ${plan.rounds} per-round ratios ${ratio.median.toFixed(2)} (p25–p75 ${ratio.p25.toFixed(2)}–${ratio.p75.toFixed(2)}); bare ${bare.median.toFixed(1)} µs/call, bridge + pipeline ${bridged.median.toFixed(1)} µs/call (CPU, medians); the bridge's body alone ${body.median.toFixed(1)} µs/call (${bodyRatio.median.toFixed(2)}×), the pipeline alone (local tool) ${local.median.toFixed(1)} µs/call; main thread's share of the CPU time ${threadShare.toFixed(3)} (N=${plan.n}, ${batches} batch${batches === 1 ? '' : 'es'} per run)`,
  )
  return { variant, bare, bridge: bridged, body, local, ratio, bodyRatio, pipelineOnMcp, threadShare }
}

/** CPU µs this thread has run (Linux `/proc/thread-self/schedstat`, in ns there; it advances at scheduler ticks), or NaN where it cannot be read. */
function threadCpu(): number {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ', 1)[0]) / 1000
  } catch {
    return Number.NaN
  }
}

/** Runs both variants; throws when either system returns a wrong answer. */
export async function runMcp(plan: McpPlan): Promise<McpResult> {
  const load = os.loadavg()[0]!
  const rows = [await runVariant('sequential', plan), await runVariant('parallel', plan)]
  return { n: plan.n, batches: plan.batches ?? 1, rounds: plan.rounds, rows, load, cores: os.cpus().length, bundled: !import.meta.url.endsWith('.ts'), singleThreadedGc: process.execArgv.includes('--single-threaded-gc') }
}
