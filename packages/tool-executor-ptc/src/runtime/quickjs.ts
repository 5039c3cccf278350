/**
 * The default `CodeRuntime`: TypeScript type-stripped on the host with esbuild, run as an async
 * function body in QuickJS compiled to WebAssembly (quickjs-emscripten 0.32, sync release
 * variant). See docs/design.md, "PTC executor".
 *
 * Isolation: the program sees only the JavaScript language, `console`, `tools` and
 * `ToolCallError`, and timers within the run's wall budget (`prelude-timers.ts`) — no `process`,
 * `require`, modules, file system or network. Values
 * cross the boundary only as JSON text: the prelude serializes a sub-call argument inside the
 * sandbox, the host parses it, and results travel back the same way, so no host object is ever
 * reachable from the program (bug case B19).
 *
 * Placement (`thread`): by default the engine runs in a `worker_threads` Worker
 * (`worker-host.ts`, `worker-main.ts`), so a program never blocks the host event loop (bug case
 * B20) and a built-in that never polls the interrupt handler is stopped by terminating the
 * worker, with no per-entry cost. `thread: 'main'` runs the engine on the calling thread, where
 * such built-ins need the `vm` watchdog (`watchdog.ts`) on every entry.
 *
 * Concurrency: a sub-call does not call the host; the prelude checks it, queues it and returns a
 * promise of its own. After the jobs of each entry the host takes the queued calls with one call
 * into the sandbox and later settles each through the prelude's `deliver` / `refuse`. The binding
 * runs on the host event loop, so concurrent sub-calls overlap. Settled host promises are applied in one batch per event-loop turn (`setImmediate`),
 * which keeps the engine's thread responsive even when tools resolve synchronously (bug case B20, above).
 *
 * Limits (see `limits.ts`): compute time through the interrupt handler, plus the worker
 * watchdog or the `vm` watchdog for built-ins that never poll it; wall time through a timer and
 * the interrupt handler; memory through the allocator limit and a capped WebAssembly memory
 * (`module-pool.ts`); output bytes on every printed line and the return value; value bytes on
 * every sub-call argument and result; the sub-call count at the call.
 */
import { DEFAULT_RUN_LIMITS, validateLimits, type RunLimits } from '../limits'
import { checkConfigObject, showConfigValue, type JsonValue } from '@deepseek-ai/dsh-tools'
import { stripProgramCached } from '../strip'
import { abortError, Execution, messageOf } from './execution'
import { ModulePool, type ModulePoolStats, type SandboxModule } from './module-pool'
import { preludeCode } from './prelude'
import { dropAsyncHelper } from './async-helper'
import { placePositions } from './positions'
import { defaultReplySpinMs, MAX_REPLY_SPIN_MS } from './reply-spin'
import { bindingsLink } from './host-call'
import type { CodeRuntime, HostFunction, RunInput, RunOutput } from './types'
import { WorkerPool } from './worker-host'

export { MAX_MESSAGE_CHARS } from './execution'

/**
 * The checks every code runtime makes before it starts a program: the run's limits validated
 * (`validateLimits`), then the signal. `{ ok: true, limits }` with the limits filled with their
 * defaults, or `{ ok: false, output }` with the run's result: an `exception` failure
 * `invalid run limits: <message>` for an invalid limit, the {@link abortError} failure when the
 * signal is already aborted (no logs, no stats). Never throws.
 */
export function runPreflight(input: RunInput): { readonly ok: true; readonly limits: Readonly<Required<RunLimits>> } | { readonly ok: false; readonly output: RunOutput } {
  let limits: Readonly<Required<RunLimits>>
  try {
    limits = validateLimits(input.limits)
  } catch (error) {
    return { ok: false, output: { logs: [], error: { kind: 'exception', message: `invalid run limits: ${messageOf(error)}` } } }
  }
  if (input.signal.aborted) return { ok: false, output: { logs: [], error: abortError(input.signal) } }
  return { ok: true, limits }
}

/**
 * Where the QuickJS engine runs.
 *
 * - `worker` (default): in a `worker_threads` Worker per running program, reused across runs.
 *   The host event loop never blocks on a program; a built-in that never polls the interrupt
 *   handler is stopped by terminating the worker (then replaced). Costs two messages per run
 *   and per sub-call.
 * - `main`: on the calling thread. A tight loop blocks the host for up to `computeMs` plus the
 *   grace; built-ins that never poll need {@link QuickJsRuntimeOptions.watchdog}.
 */
export type QuickJsThread = 'worker' | 'main'

