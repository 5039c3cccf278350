/**
 * The Python `CodeRuntime`: programs run in Pyodide (CPython on WebAssembly) inside a
 * `worker_threads` Worker (`worker.ts`); this module is the main-thread side — the worker pool,
 * the limits that need a second thread (compute and wall time, abort), the sub-call forwarding
 * and the model-facing outcome.
 *
 * Limits: compute time is the worker's event-loop active time (`eventLoopUtilization`), wall
 * time a timer. When either runs out, or the caller aborts, the host writes SIGINT into the
 * interrupt buffer Pyodide polls (CPython raises `KeyboardInterrupt` in the program, again every
 * `graceMs / 4` if the program catches it) and resolves every pending sub-call as aborted; a run
 * that has not stopped `graceMs` later (a C loop that never polls, a handler that swallows
 * every interrupt) has its worker terminated and replaced. Memory is capped in the worker
 * (WebAssembly memory growth past the warm size + `memoryBytes` is refused → `MemoryError`);
 * output, value size and sub-call count are checked per line and per call.
 *
 * This file is the entry and keeps the runtime factory (`createPythonRuntime`: options, the
 * worker pool, one run); the rest is in sibling files, one concept a file: the main-thread side
 * of one worker (`worker-host.ts`), a sub-call's host side (`host-call.ts`) and the memory
 * snapshot store (`snapshot.ts`).
 */
import { checkConfigObject, showConfigValue } from '@deepseek-ai/dsh-tools'
import { abortError, messageOf, runPreflight, type CodeLanguageFlavour, type CodeRuntime, type RunInput, type RunOutput } from '@deepseek-ai/dsh-tool-executor-ptc'
import { pythonFlavour } from './flavour'
import { pythonToolNames } from './names'
import { SnapshotStore } from './snapshot'
import type { PyToolEntry } from './worker'
import { PyWorker } from './worker-host'

export { snapshotFileName } from './snapshot'

/** Options of {@link createPythonRuntime}. */
export interface PythonRuntimeOptions {
  /**
   * How long a stopped run (limit, abort) may take to unwind after the interrupt before its
   * worker is terminated and replaced (ms, default 200).
   */
  readonly graceMs?: number
  /** Workers running programs at once (default 1); further runs wait for a free worker (their wall time starts when their program does). */
  readonly maxWorkers?: number
  /**
   * Where the Pyodide memory snapshot is cached across processes (a directory), or `false` to
   * keep it in memory only. Default: `node_modules/.cache/dsh-code-runtime-python` under the
   * current directory when `node_modules` exists there, else in memory only. The first worker
   * of a process without a snapshot boots Pyodide fully (~3–10 s) and makes one; later workers
   * start from it (~1–2 s). A cached snapshot that fails to load is deleted and the worker boots
   * fully instead; writing a snapshot removes the directory's snapshots of other versions.
   */
  readonly snapshotCache?: string | false
}

/** The fields of {@link PythonRuntimeOptions}, in the order an unknown-key message lists them. */
const OPTION_KEYS = ['graceMs', 'maxWorkers', 'snapshotCache'] as const satisfies readonly (keyof PythonRuntimeOptions)[]

/** Counters of a {@link PythonCodeRuntime}. */
export interface PythonRuntimeStats {
  /** Runs started and not yet settled. */
  readonly activeRuns: number
  /** Workers started so far (first boot, growth, replacements). */
  readonly workersStarted: number
  /** Workers terminated because a run would not stop, left state behind, or crashed the worker. */
  readonly workersReplaced: number
  /** Whether workers start from a memory snapshot. */
  readonly snapshot: 'none' | 'memory' | 'cache'
}

/** The Python runtime: a {@link CodeRuntime} with the Python flavour, warm-up and diagnostics. */
export interface PythonCodeRuntime extends CodeRuntime {
  readonly language: 'python'
  readonly isolation: 'wasm'
  readonly flavour: CodeLanguageFlavour
  /** Starts one worker and waits until Pyodide is loaded and ready (the `PtcExecutor` plugin calls it at plugin start). Rejects when Pyodide cannot load. */
  warmUp(memoryBytes?: number): Promise<void>
  /** Terminates idle workers; running programs finish first. The runtime stays usable. */
  dispose(): void
  stats(): PythonRuntimeStats
}

/**
 * Creates the Python runtime. `run` never rejects: every failure is `RunOutput.error`.
 *
 * @throws RangeError for an invalid `graceMs`, `maxWorkers` or `snapshotCache` (naming it:
 *   `snapshotCache must be a directory path (a non-empty string) or false, got true`), for options that are
 *   not an object (`python runtime options: must be an object, got "fast"`) and for an unknown
 *   key (`python runtime options: /maxWorker is not a known option (expected graceMs, maxWorkers,
 *   snapshotCache; did you mean "maxWorkers"?)`).
 */
