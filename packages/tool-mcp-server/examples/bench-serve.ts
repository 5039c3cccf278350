/**
 * Per-call cost of a served call — the bridge (`@deepseek-ai/dsh-tool-mcp`, client side pipeline)
 * → Streamable HTTP on 127.0.0.1 → this package's server → the serving pipeline — against the same
 * tool called in process through `ctx.tools.execute`, in the same run. Both sides live in this
 * process, so CPU time (`process.cpuUsage()`, user + system) bills both sides' work, the loopback
 * sockets' kernel time included. Each round runs `n` sequential calls on each side, alternating
 * which goes first; the headline is the median of the per-round ratios (served ÷ in-process).
 *
 * Run: `npm run tsx -- packages/tool-mcp-server/examples/bench-serve.ts [--smoke]`.
 */
import { Context } from 'cordis'
import { ToolRegistry, defineRawTool, type RawToolCall } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'
import { createMcpBridge } from '@deepseek-ai/dsh-tool-mcp'
import { createMcpToolServer } from '@deepseek-ai/dsh-tool-mcp-server'

/** One measured side: µs per call, wall and CPU. */
export interface Sample {
  readonly wallUs: number
  readonly cpuUs: number
}

/** The result of a run. */
export interface ServeBenchResult {
  readonly n: number
  readonly rounds: number
  readonly local: readonly Sample[]
  readonly served: readonly Sample[]
  /** Per-round CPU ratios, served ÷ in-process. */
  readonly ratios: readonly number[]
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}
const quantile = (xs: readonly number[], q: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!

/** Runs the benchmark: `n` sequential calls per side per round. */
export async function runServeBench(options: { readonly n: number; readonly rounds: number; readonly warmup: number }): Promise<ServeBenchResult> {
  const served = new Context()
  await served.plugin(ToolRegistry)
  await served.plugin(NativeExecutor, {})
  served.tools.register(defineRawTool({ name: 'add', description: 'Adds two numbers', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] }, execute: (a) => Number(a.a) + Number(a.b) }))
  const server = createMcpToolServer(served)
  const http = await server.listen()
  const client = new Context()
  await client.plugin(ToolRegistry)
  await client.plugin(NativeExecutor, {})
  const bridge = await createMcpBridge(client, { servers: [{ name: 's', transport: 'http', url: http.url }] })
  const call = (name: string, i: number): RawToolCall => ({ callId: `c${i}`, name, arguments: `{"a":${i},"b":1}` })
  const side = async (ctx: Context, name: string): Promise<Sample> => {
    const cpu0 = process.cpuUsage()
    const t0 = performance.now()
    for (let i = 0; i < options.n; i++) {
      const [r] = await ctx.tools.execute({ calls: [call(name, i)] })
      if (r!.isError) throw new Error(`${name} failed: ${r!.error.message}`)
    }
    const wall = performance.now() - t0
    const cpu = process.cpuUsage(cpu0)
    return { wallUs: (wall * 1000) / options.n, cpuUs: (cpu.user + cpu.system) / options.n }
  }
  const local: Sample[] = []
  const remote: Sample[] = []
  const ratios: number[] = []
  try {
    for (let round = -options.warmup; round < options.rounds; round++) {
      const first = round % 2 === 0
      const a = first ? await side(served, 'add') : undefined
      const b = await side(client, 's__add')
      const c = first ? a! : await side(served, 'add')
      if (round < 0) continue
      local.push(c)
      remote.push(b)
      ratios.push(b.cpuUs / c.cpuUs)
    }
  } finally {
    await bridge.close()
    await server.close()
  }
  return { n: options.n, rounds: options.rounds, local, served: remote, ratios }
}

/** A one-line summary (µs per call, medians and p25–p75). */
export function summarize(r: ServeBenchResult): string {
  const f = (xs: readonly number[]) => `${median(xs).toFixed(1)} (${quantile(xs, 0.25).toFixed(1)}–${quantile(xs, 0.75).toFixed(1)})`
  return [
    `in-process ctx.tools.execute: CPU ${f(r.local.map((s) => s.cpuUs))} µs/call, wall ${f(r.local.map((s) => s.wallUs))}`,
    `bridge → HTTP → server → pipeline: CPU ${f(r.served.map((s) => s.cpuUs))} µs/call, wall ${f(r.served.map((s) => s.wallUs))}`,
    `served ÷ in-process (CPU, median of per-round ratios): ${median(r.ratios).toFixed(1)}× (${quantile(r.ratios, 0.25).toFixed(1)}–${quantile(r.ratios, 0.75).toFixed(1)}×); wall ${median(r.served.map((s, i) => s.wallUs / r.local[i]!.wallUs)).toFixed(1)}×`,
  ].join('\n')
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const smoke = process.argv.includes('--smoke')
  console.log(summarize(await runServeBench(smoke ? { n: 20, rounds: 3, warmup: 1 } : { n: 300, rounds: 21, warmup: 3 })))
}
