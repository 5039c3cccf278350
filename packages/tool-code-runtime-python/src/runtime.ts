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
 */
import { createHash } from 'node:crypto'
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readdirSync, readSync, renameSync, unlinkSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import { unknownOption, type JsonValue } from '@deepseek-ai/dsh-tools'
import {
  abortError,
  bundleWorkerEntry,
  clip,
  lazyWorkerScript,
  MAX_MESSAGE_CHARS,
  messageOf,
  renderValue,
  runPreflight,
  safeString,
  STALLED_MESSAGE,
  type CodeLanguageFlavour,
  type CodeRuntime,
  type HostFunction,
  type RunError,
  type RunInput,
  type RunLimits,
  type RunOutput,
} from '@deepseek-ai/dsh-tool-executor-ptc'
import { pythonFlavour } from './flavour'
import { pythonToolNames } from './names'
import { PY_PRELUDE } from './prelude'
import { PRELOADED_MODULES, PY_WORKER_MARKER, type FromPyWorker, type PyToolEntry, type PyWorkerData, type ToPyWorker } from './worker'

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
 * @throws RangeError for an invalid `graceMs` or `maxWorkers` (naming it), for options that are
 *   not an object (`python runtime options: must be an object, got "fast"`) and for an unknown
 *   key (`python runtime options: /maxWorker is not a known option (expected graceMs, maxWorkers,
 *   snapshotCache; did you mean "maxWorkers"?)`).
 */
export function createPythonRuntime(options: PythonRuntimeOptions = {}): PythonCodeRuntime {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new RangeError(`python runtime options: must be an object, got ${Array.isArray(options) ? 'an array' : typeof options === 'string' ? JSON.stringify(options) : typeof options === 'function' ? 'a function' : String(options)}`)
  }
  const unknown = unknownOption(options, OPTION_KEYS)
  if (unknown !== undefined) throw new RangeError(`python runtime options: ${unknown.pointer} ${unknown.detail}`)
  const graceMs = options.graceMs ?? 200
  if (!Number.isFinite(graceMs) || graceMs < 0) throw new RangeError(`graceMs must be a finite number of ms >= 0, got ${String(graceMs)}`)
  const maxWorkers = options.maxWorkers ?? 1
  if (!Number.isInteger(maxWorkers) || maxWorkers < 1 || maxWorkers > 64) throw new RangeError(`maxWorkers must be an integer from 1 to 64, got ${String(maxWorkers)}`)
  const snapshots = new SnapshotStore(options.snapshotCache)
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

// ---- snapshot -----------------------------------------------------------------------------

const require = createRequire(import.meta.url)
const PYODIDE_ENTRY = require.resolve('pyodide')

/**
 * The process-wide memory snapshot (shared by every runtime of the process), in a
 * `SharedArrayBuffer`: every worker reads the same bytes, nothing is copied per worker.
 */
let processSnapshot: Uint8Array | undefined

/** `bytes` copied into shared memory. */
function shared(bytes: Uint8Array): Uint8Array {
  const view = new Uint8Array(new SharedArrayBuffer(bytes.byteLength))
  view.set(bytes)
  return view
}

/** A file read straight into shared memory (one copy, no intermediate buffer). */
function readShared(file: string): Uint8Array {
  const fd = openSync(file, 'r')
  try {
    const size = fstatSync(fd).size
    const view = new Uint8Array(new SharedArrayBuffer(size))
    for (let at = 0; at < size; ) {
      const n = readSync(fd, view, at, size - at, at)
      if (n === 0) throw new Error(`${file} ended after ${at} of ${size} bytes`)
      at += n
    }
    return view
  } finally {
    closeSync(fd)
  }
}

/** Where snapshots come from and go to. */
class SnapshotStore {
  private readonly file: string | undefined
  private source: 'none' | 'memory' | 'cache' = 'none'

  constructor(cache: string | false | undefined) {
    const dir = cache === undefined ? (existsSync(join(process.cwd(), 'node_modules')) ? join(process.cwd(), 'node_modules', '.cache', 'dsh-code-runtime-python') : undefined) : cache === false ? undefined : cache
    this.file = dir === undefined ? undefined : join(dir, snapshotFileName())
  }