/** Options of {@link createQuickJsRuntime}. */
export interface QuickJsRuntimeOptions {
  /** Where the engine runs (default `worker`, or `main` when {@link QuickJsRuntimeOptions.pool} is given). */
  readonly thread?: QuickJsThread
  /**
   * `thread: 'main'` only: guard every entry into the sandbox with Node's `vm` watchdog
   * (default `true`). Without it a built-in that loops in C (`Array(2 ** 32 - 1).join('')`,
   * huge BigInt arithmetic) blocks the host until it ends. Costs one thread start and join per
   * entry — one entry per run plus one per batch of settled sub-calls: measured 0.3 ms per
   * entry on a loaded 2-core machine, 7–10 ms per trivial run through the pipeline.
   */
  readonly watchdog?: boolean
  /**
   * Added to the remaining compute/wall budget to form the deadline of an entry (ms, default
   * 50): past it the worker is terminated (`worker`) or the `vm` watchdog fires (`main`). With
   * `worker` it is also how long an aborted run may take to stop before its worker is terminated.
   */
  readonly watchdogGraceMs?: number
  /** `thread: 'main'` only: the instance pool; runtimes may share one. Default: a pool of their own. */
  readonly pool?: ModulePool
  /** Reuse healthy QuickJS instances (default `true`; see `ModulePoolOptions.recycle`). */
  readonly recycle?: boolean
  /**
   * `thread: 'worker'` only (accepted and checked with `main`, where the engine never waits for
   * replies, but without effect): how long the engine thread busy-waits for a sub-call's reply
   * before it blocks, in ms — a finite number from 0 to 10. Default: 0.2 when the process may
   * use more than one CPU (`os.availableParallelism() > 1`), else 0 (on one CPU spinning only
   * delays the main thread that produces the reply). A reply that comes within it costs no
   * thread wake-up (a sequential sub-call with a tool that answers at once: measured in
   * `optimisations.md`, Round 10 (PTC)); a wait that spins spends up to this much CPU. A wait
   * does not spin while the engine's recent waits averaged more than twice this (its replies come
   * slower than a spin; a moving average in which each wait weighs a quarter), and at most `max(1, availableParallelism() - 1)` engine workers of one runtime
   * spin at once; the others block at once. `0` turns spinning off.
   *
   * @throws RangeError from {@link createQuickJsRuntime}: `replySpinMs must be a finite number of
   *   ms from 0 to 10, got <value>`.
   */
  readonly replySpinMs?: number
}

/** The fields of {@link QuickJsRuntimeOptions}, in the order an unknown-key message lists them. */
const QUICKJS_OPTION_KEYS = ['thread', 'watchdog', 'watchdogGraceMs', 'pool', 'recycle', 'replySpinMs'] as const satisfies readonly (keyof QuickJsRuntimeOptions)[]

/** Counters of a {@link QuickJsCodeRuntime}. */
export interface QuickJsRuntimeStats {
  /** Runs started and not yet settled. */
  readonly activeRuns: number
  /** Where the engine runs. */
  readonly thread: QuickJsThread
  /** Engine workers started so far (0 with `thread: 'main'`): one per concurrent run, plus replacements of terminated ones. */
  readonly workersStarted: number
  /** The instance pool's counters. */
  readonly modules: ModulePoolStats
}

/** The QuickJS runtime: a {@link CodeRuntime} with diagnostics. */
export interface QuickJsCodeRuntime extends CodeRuntime {
  readonly language: 'typescript'
  readonly isolation: 'wasm'
  /** Current counters (tests, diagnostics). */
  stats(): QuickJsRuntimeStats
  /**
   * Optional: runs one warm-up program ({@link WARM_UP_PROGRAM}) with `memoryBytes` (default: the
   * default limit), which compiles the WebAssembly binary, starts esbuild, prepares the prelude,
   * starts the engine worker (or the `vm` watchdog), readies one instance with a prepared context,
   * and runs the code of a run and of its sub-calls on both threads ({@link WARM_UP_SUB_CALLS}
   * sequential round trips, two parallel ones, a failing one, a printed line, a returned object)
   * often enough for V8 to compile it, so the first real run does not pay for any of it. The
   * program's tools exist only in that run (every run gets a fresh context); its stripped text
   * is not kept in the strip cache.
   *
   * @throws Error `the sandbox failed to warm up: <message>` when that run fails or returns
   *   something else than expected.
   */
  warmUp(memoryBytes?: number): Promise<void>
  /**
   * Drops idle WebAssembly instances and terminates idle engine workers; running programs are
   * not affected (their workers are terminated when they settle). The runtime stays usable.
   */
  dispose(): void
}

