/**
 * Eager start from a model stream: each tool call starts as soon as its own arguments are
 * complete in the provider's stream, while the model still writes the rest of the turn. The
 * calls run on one ordered runner of the shared pipeline (`ctx.tools.pipeline.createRunner`),
 * so the batch contract is the one `ctx.tools.execute()` keeps: results in call order, policy
 * and approvals in model order, exclusive calls as barriers. A cut or aborted stream cancels
 * what started and answers the rest by the truncation rules (`truncatedCallResults`).
 */
import type { Context } from 'cordis'
import { NoExecutorError, scopeOf, validateMaxParallel, type Agent, type CallRunner, type RawToolCall, type ResolvedToolSet, type Scope, type StreamBatch, type SessionLog, type ToolExecutor, type ToolResult } from '@deepseek-ai/dsh-tools'
import type { ExecutorDisposedError, NativeToolExecutor } from '../executor'
import type { NameMap } from '../providers/names'
import type { SettledCalls } from '../providers/settle'
import { truncatedCallResults } from '../providers/truncation'
import type { ParsedToolCalls, TruncatedCall } from '../providers/types'
import { OrderedResults, type StreamedResult } from './ordered'
import { readStream } from './read'
import { STREAM_PROVIDERS, streamSource, type StreamChunkTypes, type StreamParseOptions, type StreamProvider, type StreamSource } from './sources'

/** Options of {@link executeToolStream} for provider `P`. */
export interface ExecuteToolStreamOptions<P extends StreamProvider> {
  /** Whose stream this is: picks the accumulator and the rule for when a call's arguments are complete. */
  readonly provider: P
  /** The provider's stream as the SDK client yields it (`for await` over it), or any iterable of its chunks. Read once, to its end. */
  readonly stream: AsyncIterable<StreamChunkTypes[P]> | Iterable<StreamChunkTypes[P]>
  /** The declaration's name map: calls get their registry names back, and library texts name tools as the model saw them. */
  readonly nameMap?: NameMap
  /** Parser options beside `nameMap`: `recoverMarkup`, `choiceIndex` (Chat), `candidateIndex` / `idPrefix` (Gemini). */
  readonly parse?: Omit<StreamParseOptions, 'nameMap' | 'provider'>
  /** `false`: start nothing before the stream ends (the start-after-stream behaviour). Default `true`. */
  readonly eager?: boolean
  /** Parallel-safe calls overlap up to this many bodies (integer 1–1000; default: the mounted native executor's `maxParallelCalls`). */
  readonly maxParallelCalls?: number
  /** Called with each chunk before it is parsed (to show text as it streams). A throw ends the stream as an error would. */
  readonly onChunk?: (chunk: StreamChunkTypes[P]) => void
  readonly agent?: Agent
  /** Receives `tool/call` / `tool/result` in model order; absent: the agent's log, if any. */
  readonly log?: SessionLog
  readonly toolSet?: ResolvedToolSet
  /**
   * Aborting it stops reading the stream at once (its `return()` is called: an SDK stream closes
   * its connection) and cancels the calls, as a cut stream does; `streamError` is its reason.
   */
  readonly signal?: AbortSignal
}

/**
 * What a stream run ends with: the parsed turn (the input of the assistant-turn builders:
 * `toOpenAIChatAssistantMessage(parsed)`, …) and one result per call in call order (`calls` /
 * `results`, the input of the result-message builders, as `settleParsedCalls` gives them).
 */
export interface ToolStreamOutcome extends SettledCalls {
  readonly parsed: ParsedToolCalls
  /** How many calls started before the stream ended (`0` with `eager: false`). */
  readonly startedEarly: number
  /** Whether the stream ended normally (`false`: it threw, or `signal` aborted). */
  readonly streamEnded: boolean
  /** What the stream threw (a network error, the SDK's abort error), or the signal's reason; absent when it ended normally. */
  readonly streamError?: unknown
}

/**
 * A running stream turn. Iterate it (`for await`) for `{ index, call, result }` in call order as
 * the results settle (any number of readers, each from the first); await `outcome` for the
 * whole turn. Neither rejects for tool, policy, argument or stream failures. The items carry each
 * tool's own result budget only; `outcome.results` is within the registry's per-batch budget
 * (`resultBudget.batchMaxChars`), so send those to the model.
 */