  kind(): 'none' | 'memory' | 'cache' {
    return this.source
  }

  get(): Uint8Array | undefined {
    if (processSnapshot !== undefined) {
      if (this.source === 'none') this.source = 'memory'
      return processSnapshot
    }
    if (this.file !== undefined && existsSync(this.file)) {
      try {
        processSnapshot = readShared(this.file)
        this.source = 'cache'
        return processSnapshot
      } catch {
        return undefined
      }
    }
    return undefined
  }

  put(snapshot: Uint8Array): void {
    processSnapshot = shared(snapshot)
    if (this.file === undefined) return
    try {
      const dir = dirname(this.file)
      mkdirSync(dir, { recursive: true })
      const tmp = `${this.file}.${process.pid}.tmp`
      writeFileSync(tmp, snapshot, { mode: 0o600 })
      renameSync(tmp, this.file)
      // Snapshots of other Pyodide versions or preludes (~30 MB each) are of no further use.
      const own = basename(this.file)
      for (const name of readdirSync(dir)) if (/^pyodide-[0-9a-f]{16}\.snap$/.test(name) && name !== own) unlinkSync(join(dir, name))
    } catch {
      // The cache is an optimisation: a read-only directory only costs the next process a full boot.
    }
  }

  /** Drops `snapshot` (it failed to load) from memory and from the cache; false when it is no longer the current one. */
  reject(snapshot: Uint8Array): boolean {
    if (processSnapshot !== snapshot) return false
    processSnapshot = undefined
    this.source = 'none'
    if (this.file !== undefined) {
      try {
        unlinkSync(this.file)
      } catch {
        // Already gone, or a read-only cache: the file would fail the same way next time, and be dropped again.
      }
    }
    return true
  }
}

/** The file name of this build's snapshot in a cache directory (`pyodide-<key>.snap`). */
export function snapshotFileName(): string {
  return `pyodide-${snapshotKey()}.snap`
}

/** Identifies a snapshot: the Pyodide version, the preloaded modules and the prelude evaluated into it. */
function snapshotKey(): string {
  const version = (require('pyodide/package.json') as { version: string }).version
  return createHash('sha256').update(`${version}\0${PRELOADED_MODULES.join(',')}\0${PY_PRELUDE}`).digest('hex').slice(0, 16)
}

// ---- the worker script ----------------------------------------------------------------------

/** The worker's script: `worker.js` next to this file when built; bundled once from `worker.ts` (esbuild) when running from sources. */
const workerScript = lazyWorkerScript(async () => {
  const here = import.meta.url
  if (!/\.[cm]?ts$/.test(new URL(here).pathname)) return { eval: false, url: new URL('./worker.js', here) }
  return bundleWorkerEntry(fileURLToPath(new URL('./worker.ts', here)))
})

// ---- one worker -----------------------------------------------------------------------------

interface ActiveRun {
  readonly runId: number
  readonly input: RunInput
  readonly limits: Readonly<Required<RunLimits>>
  readonly names: ReadonlyMap<string, string>
  readonly startedAt: number
  readonly eluStart: EventLoopUtilization
  readonly logs: string[]
  readonly resolve: (output: RunOutput) => void
  forwarded: number
  inFlight: number
  closed: boolean
  override: RunError | undefined
  replies: { callId: number; text: string }[]
  timer: ReturnType<typeof setTimeout> | undefined
  kill: ReturnType<typeof setTimeout> | undefined
  readonly onAbort: () => void
}

type EventLoopUtilization = ReturnType<Worker['performance']['eventLoopUtilization']>

/** One Pyodide worker. */
class PyWorker {
  readonly ready: Promise<void>
  private readonly interrupt = new SharedArrayBuffer(4)
  private w: Worker | undefined
  private active: ActiveRun | undefined
  private nextRunId = 0
  dead = false
  /** The snapshot this worker started from (undefined: a full boot, or not started yet). */
  snapshotUsed: Uint8Array | undefined
  /** The last run left state behind (or would not stop): replace this worker. */
  mustRetire = false

