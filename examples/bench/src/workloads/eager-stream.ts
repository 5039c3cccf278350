/**
 * Workload 12: eager start from a stream. A synthetic Chat Completions stream (DeepSeek's and
 * OpenAI's chunk shape) of `streamMs` carrying `calls` tool calls, its chunks delivered on a
 * fixed schedule (each call: its id and name, then its arguments in fragments; then the finish
 * chunk), and tools whose bodies take `toolMs` each. Two systems read the same stream, one after
 * the other, alternating which goes first per round:
 *
 * - `eager`: `executeToolStream` — each call starts once its arguments are complete in the
 *   stream (for Chat: when the next call's first fragment arrives, or the finish chunk);
 * - `after-stream`: the stream accumulated (`OpenAIChatStreamAccumulator`), then the batch through
 *   `ctx.tools.execute` (`settleParsedCalls`), as before eager start.
 *
 * Each is timed from the first chunk's delivery to the last result. The physical limit of a run
 * is computed from its own chunk times: every call starts when its arguments complete at the
 * earliest and runs `toolMs`; `parallel` calls overlap (limit: the later of the stream's end and
 * the last call's earliest start plus its duration), `exclusive` calls run one at a time (each
 * starts at the later of its earliest start and the previous call's end).
 */
import { Context } from 'cordis'
import { ToolRegistry, defineRawTool, type RawToolCall, type ToolResult } from '@deepseek-ai/dsh-tools'
import { NativeExecutor, OpenAIChatStreamAccumulator, executeToolStream, settleParsedCalls, type OpenAIChatChunkWire } from '@deepseek-ai/dsh-tool-executor-native'
import { summarize, type Summary } from '../stats'

/** The plan of one run. */
export interface EagerStreamPlan {
  /** How long the stream lasts, first chunk to finish chunk, ms. */
  readonly streamMs: number
  readonly calls: number
  /** Argument fragments per call (after the chunk with its id and name). */
  readonly fragments: number
  /** Each body's duration, ms. */
  readonly toolMs: number
  readonly rounds: number
  readonly warmup: number
  readonly log?: (line: string) => void
}

/** One variant's figures: ms from the first chunk to the last result, median over rounds. */
export interface EagerStreamRow {
  readonly variant: 'parallel' | 'exclusive'
  readonly eagerMs: Summary
  readonly afterMs: Summary
  /** The physical limit of each round (see the module comment). */
  readonly limitMs: Summary
  /** The stream's own duration, first to last chunk. */
  readonly streamMs: Summary
  /** after-stream ÷ eager, median of the per-round ratios. */
  readonly speedup: Summary
  /** eager ÷ limit, median of the per-round ratios. */
  readonly eagerOverLimit: Summary
  /** How many calls `executeToolStream` started before the stream ended (median). */
  readonly startedEarly: number
}

/** What the workload measured. */
export interface EagerStreamResult {
  readonly plan: Omit<EagerStreamPlan, 'log'>
  readonly chunks: number
  readonly rows: readonly EagerStreamRow[]
}

/** One chunk of the synthetic stream, with the offset it is delivered at (ms after the first). */
interface TimedChunk {
  readonly at: number
  readonly chunk: OpenAIChatChunkWire
  /** The call whose arguments this chunk completes for the Chat rule (the next call began, or the finish). */
  readonly completes: readonly number[]
}

const chunkOf = (delta: object, finish: string | null = null): OpenAIChatChunkWire => ({ id: 'bench', object: 'chat.completion.chunk', created: 0, model: 'bench', choices: [{ index: 0, delta, finish_reason: finish }] }) as unknown as OpenAIChatChunkWire

/** The schedule: `calls × (1 + fragments) + 1` chunks spread evenly over `streamMs`. */
export function schedule(plan: Pick<EagerStreamPlan, 'streamMs' | 'calls' | 'fragments'>): TimedChunk[] {
  const raw: { chunk: OpenAIChatChunkWire; completes: number[] }[] = []
  for (let i = 0; i < plan.calls; i++) {
    const args = JSON.stringify({ key: `item-${i}`, note: 'x'.repeat(40) })
    const size = Math.ceil(args.length / plan.fragments)
    raw.push({ chunk: chunkOf({ tool_calls: [{ index: i, id: `call_${i}`, type: 'function', function: { name: 'lookup', arguments: '' } }] }), completes: i > 0 ? [i - 1] : [] })
    for (let f = 0; f < plan.fragments; f++) raw.push({ chunk: chunkOf({ tool_calls: [{ index: i, function: { arguments: args.slice(f * size, (f + 1) * size) } }] }), completes: [] })
  }
  raw.push({ chunk: chunkOf({}, 'tool_calls'), completes: [plan.calls - 1] })
  const step = plan.streamMs / (raw.length - 1)
  return raw.map((r, i) => ({ at: i * step, chunk: r.chunk, completes: r.completes }))
}

/** Delivers the chunks on their schedule; records each delivery time (ms after the first). */
async function* replay(chunks: readonly TimedChunk[], delivered: number[]): AsyncGenerator<OpenAIChatChunkWire> {
  const t0 = performance.now()
  for (const c of chunks) {
    const wait = t0 + c.at - performance.now()
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
    delivered.push(performance.now() - t0)
    yield c.chunk
  }
}