export function createPythonRuntime(options: PythonRuntimeOptions = {}): PythonCodeRuntime {
  checkConfigObject('python runtime options', options, OPTION_KEYS)
  const graceMs = options.graceMs ?? 200
  if (!Number.isFinite(graceMs) || graceMs < 0) throw new RangeError(`graceMs must be a finite number of ms >= 0, got ${showConfigValue(graceMs)}`)
  const maxWorkers = options.maxWorkers ?? 1
  if (!Number.isInteger(maxWorkers) || maxWorkers < 1 || maxWorkers > 64) throw new RangeError(`maxWorkers must be an integer from 1 to 64, got ${showConfigValue(maxWorkers)}`)
  // null means the default, as for graceMs and maxWorkers.
  const snapshotCache = options.snapshotCache ?? undefined
  if (snapshotCache !== undefined && snapshotCache !== false && (typeof snapshotCache !== 'string' || snapshotCache === '')) {
    throw new RangeError(`snapshotCache must be a directory path (a non-empty string) or false, got ${showConfigValue(snapshotCache)}`)
  }
  const snapshots = new SnapshotStore(snapshotCache)
  const idle: PyWorker[] = []
  const starting = new Set<PyWorker>()
  const busy = new Set<PyWorker>()
  const waiters: ((worker: PyWorker | Error) => void)[] = []
  let started = 0
  let replaced = 0
  let activeRuns = 0
  let disposed = false

  const spawn = (): PyWorker => {
    started++
    const worker = new PyWorker(snapshots, graceMs)
    starting.add(worker)
    worker.ready.then(
      () => {
        starting.delete(worker)
        release(worker)
      },
      (error: Error) => {
        starting.delete(worker)
        // A snapshot that does not load (a damaged cache file, another Pyodide build) is dropped,
        // and a worker boots fully instead (making a new one).
        if (worker.snapshotUsed !== undefined && snapshots.reject(worker.snapshotUsed) && !disposed) {
          spawn()
          return
        }
        if (busy.size + starting.size === 0) for (const w of waiters.splice(0)) w(error)
      },
    )
    return worker
  }

  const release = (worker: PyWorker): void => {
    busy.delete(worker)
    if (worker.dead || worker.mustRetire) {
      if (worker.mustRetire) replaced++
      worker.terminate()
      // Keep capacity: a replacement boots now (from the snapshot) so the next run does not wait for it.
      if (!disposed) spawn()
      return
    }
    const next = waiters.shift()
    if (next !== undefined) {
      busy.add(worker)
      next(worker)
      return
    }
    worker.unref()
    if (disposed) worker.terminate()
    else idle.push(worker)
  }

  const acquire = (): Promise<PyWorker> => {
    const worker = idle.pop()
    if (worker !== undefined) {
      busy.add(worker)
      return Promise.resolve(worker)
    }
    if (busy.size + starting.size < maxWorkers) spawn()
    return new Promise<PyWorker>((resolve, reject) => waiters.push((w) => (w instanceof Error ? reject(w) : resolve(w))))
  }

  const run = async (input: RunInput): Promise<RunOutput> => {
    activeRuns++
    try {
      const preflight = runPreflight(input)
      if (!preflight.ok) return preflight.output
      const limits = preflight.limits
      let worker: PyWorker
      try {
        worker = await acquire()
      } catch (error) {
        return { logs: [], error: { kind: 'exception', message: `the sandbox failed to start: ${messageOf(error)}` } }
      }
      worker.ref()
      try {
        if (input.signal.aborted) return { logs: [], error: abortError(input.signal) }
        // The wall clock starts with the program: time spent waiting for a (re)started worker is not the program's.
        return await worker.run(input, limits, toolTable(input), performance.now())
      } finally {
        release(worker)
      }
    } finally {
      activeRuns--
    }
  }

  return {
    language: 'python',
    isolation: 'wasm',
    suspendable: true,
    flavour: pythonFlavour,
    run,
    async warmUp() {
      disposed = false
      if (idle.length > 0) return
      let worker = starting.values().next().value ?? spawn()
      for (;;) {
        try {
          await worker.ready
          return
        } catch (error) {
          // Its replacement, when it failed on a snapshot that was then dropped.
          const next: PyWorker | undefined = starting.values().next().value
          if (next === undefined || next === worker) throw error
          worker = next
        }
      }
    },
    dispose() {
      disposed = true
      for (const worker of idle.splice(0)) worker.terminate()
      for (const worker of starting) void worker.ready.then(() => worker.terminate(), () => undefined)
    },
    stats: () => ({ activeRuns, workersStarted: started, workersReplaced: replaced, snapshot: snapshots.kind() }),
  }
}

/** The tool table of a run: the bindings, named and with argument renames as the SDK shows them. */
function toolTable(input: RunInput): PyToolEntry[] {
  const names = Object.keys(input.bindings)
  const known = new Map((input.tools ?? []).map((t) => [t.name, t]))
  return pythonToolNames(names.map((name) => known.get(name) ?? { name, description: '', parameters: {} }))
}