  constructor(
    private readonly snapshots: SnapshotStore,
    private readonly graceMs: number,
  ) {
    let markReady!: () => void
    let markFailed!: (error: Error) => void
    this.ready = new Promise<void>((resolve, reject) => {
      markReady = resolve
      markFailed = reject
    })
    this.ready.catch(() => undefined)
    const booting = workerScript().then(
      (source) => {
        const snapshot = this.snapshots.get()
        this.snapshotUsed = snapshot
        const data: PyWorkerData = {
          marker: PY_WORKER_MARKER,
          interrupt: this.interrupt,
          messageChars: MAX_MESSAGE_CHARS,
          stalledMessage: STALLED_MESSAGE,
          pyodideEntry: PYODIDE_ENTRY,
          ...(snapshot === undefined ? {} : { snapshot }),
        }
        const w = source.eval ? new Worker(source.code, { eval: true, workerData: data, execArgv: [] }) : new Worker(source.url, { workerData: data })
        this.w = w
        w.unref()
        w.on('message', (message: FromPyWorker) => {
          if (message.type === 'ready') {
            if (message.snapshot !== undefined) this.snapshots.put(message.snapshot)
            markReady()
          } else if (message.type === 'failed') {
            this.terminate()
            markFailed(new Error(message.message))
          } else this.onMessage(message)
        })
        w.on('error', (error: Error) => {
          markFailed(error)
          this.onCrash(error)
        })
        w.on('exit', (code) => {
          const error = new Error(`the Python worker exited with code ${code}`)
          markFailed(error)
          this.onCrash(error)
        })
        if (this.dead) void w.terminate()
        return w
      },
      (error: unknown) => {
        markFailed(error instanceof Error ? error : new Error(String(error)))
        throw error
      },
    )
    booting.catch(() => undefined)
  }

  ref(): void {
    if (!this.dead) this.w?.ref()
  }

  unref(): void {
    this.w?.unref()
  }

  terminate(): void {
    if (this.dead) return
    this.dead = true
    void this.w?.terminate().catch(() => undefined)
  }

  run(input: RunInput, limits: Readonly<Required<RunLimits>>, tools: readonly PyToolEntry[], startedAt: number): Promise<RunOutput> {
    const w = this.w as Worker
    return new Promise<RunOutput>((resolve) => {
      const runId = ++this.nextRunId
      const run: ActiveRun = {
        runId,
        input,
        limits,
        names: new Map(tools.map((t) => [t.name, t.py])),
        startedAt,
        eluStart: w.performance.eventLoopUtilization(),
        logs: [],
        resolve,
        forwarded: 0,
        inFlight: 0,
        closed: false,
        override: undefined,
        replies: [],
        timer: undefined,
        kill: undefined,
        onAbort: () => this.stop(run, abortError(input.signal)),
      }
      this.active = run
      Atomics.store(new Int32Array(this.interrupt), 0, 0)
      input.signal.addEventListener('abort', run.onAbort)
      this.post({
        type: 'run',
        runId,
        code: input.program,
        tools,
        memoryBytes: limits.memoryBytes,
        valueBytes: limits.valueBytes,
        outputBytes: limits.outputBytes,
        maxSubCalls: limits.maxSubCalls,
      })
      this.schedule(run)
    })
  }

  // ---- limits ------------------------------------------------------------------------------

  private computeMs(run: ActiveRun): number {
    const w = this.w
    return w === undefined ? 0 : w.performance.eventLoopUtilization(run.eluStart).active
  }

  /** Checks the budgets at the earliest moment one could run out. */
  private schedule(run: ActiveRun): void {
    if (run.timer !== undefined) clearTimeout(run.timer)
    const now = performance.now()
    const wallLeft = run.startedAt + run.limits.wallMs - now
    const computeLeft = run.limits.computeMs - this.computeMs(run)
    const delay = Math.max(1, Math.min(wallLeft, computeLeft))
    run.timer = setTimeout(() => this.check(run), Math.min(2_147_483_647, Math.ceil(delay)))
    run.timer.unref()
  }

  private check(run: ActiveRun): void {
    run.timer = undefined
    if (this.active !== run || run.closed) return
    if (this.computeMs(run) >= run.limits.computeMs) {
      this.stop(run, { kind: 'timeout', message: `compute time limit of ${run.limits.computeMs} ms exceeded` })
      return
    }
    if (performance.now() >= run.startedAt + run.limits.wallMs) {
      // As the TypeScript runtime words it. (A program waiting on nothing that can wake it never
      // gets here: the worker ends it at once with STALLED_MESSAGE.)
      const running = run.inFlight
      const waiting = running > 0 ? ` (${running} tool call${running === 1 ? '' : 's'} still running)` : ''
      this.stop(run, { kind: 'timeout', message: `wall time limit of ${run.limits.wallMs} ms exceeded${waiting}` })
      return
    }
    this.schedule(run)
  }