/** The physical limit of a run from its chunk delivery times (see the module comment). */
export function physicalLimit(chunks: readonly TimedChunk[], delivered: readonly number[], toolMs: number, variant: 'parallel' | 'exclusive'): number {
  const earliest: number[] = []
  chunks.forEach((c, i) => {
    for (const call of c.completes) earliest[call] = delivered[i] ?? c.at
  })
  const streamEnd = delivered[delivered.length - 1] ?? 0
  let end = 0
  let last = 0
  for (const start of earliest) {
    end = variant === 'parallel' ? Math.max(end, start + toolMs) : Math.max(start, end) + toolMs
    last = Math.max(last, end)
  }
  return Math.max(streamEnd, last)
}

async function context(toolMs: number): Promise<{ ctx: Context; setExclusive: (x: boolean) => void }> {
  const ctx = new Context()
  await ctx.plugin(ToolRegistry, {})
  await ctx.plugin(NativeExecutor, {})
  let exclusive = false
  ctx.tools.register(
    defineRawTool({
      name: 'lookup',
      description: 'Looks an item up (takes a while).',
      inputSchema: { type: 'object', properties: { key: { type: 'string' }, note: { type: 'string' } }, required: ['key'] } as never,
      isConcurrencySafe: () => !exclusive,
      execute: async (args, exec) => {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => {
            exec.signal.removeEventListener('abort', onAbort)
            resolve()
          }, toolMs)
          const onAbort = (): void => {
            clearTimeout(timer)
            reject(exec.signal.reason)
          }
          exec.signal.addEventListener('abort', onAbort, { once: true })
        })
        return `found ${String(args.key)}`
      },
    }),
  )
  return { ctx, setExclusive: (x) => void (exclusive = x) }
}

function check(results: readonly ToolResult[], calls: number, system: string): void {
  const bad = results.findIndex((r, i) => r.isError || r.callId !== `call_${i}`)
  if (results.length !== calls || bad !== -1) throw new Error(`eager-stream: ${system} gave ${results.length} results (first wrong: ${bad}); expected ${calls} in call order`)
}

/** Runs the workload: per variant, `warmup` then `rounds` rounds of both systems, alternating which goes first. */
export async function runEagerStream(plan: EagerStreamPlan): Promise<EagerStreamResult> {
  const log = plan.log ?? (() => undefined)
  const chunks = schedule(plan)
  const { ctx, setExclusive } = await context(plan.toolMs)
  const rows: EagerStreamRow[] = []
  try {
    for (const variant of ['parallel', 'exclusive'] as const) {
      setExclusive(variant === 'exclusive')
      const eager = async () => {
        const delivered: number[] = []
        const t0 = performance.now()
        const run = executeToolStream(ctx, { provider: 'deepseek', stream: replay(chunks, delivered) })
        const outcome = await run.outcome
        const ms = performance.now() - t0
        check(outcome.results, plan.calls, 'eager')
        return { ms, delivered, early: outcome.startedEarly }
      }
      const after = async () => {
        const delivered: number[] = []
        const t0 = performance.now()
        const accumulator = new OpenAIChatStreamAccumulator({ provider: 'deepseek' })
        for await (const chunk of replay(chunks, delivered)) accumulator.push(chunk)
        const { results } = await settleParsedCalls(accumulator.result(), (calls: readonly RawToolCall[]) => ctx.tools.execute({ calls }))
        const ms = performance.now() - t0
        check(results, plan.calls, 'after-stream')
        return { ms, delivered }
      }
      const e: number[] = []
      const a: number[] = []
      const limits: number[] = []
      const streams: number[] = []
      const speedups: number[] = []
      const overLimit: number[] = []
      const early: number[] = []
      for (let r = 0; r < plan.warmup + plan.rounds; r++) {
        const eagerFirst = r % 2 === 0
        const first = eagerFirst ? await eager() : await after()
        const second = eagerFirst ? await after() : await eager()
        const x = (eagerFirst ? first : second) as Awaited<ReturnType<typeof eager>>
        const y = eagerFirst ? second : first
        if (r < plan.warmup) continue
        const limit = physicalLimit(chunks, x.delivered, plan.toolMs, variant)
        e.push(x.ms)
        a.push(y.ms)
        limits.push(limit)
        streams.push(x.delivered[x.delivered.length - 1] ?? 0)
        speedups.push(y.ms / x.ms)
        overLimit.push(x.ms / limit)
        early.push(x.early)
      }
      const row: EagerStreamRow = {
        variant,
        eagerMs: summarize(e),
        afterMs: summarize(a),
        limitMs: summarize(limits),
        streamMs: summarize(streams),
        speedup: summarize(speedups),
        eagerOverLimit: summarize(overLimit),
        startedEarly: summarize(early).median,
      }
      rows.push(row)
      log(`eager-stream ${variant}: eager ${row.eagerMs.median.toFixed(0)} ms, after-stream ${row.afterMs.median.toFixed(0)} ms, limit ${row.limitMs.median.toFixed(0)} ms (${row.speedup.median.toFixed(2)}× faster; ${row.eagerOverLimit.median.toFixed(3)}× the limit)`)
    }
  } finally {
    await ctx.fiber.dispose()
  }
  const { log: _log, ...rest } = plan
  return { plan: rest, chunks: chunks.length, rows }
}