/** Sequential sub-calls of the warm-up program ({@link QuickJsCodeRuntime.warmUp}). */
export const WARM_UP_SUB_CALLS = 40

/** What the warm-up program returns as `sum` (and prints): the sum of `0 … WARM_UP_SUB_CALLS - 1`. */
const WARM_UP_SUM = (WARM_UP_SUB_CALLS * (WARM_UP_SUB_CALLS - 1)) / 2

/**
 * The program {@link QuickJsCodeRuntime.warmUp} runs: {@link WARM_UP_SUB_CALLS} sequential
 * sub-calls, two parallel ones and a failing one (caught), then one printed line and a returned
 * object — the paths of a real run, on both threads.
 */
export const WARM_UP_PROGRAM = `let sum = 0
for (let i = 0; i < ${WARM_UP_SUB_CALLS}; i++) sum += (await tools.echo({ i })).i
const both = await Promise.all([tools.echo({ i: 1 }), tools.echo({ i: 2 })])
try { await tools.fail({}) } catch (e) { if (!(e instanceof ToolCallError)) throw e }
console.log(sum)
return { sum, both }`

/** The tools of {@link WARM_UP_PROGRAM}: `echo` returns its argument, `fail` rejects like a failed tool call. */
const WARM_UP_BINDINGS: Readonly<Record<string, HostFunction>> = Object.freeze({
  echo: async (arg: JsonValue) => arg,
  fail: async (): Promise<JsonValue> => {
    throw { name: 'ToolCallError', toolName: 'fail', message: 'warm-up failure' }
  },
})

/** Longest wait of {@link QuickJsCodeRuntime.warmUp} for V8's background compilation to end (ms). */
export const WARM_UP_SETTLE_MAX_MS = 300

/**
 * Resolves once the process has been nearly idle for one 10 ms window while this thread waits
 * (its CPU time, all threads together, under a quarter of the window), or after `maxMs`. Used
 * after the warm-up run: what is left then is mostly V8 compiling the WebAssembly functions the
 * run made hot with TurboFan on background threads. Never blocks the event loop (timers only).
 */
async function backgroundSettled(maxMs: number): Promise<void> {
  const windowMs = 10
  const deadline = performance.now() + maxMs
  while (performance.now() < deadline) {
    const cpu = process.cpuUsage()
    const started = performance.now()
    await new Promise<void>((resolve) => setTimeout(resolve, windowMs))
    const used = process.cpuUsage(cpu)
    const elapsed = performance.now() - started
    if ((used.user + used.system) / 1000 < elapsed / 4) return
  }
}

/**
 * Creates the default runtime. `run` accepts TypeScript or JavaScript (TypeScript syntax is
 * stripped with esbuild), runs it as the body of an async function (top-level `await` and
 * `return`), and never rejects: every failure is `RunOutput.error` with a kind from
 * `RunErrorKind`.
 *
 * @throws RangeError for an invalid option (naming it: `thread`, `pool` that is not a
 *   `ModulePool`, `recycle` or `watchdog` that is not a boolean, `watchdogGraceMs`,
 *   `replySpinMs`), for options that are not an object and
 *   for an unknown key (`quickjs runtime options: /treads is not a known option (expected
 *   thread, watchdog, watchdogGraceMs, pool, recycle, replySpinMs; did you mean "thread"?)`).
 */