export interface ToolStreamRun extends AsyncIterable<StreamedResult> {
  readonly outcome: Promise<ToolStreamOutcome>
}

/**
 * The reason started calls are aborted with when their stream was cut (it ended without a finish,
 * at an output limit, or threw): `name` `AbortError`, `code` `STREAM_CUT`. A body that honours its
 * signal settles `ABORTED`; a call still queued settles `ABORTED_BEFORE_DISPATCH`.
 */
export class StreamCutError extends Error {
  override readonly name = 'AbortError'
  readonly code = 'STREAM_CUT'
  constructor(message: string) {
    super(message)
  }
}

let streamBatches = 0

/**
 * Runs the tool calls of a streamed model turn while the stream is read: each call is submitted
 * to an ordered runner as soon as its arguments are complete — OpenAI Chat / DeepSeek /
 * OpenAI-compatible when the next call's fragment begins (or `finish_reason` arrives) and its
 * argument text is complete JSON; Responses at `response.function_call_arguments.done` or
 * `response.output_item.done`; Anthropic at the `tool_use` block's `content_block_stop`;
 * Gemini at each `functionCall` part (a `willContinue` chain at its last part).
 *
 * Each run is a batch of its own: its calls' `exec.batchId` is `stream-batch-<n>`, and the
 * session log (`log`, else the agent's) gets `tool/call` at each call's start and `tool/result`
 * in model order. Observers see it as a batch (`ctx.tools.openStreamBatch`): `tools/batch-start`
 * (`streaming: true`, the calls known then) before its first call starts, `tools/batch-end` with
 * every call and the results after the last `tools/result`; a turn without calls emits neither.
 * `outcome.results` is within the registry's per-batch budget, as `ctx.tools.execute()`'s are.
 * The native executor tracks the run (`NativeToolExecutor.track`): unmounting it under `drain`
 * waits for the run, under `cancel` aborts it as `signal` would, with {@link ExecutorDisposedError}
 * (`EXECUTOR_DISPOSED`) as the reason and `streamError`.
 *
 * The batch contract holds: bodies start in call order, `tools/pre-execute`, guards and
 * approvals run one call at a time in model order, an exclusive call waits for every earlier
 * body and runs alone, results come in call order.
 *
 * When the stream ends complete, calls not yet started run and every call has its result.
 * When it is cut — it ends without a finish or at an output limit, a call's arguments are
 * incomplete, it throws, or `signal` aborts — the started calls are aborted (reason
 * {@link StreamCutError}, or the signal's): a running body that honours its signal settles
 * `ABORTED`, a queued one `ABORTED_BEFORE_DISPATCH`, one that already finished keeps its result
 * (it did run). A call that did not start gets the truncation failure: `TRUNCATED_ARGUMENTS`
 * when its own arguments are incomplete, `TRUNCATED_RESPONSE` when they were complete.
 *
 * @example
 * const run = executeToolStream(ctx, { provider: 'openai-chat', stream, nameMap: declared.nameMap })
 * for await (const { call, result } of run) console.log(call.name, result.isError)
 * const { parsed, calls, results } = await run.outcome
 *
 * @throws RangeError for an unknown `provider` or a `maxParallelCalls` that is not an integer
 *   from 1 to 1000; TypeError when `stream` is not iterable or `signal` is not an AbortSignal;
 *   NoExecutorError (`NO_EXECUTOR`) when no executor serves the scope; TypeError when it is not
 *   the native executor (the PTC executor's model calls `run_code`, which only it can run).
 */
