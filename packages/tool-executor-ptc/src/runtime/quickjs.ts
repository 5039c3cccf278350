/**
 * The default `CodeRuntime`: TypeScript type-stripped on the host with esbuild, run as an async
 * function body in QuickJS compiled to WebAssembly (quickjs-emscripten 0.32, sync release
 * variant). ARCHITECTURE §6; seed 000 "PTC mode".
 *
 * Isolation: the program sees only the JavaScript language, `console`, `tools` and
 * `ToolCallError` — no `process`, `require`, modules, file system, network or timers. Values
 * cross the boundary only as JSON text: the prelude serializes a sub-call argument inside the
 * sandbox, the host parses it, and results travel back the same way, so no host object is ever
 * reachable from the program (bug case B19).
 *
 * Concurrency: a sub-call is a synchronous host function that returns a guest promise made with
 * `context.newPromise()`; the binding runs on the host event loop, so concurrent sub-calls
 * overlap. Settled host promises are applied in one batch per event-loop turn (`setImmediate`),
 * which keeps the host responsive even when tools resolve synchronously (bug case B20).
 *
 * Limits (see `limits.ts`): compute time through the interrupt handler plus a watchdog for
 * built-ins that never poll it (`watchdog.ts`); wall time through a host timer and the interrupt
 * handler; memory through the allocator limit and a capped WebAssembly memory
 * (`module-pool.ts`); output bytes on every printed line and the return value; value bytes on
 * every sub-call argument and result; the sub-call count at the call.
 */
import { DEFAULT_RUN_LIMITS, validateLimits, type RunLimits } from '../limits'
import { stripProgram } from '../strip'
import { abortError, Execution, messageOf } from './execution'
import { ModulePool, type ModulePoolStats, type SandboxModule } from './module-pool'
import { preludeCode } from './prelude'
import type { CodeRuntime, RunInput, RunOutput } from './types'
import { runGuarded } from './watchdog'

export { MAX_MESSAGE_CHARS } from './execution'

/** Options of {@link createQuickJsRuntime}. */
export interface QuickJsRuntimeOptions {
  /**
   * Guard every entry into the sandbox with Node's `vm` watchdog (default `true`). Without it a
   * built-in that loops in C (`Array(2 ** 32 - 1).join('')`, huge BigInt arithmetic) blocks the
   * host until it ends. Costs one thread start and join per entry: ≈0.1 ms on an idle machine,
   * up to ≈2 ms under heavy CPU contention (measured); one entry per run plus one per batch of
   * settled sub-calls.
   */
  readonly watchdog?: boolean
  /** Added to the remaining compute/wall budget to form the watchdog budget of an entry (ms, default 50). */
  readonly watchdogGraceMs?: number
  /** The instance pool; runtimes may share one. Default: a pool of their own. */
  readonly pool?: ModulePool
}

/** Counters of a {@link QuickJsCodeRuntime}. */
export interface QuickJsRuntimeStats {
  /** Runs started and not yet settled. */
  readonly activeRuns: number
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
   * Optional: compiles the WebAssembly binary, starts esbuild, prepares the prelude and the
   * watchdog, and readies one instance for runs with `memoryBytes` (default: the default
   * limit), so the first run does not pay for them (≈200 ms cold, measured).
   */
  warmUp(memoryBytes?: number): Promise<void>
  /** Drops idle WebAssembly instances; running programs are not affected. */
  dispose(): void
}

/**
 * Creates the default runtime. `run` accepts TypeScript or JavaScript (TypeScript syntax is
 * stripped with esbuild), runs it as the body of an async function (top-level `await` and
 * `return`), and never rejects: every failure is `RunOutput.error` with a kind from
 * `RunErrorKind`.
 */
export function createQuickJsRuntime(options: QuickJsRuntimeOptions = {}): QuickJsCodeRuntime {
  const pool = options.pool ?? new ModulePool()
  const watchdog = options.watchdog ?? true
  const graceMs = options.watchdogGraceMs ?? 50
  let activeRuns = 0

  const start = async (input: RunInput, started: number): Promise<RunOutput> => {
    let limits: Readonly<Required<RunLimits>>
    try {
      limits = validateLimits(input.limits)
    } catch (error) {
      return { logs: [], error: { kind: 'exception', message: `invalid run limits: ${messageOf(error)}` } }
    }
    if (input.signal.aborted) return { logs: [], error: abortError(input.signal) }
    const stripped = stripProgram(input.program)
    if ('error' in stripped) return { logs: [], error: { kind: 'exception', message: stripped.error.message } }
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
    return new Promise<RunOutput>((resolve) => {
      new Execution({ entry, pool, code: stripped.code, input, limits, started, watchdog, graceMs, resolve }).start()
    })
  }

  const run = async (input: RunInput): Promise<RunOutput> => {
    activeRuns++
    try {
      return await start(input, performance.now())
    } finally {
      activeRuns--
    }
  }

  return {
    language: 'typescript',
    isolation: 'wasm',
    run,
    stats: () => ({ activeRuns, modules: pool.stats() }),
    warmUp: async (memoryBytes = DEFAULT_RUN_LIMITS.memoryBytes) => {
      stripProgram('return 0')
      preludeCode()
      if (watchdog) runGuarded(() => undefined, 1_000)
      pool.release(await pool.acquire(memoryBytes), true)
    },
    dispose: () => pool.clear(),
  }
}