  /** Stops a run: interrupts Python, aborts its pending sub-calls, and terminates the worker if it does not stop within the grace. */
  private stop(run: ActiveRun, error: RunError): void {
    if (this.active !== run || run.closed) return
    run.override = error
    this.close(run)
    this.post({ type: 'abort', runId: run.runId })
    const signal = (): void => {
      Atomics.store(new Int32Array(this.interrupt), 0, 2)
    }
    signal()
    const started = performance.now()
    const again = (): void => {
      run.kill = undefined
      if (this.active !== run) return
      if (performance.now() - started >= this.graceMs) {
        this.kill(run)
        return
      }
      signal()
      run.kill = setTimeout(again, Math.max(1, this.graceMs / 4))
      run.kill.unref()
    }
    run.kill = setTimeout(again, Math.max(1, this.graceMs / 4))
    run.kill.unref()
  }

  /** No more sub-calls are forwarded; `onSettle` runs once. */
  private close(run: ActiveRun): void {
    if (run.closed) return
    run.closed = true
    if (run.timer !== undefined) clearTimeout(run.timer)
    run.timer = undefined
    run.input.signal.removeEventListener('abort', run.onAbort)
    try {
      run.input.onSettle?.()
    } catch {
      // The settle hook must not disturb the run's result.
    }
  }

  private settle(run: ActiveRun, output: RunOutput): void {
    if (this.active !== run) return
    this.active = undefined
    if (run.kill !== undefined) clearTimeout(run.kill)
    run.kill = undefined
    this.close(run)
    run.resolve(output)
  }

  private stats(run: ActiveRun): RunOutput['stats'] {
    return { subCalls: run.forwarded, computeMs: this.computeMs(run), wallMs: performance.now() - run.startedAt }
  }

  private kill(run: ActiveRun): void {
    const stats = this.stats(run)
    this.mustRetire = true
    this.terminate()
    this.settle(run, { logs: run.logs, error: run.override ?? { kind: 'exception', message: 'the Python worker stopped' }, stats })
  }

  // ---- messages ----------------------------------------------------------------------------

  private post(message: ToPyWorker): void {
    if (!this.dead) this.w?.postMessage(message)
  }

  private onMessage(message: Exclude<FromPyWorker, { type: 'ready' | 'failed' }>): void {
    const run = this.active
    if (run === undefined || run.runId !== message.runId) return
    switch (message.type) {
      case 'calls':
        for (const call of message.calls) this.forward(run, call.callId, call.name, call.json)
        return
      case 'logs':
        run.logs.push(...message.lines)
        return
      case 'done': {
        if (message.tainted !== '') this.mustRetire = true
        const stats = this.stats(run)
        const logs = [...message.logs]
        const error = run.override ?? this.classify(run, message)
        if (error !== undefined) return this.settle(run, { logs, error, stats })
        if (message.value === undefined) return this.settle(run, { logs, stats })
        // The TypeScript runtime's check and words: JSON text alone over the budget (its length in
        // UTF-16 units, as the guest measures it there).
        if (message.value.length > run.limits.outputBytes) {
          return this.settle(run, {
            logs,
            error: { kind: 'output-limit', message: `output limit of ${run.limits.outputBytes} bytes exceeded: the return value is ${message.value.length} characters of JSON` },
            stats,
          })
        }
        let value: JsonValue
        try {
          value = JSON.parse(message.value) as JsonValue
        } catch {
          return this.settle(run, { logs, error: { kind: 'invalid-output', message: 'the return value is not JSON' }, stats })
        }
        const rendered = renderValue(value)
        const bytes = logs.reduce((n, l, i) => n + Buffer.byteLength(l) + (i > 0 ? 1 : 0), 0)
        const total = bytes + (rendered === '' ? 0 : Buffer.byteLength(rendered) + (logs.length > 0 ? 1 : 0))
        if (total > run.limits.outputBytes) {
          return this.settle(run, {
            logs,
            error: { kind: 'output-limit', message: `output limit of ${run.limits.outputBytes} bytes exceeded: printed lines and the return value come to ${total} bytes` },
            stats,
          })
        }
        return this.settle(run, { value, logs, stats })
      }
    }
  }