export function executeToolStream<P extends StreamProvider>(ctx: Context, options: ExecuteToolStreamOptions<P>): ToolStreamRun {
  if (options === null || typeof options !== 'object') throw new TypeError('executeToolStream(ctx, options): options must be { provider, stream, … }')
  if (!STREAM_PROVIDERS.includes(options.provider)) {
    throw new RangeError(`executeToolStream: /provider must be one of ${STREAM_PROVIDERS.join(', ')}, got ${JSON.stringify(options.provider) ?? String(options.provider)}`)
  }
  const stream = options.stream as { [Symbol.asyncIterator]?: unknown; [Symbol.iterator]?: unknown } | null
  if (stream === null || typeof stream !== 'object' || (typeof stream[Symbol.asyncIterator] !== 'function' && typeof stream[Symbol.iterator] !== 'function')) {
    throw new TypeError(`executeToolStream: /stream must be an async iterable or iterable of ${options.provider} chunks, got ${stream === null ? 'null' : typeof stream}`)
  }
  if (options.signal != null && !(options.signal instanceof AbortSignal)) throw new TypeError('executeToolStream: /signal must be an AbortSignal')
  const scope = options.agent?.scope ?? options.toolSet?.scope ?? scopeOf(ctx)
  const executor = ctx.tools.executor(scope) as (ToolExecutor & Partial<Pick<NativeToolExecutor, 'config' | 'track'>>) | undefined
  if (executor === undefined) throw new NoExecutorError(scope.id)
  if (executor.name !== 'native') {
    throw new TypeError(`executeToolStream runs calls as the native executor does, but scope "${scope.id}" is served by the "${executor.name}" executor: parse the stream (its accumulator) and run the batch with ctx.tools.execute`)
  }
  const maxParallel = validateMaxParallel(options.maxParallelCalls ?? executor.config?.maxParallelCalls, 'maxParallelCalls')
  const results = new OrderedResults()
  const batchId = `stream-batch-${++streamBatches}`
  const batch = ctx.tools.openStreamBatch({ batchId, scope, executor: executor.name, ...(options.agent === undefined ? {} : { agent: options.agent }) })
  const turn = (dispose: AbortSignal | undefined): Promise<ToolStreamOutcome> => runTurn(ctx, options, { scope, maxParallel, batchId, batch, dispose }, results)
  const outcome = (executor.track === undefined ? turn(undefined) : executor.track(turn)).finally(() => results.close())
  return { outcome, [Symbol.asyncIterator]: () => results.read() }
}

/** A call submitted to the runner. */
interface Started {
  readonly call: RawToolCall
  readonly result: Promise<ToolResult>
}

/** Where a stream turn runs: its batch (id, observers, budget) and the executor's dispose signal (`cancel` executors). */
interface TurnSetup {
  readonly scope: Scope
  readonly maxParallel: number
  readonly batchId: string
  readonly batch: StreamBatch
  readonly dispose: AbortSignal | undefined
}

/** Aborts `cancel` with the reason of the first of `signals` to abort; returns the listeners' remover. */
function forwardAborts(cancel: AbortController, signals: readonly (AbortSignal | undefined)[]): () => void {
  const removers: (() => void)[] = []
  for (const signal of signals) {
    if (signal === undefined) continue
    const onAbort = (): void => cancel.abort(signal.reason)
    if (signal.aborted) onAbort()
    else {
      signal.addEventListener('abort', onAbort, { once: true })
      removers.push(() => signal.removeEventListener('abort', onAbort))
    }
  }
  return () => removers.forEach((remove) => remove())
}