export function createQuickJsRuntime(options: QuickJsRuntimeOptions = {}): QuickJsCodeRuntime {
  checkConfigObject('quickjs runtime options', options, QUICKJS_OPTION_KEYS)
  const thread: QuickJsThread = options.thread ?? (options.pool === undefined ? 'worker' : 'main')
  if (thread !== 'worker' && thread !== 'main') throw new RangeError(`thread must be "worker" or "main", got ${showConfigValue(thread)}`)
  if (thread === 'worker' && options.pool !== undefined) throw new RangeError('pool applies to thread "main" only (each engine worker keeps its own pool)')
  if (options.pool !== undefined && !(options.pool instanceof ModulePool)) throw new RangeError(`pool must be a ModulePool, got ${showConfigValue(options.pool)}`)
  const recycle = options.recycle ?? true
  if (typeof recycle !== 'boolean') throw new RangeError(`recycle must be a boolean, got ${showConfigValue(recycle)}`)
  const pool = options.pool ?? new ModulePool({ recycle })
  const watchdog = options.watchdog ?? true
  if (typeof watchdog !== 'boolean') throw new RangeError(`watchdog must be a boolean, got ${showConfigValue(watchdog)}`)
  const graceMs = options.watchdogGraceMs ?? 50
  if (!Number.isFinite(graceMs) || graceMs < 0) throw new RangeError(`watchdogGraceMs must be a finite number of ms >= 0, got ${showConfigValue(graceMs)}`)
  const replySpinMs = options.replySpinMs ?? defaultReplySpinMs()
  if (typeof replySpinMs !== 'number' || !Number.isFinite(replySpinMs) || replySpinMs < 0 || replySpinMs > MAX_REPLY_SPIN_MS) {
    throw new RangeError(`replySpinMs must be a finite number of ms from 0 to ${MAX_REPLY_SPIN_MS}, got ${showConfigValue(replySpinMs)}`)
  }
  let workers: WorkerPool | undefined
  const workerPool = (): WorkerPool => (workers ??= new WorkerPool({ prelude: preludeCode(), graceMs, recycle, replySpinMs }))
  let activeRuns = 0

  const start = async (input: RunInput, started: number, cache: boolean): Promise<RunOutput> => {
    const preflight = runPreflight(input)
    if (!preflight.ok) return preflight.output
    const limits = preflight.limits
    const stripped = await stripProgramCached(input.program, { cache })
    if (input.signal.aborted) return { logs: [], error: abortError(input.signal) }
    if ('error' in stripped) return { logs: [], error: { kind: 'exception', message: stripped.error.message } }
    // Error positions name the model's own lines (positions.ts), through the strip's source map.
    const placed = (output: RunOutput): Promise<RunOutput> => placePositions(output, input.program, stripped.code, dropAsyncHelper(stripped.code))
    if (thread === 'worker') return placed(await workerPool().run({ code: stripped.code, input, limits, started }))
    let entry: SandboxModule
    try {
      entry = await pool.acquire(limits.memoryBytes)
    } catch (error) {
      return { logs: [], error: { kind: 'exception', message: `the sandbox failed to start: ${messageOf(error)}` } }
    }
    if (input.signal.aborted) {
      pool.release(entry, true)
      return { logs: [], error: abortError(input.signal) }
    }
    const output = await new Promise<RunOutput>((resolve) => {
      const host = bindingsLink(input.bindings, limits.valueBytes)
      new Execution({ entry, pool, code: stripped.code, input, host, prelude: preludeCode(), limits, started, watchdog, graceMs, resolve }).start()
    })
    return placed(output)
  }

  const run = async (input: RunInput, cache = true): Promise<RunOutput> => {
    activeRuns++
    try {
      return await start(input, performance.now(), cache)
    } finally {
      activeRuns--
    }
  }

  return {
    language: 'typescript',
    isolation: 'wasm',
    run: (input) => run(input),
    stats: () => ({
      activeRuns,
      thread,
      workersStarted: workers?.workersStarted() ?? 0,
      modules: thread === 'worker' ? (workers?.stats() ?? pool.stats()) : pool.stats(),
    }),
    warmUp: async (memoryBytes = DEFAULT_RUN_LIMITS.memoryBytes) => {
      // The whole path of a run with sub-calls: esbuild's service, the prelude, the engine worker
      // (or the watchdog), an instance for memoryBytes, and the code of both sides of a run and
      // of a sub-call round trip compiled by V8; the instance then prepares the next run's
      // context while idle. Not cached: the warm-up leaves no stripped program behind.
      const limits = { ...DEFAULT_RUN_LIMITS, memoryBytes }
      const output = await run({ program: WARM_UP_PROGRAM, bindings: WARM_UP_BINDINGS, signal: new AbortController().signal, limits }, false)
      if (output.error !== undefined) throw new Error(`the sandbox failed to warm up: ${output.error.message}`)
      const value = output.value as { sum?: unknown } | undefined
      if (value?.sum !== WARM_UP_SUM || output.logs.join('\n') !== String(WARM_UP_SUM)) {
        throw new Error(`the sandbox failed to warm up: the warm-up program returned ${JSON.stringify(output.value)} and printed ${JSON.stringify(output.logs)}`)
      }
      // V8 now compiles the hot QuickJS functions again with TurboFan (WebAssembly tier-up) on
      // background threads: ~100-150 ms of CPU that would otherwise compete with the first runs.
      await backgroundSettled(WARM_UP_SETTLE_MAX_MS)
    },
    dispose: () => {
      pool.clear()
      workers?.dispose()
    },
  }
}

