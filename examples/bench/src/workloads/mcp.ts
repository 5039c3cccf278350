/**
 * The MCP bridge workload: per-call cost of a `tools/call` through `@deepseek-ai/dsh-tool-mcp`
 * and the full native pipeline (argument parse and validation, policy, wrappers, output
 * validation, content mapping, ordered results) over the MCP SDK's bare `client.callTool` — the
 * same in-process server (the SDK's `Server` on a linked in-memory transport), the same tool,
 * the same N calls, in one process with the systems interleaved round by round.
 *
 * Each run is timed in CPU time (`process.cpuUsage()`, user + system): the machine is shared, and
 * CPU time does not count the time another process held the core. Both sides include the
 * in-process server's own work for each call (it runs on the same thread). The event loop is
 * drained (`setImmediate`) before each run, so work one system left queued is not billed to the
 * next. The reported ratio is median ÷ median over the rounds; the best round of each side is
 * kept beside it (the least disturbed figure on a busy machine).
 *
 * Two attribution runs follow in each round: the bridge's tool body alone (its `execute` called
 * directly, run like the bare side: what the bridge costs over the SDK's own path) and a local
 * tool with the same schema through the same pipeline.
 */
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
  /** Calls per round (sequential). */
  readonly n: number
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
  /** Median bridge ÷ median bare (target < 1.2). */
  readonly ratio: number
  /** Best (least) bridge round ÷ best bare round. */
  readonly bestRatio: number
}

/** What the workload measured. */
export interface McpResult {
  readonly n: number
  readonly rounds: number
  readonly rows: readonly McpRow[]
  /** 1-minute load average at the start, and the core count. */
  readonly load: number
  readonly cores: number
}

const POOL = 10

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
  /** CPU µs of `work`, after draining the event loop. */
  const cpu = async (work: () => Promise<void>): Promise<number> => {
    await new Promise<void>((resolve) => setImmediate(resolve))
    const start = process.cpuUsage()
    await work()
    const used = process.cpuUsage(start)
    return used.user + used.system
  }
  /** N calls of `one`, one at a time or ten workers at a time (like the batch's pool). */
  const runCalls = (one: (i: number) => Promise<void>): Promise<number> =>
    cpu(async () => {
      if (parallel) {
        let next = 0
        const worker = async (): Promise<void> => {
          while (next < plan.n) await one(next++)
        }
        await Promise.all(Array.from({ length: POOL }, worker))
      } else {
        for (let i = 0; i < plan.n; i++) await one(i)
      }
    })
  const runBridge = async (local = false): Promise<number> => {
    let results: readonly ToolResult[] = []
    const used = await cpu(async () => {
      results = await ctx.tools.execute({ calls: local ? localCalls : calls })
    })
    for (let i = 0; i < plan.n; i++) {
      const r = results[i]!
      if (r.isError || r.value !== String(3 * i)) throw new Error(`mcp bench: ${local ? 'local' : 'bridge'} call ${i} answered ${JSON.stringify(r)}`)
    }
    return used
  }

  const bareSamples: number[] = []
  const bridgeSamples: number[] = []
  const bodySamples: number[] = []
  const localSamples: number[] = []
  try {
    for (let round = 0; round < plan.warmup + plan.rounds; round++) {
      // Alternate which system goes first, so drift in the machine's load hits both alike.
      const first = round % 2 === 0
      const x = first ? await runCalls(bareCall) : await runBridge()
      const y = first ? await runBridge() : await runCalls(bareCall)
      const w = await runCalls(bodyCall)
      const z = await runBridge(true)
      if (round < plan.warmup) continue
      bodySamples.push(w / plan.n)
      localSamples.push(z / plan.n)
      bareSamples.push((first ? x : y) / plan.n)
      bridgeSamples.push((first ? y : x) / plan.n)
    }
  } finally {
    await bridge.close()
    await bareClient.close()
  }
  const bare = summarize(bareSamples)
  const bridged = summarize(bridgeSamples)
  const body = summarize(bodySamples)
  const local = summarize(localSamples)
  const ratio = bridged.median / bare.median
  const bestRatio = bridged.min / bare.min
  plan.log(
    `mcp ${variant}: bare callTool ${bare.median.toFixed(1)} µs/call, bridge + pipeline ${bridged.median.toFixed(1)} µs/call (CPU, medians), ratio ${ratio.toFixed(2)} (best rounds ${bestRatio.toFixed(2)}); the bridge's body alone ${body.median.toFixed(1)} µs/call (${(body.median / bare.median).toFixed(2)}×), the pipeline alone (local tool) ${local.median.toFixed(1)} µs/call (N=${plan.n}, ${plan.rounds} rounds)`,
  )
  return { variant, bare, bridge: bridged, body, local, ratio, bestRatio }
}

/** Runs both variants; throws when either system returns a wrong answer. */
export async function runMcp(plan: McpPlan): Promise<McpResult> {
  const load = os.loadavg()[0]!
  const rows = [await runVariant('sequential', plan), await runVariant('parallel', plan)]
  return { n: plan.n, rounds: plan.rounds, rows, load, cores: os.cpus().length }
}