/** Reads the stream, starting calls as they settle, then gives every call its result. */
async function runTurn<P extends StreamProvider>(ctx: Context, options: ExecuteToolStreamOptions<P>, setup: TurnSetup, results: OrderedResults): Promise<ToolStreamOutcome> {
  const { scope, maxParallel, batch } = setup
  const source = streamSource(options.provider, { ...options.parse, ...(options.nameMap === undefined ? {} : { nameMap: options.nameMap }) })
  const cancel = new AbortController()
  const unforward = forwardAborts(cancel, [options.signal ?? undefined, setup.dispose])
  const runner = createStreamRunner(ctx, options, scope, cancel.signal, maxParallel, setup.batchId)
  const started: Started[] = []
  const start = (call: RawToolCall): void => {
    const index = started.length
    const plain = plainCall(call)
    // The first call to start opens the batch (no call started before it).
    if (!batch.started) batch.start([plain])
    const result = runner.submit(plain)
    started.push({ call: plain, result })
    void result.then((settled) => results.put({ index, call: plain, result: settled }))
  }
  let streamEnded = true
  let streamError: unknown
  try {
    try {
      const end = await readStream(options.stream as AsyncIterable<StreamChunkTypes[P]> | Iterable<StreamChunkTypes[P]>, cancel.signal, (chunk) => {
        options.onChunk?.(chunk)
        source.push(chunk)
        if (options.eager !== false) startReady(source, started.length, start)
      })
      if (end === 'aborted') {
        streamEnded = false
        streamError = cancel.signal.reason
      }
    } catch (error) {
      streamEnded = false
      streamError = cancel.signal.aborted ? cancel.signal.reason : error
    }
    const parsed = source.result()
    const startedEarly = started.length
    const cut = parsed.status === 'truncated' || !streamEnded
    if (cut && !cancel.signal.aborted) cancel.abort(new StreamCutError(cutMessage(parsed, streamError)))
    const calls: readonly RawToolCall[] = parsed.status === 'truncated' ? parsed.truncated : parsed.calls
    const truncated = parsed.status === 'truncated' ? truncatedCallResults(parsed.truncated) : []
    const settled: ToolResult[] = []
    for (let i = 0; i < calls.length; i++) {
      const call = calls[i] as RawToolCall
      if (i >= started.length) {
        // A cut response runs nothing more; a complete one runs the rest (after an abort they settle ABORTED_BEFORE_DISPATCH).
        if (parsed.status === 'truncated') {
          const failure = truncated[i] as ToolResult
          results.put({ index: i, call: plainCall(call), result: failure })
          settled.push(failure)
          continue
        }
        start(call)
      }
      settled.push(withCallId(await (started[i] as Started).result, call.callId))
    }
    // A cut turn whose calls all failed before starting still was a batch: it opens here.
    if (calls.length > 0) batch.start(calls)
    return Object.freeze({
      parsed,
      calls,
      results: batch.end(calls, settled),
      startedEarly,
      streamEnded,
      ...(streamEnded ? {} : { streamError }),
    })
  } finally {
    unforward()
  }
}

/** Starts every call the source reports settled beyond the `begun` already started. */
function startReady(source: StreamSource, begun: number, start: (call: RawToolCall) => void): void {
  const ready = source.readyCalls()
  if (ready <= begun) return
  const snapshot = source.result()
  // A finish already says the response is cut (an output limit, a call's JSON incomplete): nothing more starts.
  if (snapshot.status === 'truncated' && snapshot.finish.kind !== 'missing') return
  const calls: readonly (RawToolCall | TruncatedCall)[] = snapshot.status === 'truncated' ? snapshot.truncated : snapshot.calls
  for (let i = begun; i < ready && i < calls.length; i++) {
    const call = calls[i] as RawToolCall | TruncatedCall
    // The parser's own verdict agrees, or the call waits for the stream's end.
    if ('reason' in call && call.reason === 'arguments-incomplete') return
    start(call)
  }
}

function createStreamRunner<P extends StreamProvider>(ctx: Context, options: ExecuteToolStreamOptions<P>, scope: Scope, signal: AbortSignal, maxParallel: number, batchId: string): CallRunner {
  const log = options.log ?? options.agent?.log
  return ctx.tools.pipeline.createRunner({
    scope,
    signal,
    maxParallel,
    batchId,
    ...(options.agent === undefined ? {} : { agent: options.agent }),
    ...(log === undefined ? {} : { log }),
    ...(options.toolSet === undefined ? {} : { toolSet: options.toolSet }),
    ...(options.nameMap === undefined ? {} : { nameMap: options.nameMap }),
  })
}

function plainCall(call: RawToolCall): RawToolCall {
  return { callId: call.callId, name: call.name, arguments: call.arguments }
}

/**
 * The result under the call's final id: a call started under the id the stream had given it so
 * far keeps it unless a later call's emitted id took it (then the final parse minted another).
 */
function withCallId(result: ToolResult, callId: string): ToolResult {
  return result.callId === callId ? result : Object.freeze({ ...result, callId })
}

function cutMessage(parsed: ParsedToolCalls, error: unknown): string {
  if (error !== undefined) return `the model stream failed before the turn was complete: ${error instanceof Error ? error.message : String(error)}`
  return parsed.finish.kind === 'length' ? 'the model stream was cut at its output limit' : 'the model stream ended before the turn was complete'
}