  /** The run's failure from the worker's report: a MemoryError (or an error after the cap refused memory) is `memory`. */
  private classify(run: ActiveRun, message: Extract<FromPyWorker, { type: 'done' }>): RunError | undefined {
    const error = message.error
    if (error === undefined) return undefined
    if (error.kind === 'exception' && (/^MemoryError\b/.test(error.message) || (message.capReached && /^(RecursionError|SystemError)\b/.test(error.message)))) {
      return { kind: 'memory', message: `memory limit of ${run.limits.memoryBytes} bytes exceeded` }
    }
    return { kind: error.kind as RunError['kind'], message: error.message }
  }

  private forward(run: ActiveRun, callId: number, name: string, json: string): void {
    if (run.closed) return
    const binding: HostFunction | undefined = Object.prototype.hasOwnProperty.call(run.input.bindings, name) ? run.input.bindings[name] : undefined
    const py = `tools.${run.names.get(name) ?? name}`
    run.forwarded++
    run.inFlight++
    let arg: JsonValue | undefined
    try {
      arg = JSON.parse(json) as JsonValue
    } catch {
      arg = undefined
    }
    const reply: Promise<string> =
      binding === undefined
        ? Promise.resolve(`E${JSON.stringify({ kind: 'invalid', message: `${py} is not a tool of this run` })}`)
        : arg === undefined
          ? Promise.resolve(`E${JSON.stringify({ kind: 'invalid', message: `the argument of ${py} is not JSON` })}`)
          : callHost(binding, name, py, arg, run.limits.valueBytes)
    void reply.then((text) => {
      run.inFlight--
      if (this.active !== run || run.closed) return
      if (run.replies.length === 0) {
        queueMicrotask(() => {
          const replies = run.replies
          run.replies = []
          if (this.active === run && replies.length > 0) this.post({ type: 'replies', runId: run.runId, replies })
        })
      }
      run.replies.push({ callId, text })
    })
  }

  private onCrash(error: Error): void {
    const wasDead = this.dead
    this.dead = true
    const run = this.active
    if (run === undefined || wasDead) return
    this.mustRetire = true
    this.settle(run, {
      logs: run.logs,
      error: run.override ?? { kind: 'exception', message: `sandbox internal error: ${clip(error.message, MAX_MESSAGE_CHARS)}` },
      stats: this.stats(run),
    })
  }
}

/**
 * Invokes a binding and encodes its settlement for the worker: `T<json>` or
 * `E<{kind, toolName, message}>`, with the TypeScript runtime's checks and texts (a result that
 * is not JSON, one over `valueBytes`, a failure's message clipped to `valueBytes` characters).
 */
async function callHost(binding: HostFunction, name: string, py: string, arg: JsonValue, valueBytes: number): Promise<string> {
  let payload: unknown
  try {
    payload = await binding(arg)
  } catch (error) {
    const p = error as { name?: unknown; toolName?: unknown; message?: unknown } | null | undefined
    const toolName = p !== null && typeof p === 'object' && p.name === 'ToolCallError' && typeof p.toolName === 'string' ? p.toolName : name
    const message = p !== null && typeof p === 'object' && typeof p.message === 'string' ? p.message : safeString(error)
    return `E${JSON.stringify({ kind: 'tool', toolName, message: clip(message, valueBytes) })}`
  }
  let text: string | undefined
  try {
    text = JSON.stringify(payload)
  } catch {
    text = undefined
  }
  if (typeof text !== 'string') return `E${JSON.stringify({ kind: 'tool', toolName: name, message: `${py} returned a value that is not JSON` })}`
  const bytes = Buffer.byteLength(text)
  if (bytes > valueBytes) return `E${JSON.stringify({ kind: 'limit', message: `the result of ${py} is ${bytes} bytes, over the valueBytes limit of ${valueBytes} bytes` })}`
  return `T${text}`
}
