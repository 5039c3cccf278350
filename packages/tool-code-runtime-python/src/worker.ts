/**
 * The engine side of the Python runtime: Pyodide (CPython compiled to WebAssembly) in a
 * `worker_threads` Worker, one run at a time (`runtime.ts` and `worker-host.ts` are the
 * main-thread side).
 *
 * Start-up: caps WebAssembly memory growth (the hard memory cap), loads Pyodide from the npm
 * package's own files (`indexURL`: nothing is fetched), from a memory snapshot when the main
 * thread has one (else it makes one and sends it back), evaluates the Python prelude
 * (`prelude.ts`), installs the interrupt buffer, hardens the JavaScript realm (see
 * {@link hardenRealm}), records the baseline every run is reset to, and reports `ready`.
 *
 * A run: the main thread posts the program and the tool table; sub-calls come back to it as
 * `calls` messages (JSON text) and their replies as `replies`; printed lines are forwarded at
 * every sub-call; `done` carries the outcome (after a run that reached the memory cap, every
 * generation of the garbage collector is collected first). This module starts by itself when loaded in a
 * worker whose `workerData` carries {@link PY_WORKER_MARKER}.
 */
import { isMainThread, parentPort, workerData, type MessagePort } from 'node:worker_threads'
import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import { PY_PRELUDE } from './prelude'

/** `workerData.marker` of a Python engine worker. */
export const PY_WORKER_MARKER = 'dsh-python-worker'

/** Standard-library modules imported before the snapshot is taken (so runs do not pay for them). */
export const PRELOADED_MODULES = ['asyncio', 'ast', 'json', 'math', 'io', 'traceback', 'typing', 're', 'collections', 'itertools', 'functools', 'datetime', 'statistics', 'random', 'string', 'textwrap', 'dataclasses', 'decimal', 'fractions', 'operator', 'copy', 'heapq', 'bisect']

/** The module the prelude is evaluated into before the snapshot is made (hidden from programs: the prelude blocks it). */
export const PRELUDE_MODULE = '_dsh_runtime'

/** Evaluates `source` (the prelude) into a new module {@link PRELUDE_MODULE} registered in `sys.modules`. */
const PRELUDE_MODULE_SOURCE = `import sys, types
module = types.ModuleType('${PRELUDE_MODULE}')
exec(compile(source, '<${PRELUDE_MODULE}>', 'exec'), module.__dict__)
sys.modules['${PRELUDE_MODULE}'] = module
del sys, types, module`

/**
 * The program a worker runs once before it reports ready: the shapes model programs use
 * (functions, gather, comprehensions, f-strings, a class, a failed call), so the first real run
 * does not pay for the interpreter paths WebAssembly runs for the first time.
 */
const WARM_PROGRAM = [
  'import asyncio, json',
  'async def one(i):',
  '    await asyncio.sleep(0)',
  '    return {"i": i, "s": f"item {i:02d}"}',
  'rows = await asyncio.gather(*(one(i) for i in range(3)))',
  'best = sorted(rows, key=lambda r: -r["i"])[0]',
  'class Box:',
  '    def __init__(self, v):',
  '        self.v = v',
  'print("ready", best["s"].upper(), len([r for r in rows if r["i"] % 2 == 0]), Box(1).v, json.dumps(best))',
  'try:',
  '    await tools.missing()',
  'except ToolCallError as e:',
  '    pass',
  'return {"ok": [1, 2.5, None, True], "best": best}',
].join('\n')

/** What the main thread passes to a worker. */
export interface PyWorkerData {
  readonly marker: typeof PY_WORKER_MARKER
  /** Int32 slots shared with the main thread: [0] is Pyodide's interrupt buffer. */
  readonly interrupt: SharedArrayBuffer
  /** A memory snapshot to start from (made by an earlier worker of this process or the cache). */
  readonly snapshot?: Uint8Array
  /** Longest error message (characters). */
  readonly messageChars: number
  /** The `timeout` message of a program that can never progress (the PTC executor's `STALLED_MESSAGE`). */
  readonly stalledMessage: string
  /** Absolute path of the `pyodide` package's CommonJS entry (`pyodide.js`); its directory holds the runtime files. */
  readonly pyodideEntry: string
}

/** One tool as the Python side needs it. */
export interface PyToolEntry {
  readonly name: string
  readonly py: string
  readonly renamed: Readonly<Record<string, string>>
}

/** Messages to the worker. */
export type ToPyWorker =
  | {
      readonly type: 'run'
      readonly runId: number
      readonly code: string
      readonly tools: readonly PyToolEntry[]
      readonly memoryBytes: number
      readonly valueBytes: number
      readonly outputBytes: number
      readonly maxSubCalls: number
    }
  | { readonly type: 'replies'; readonly runId: number; readonly replies: readonly { readonly callId: number; readonly text: string }[] }
  | { readonly type: 'abort'; readonly runId: number }

/** Messages from the worker. */
export type FromPyWorker =
  | { readonly type: 'ready'; readonly baselineBytes: number; readonly snapshot?: Uint8Array }
  | { readonly type: 'failed'; readonly message: string }
  | { readonly type: 'calls'; readonly runId: number; readonly calls: readonly { readonly callId: number; readonly name: string; readonly json: string }[] }
  | { readonly type: 'logs'; readonly runId: number; readonly lines: readonly string[] }
  | {
      readonly type: 'done'
      readonly runId: number
      readonly logs: readonly string[]
      readonly value?: string
      readonly error?: { readonly kind: string; readonly message: string }
      /** Work the program left pending when it ended, cancelled (one item each, without the `note: ` prefix). */
      readonly notes?: readonly string[]
      /** Why state outside the run could not be reset (`''`: it was): a non-empty reason replaces this worker. */
      readonly tainted: string
      /** The memory cap refused a growth during the run. */
      readonly capReached: boolean
    }

/** The slice of `WebAssembly.Memory` used here (the project's `lib` settings do not declare it). */
interface WasmMemory {
  readonly buffer: ArrayBuffer
  grow(deltaPages: number): number
}

interface PyProxyLike {
  destroy(): void
  get(key: string): unknown
}

/** Runs the engine on `port`. */
export async function servePython(port: MessagePort, data: PyWorkerData): Promise<void> {
  // A rejection nobody handles (Pyodide's promise glue when a run is cancelled) must not end the
  // worker: Node's default would terminate the thread with the run still settling.
  process.on('unhandledRejection', () => undefined)
  const send = (message: FromPyWorker, transfer?: ArrayBuffer[]): void => port.postMessage(message, transfer ?? [])
  // The hard memory cap: WebAssembly.Memory#grow refuses to pass `cap`; Emscripten then reports
  // an allocation failure and CPython raises MemoryError.
  let cap = Number.POSITIVE_INFINITY
  let refused = 0
  const memoryProto = (globalThis as unknown as { WebAssembly: { Memory: { prototype: WasmMemory } } }).WebAssembly.Memory.prototype
  const grow = memoryProto.grow
  memoryProto.grow = function (this: WasmMemory, delta: number): number {
    if (this.buffer.byteLength + delta * 65_536 > cap) {
      refused++
      throw new RangeError('WebAssembly memory cap reached')
    }
    return grow.call(this, delta)
  }
  let pyodide: Awaited<ReturnType<typeof import('pyodide').loadPyodide>>
  let made: Uint8Array | undefined
  try {
    const { loadPyodide } = createRequire(data.pyodideEntry)(data.pyodideEntry) as typeof import('pyodide')
    const indexURL = dirname(data.pyodideEntry)
    const timers = Object.freeze({ setTimeout, clearTimeout })
    const options = {
      indexURL: `${indexURL}/`,
      jsglobals: timers,
      stdout: () => undefined,
      stderr: () => undefined,
      stdin: () => null,
      env: { HOME: '/home/pyodide' },
    }
    if (data.snapshot !== undefined) {
      pyodide = await loadPyodide({ ...options, _loadSnapshot: data.snapshot })
    } else {
      pyodide = await loadPyodide({ ...options, _makeSnapshot: true })
      pyodide.runPython(`import ${PRELOADED_MODULES.join(', ')}`)
      // The prelude, compiled and evaluated, is part of the snapshot: workers started from it skip that.
      pyodide.runPython(PRELUDE_MODULE_SOURCE, { globals: pyodide.toPy({ source: PY_PRELUDE }) as never })
      made = pyodide.makeMemorySnapshot()
    }
  } catch (error) {
    send({ type: 'failed', message: `Pyodide failed to load: ${error instanceof Error ? error.message : String(error)}` })
    return
  }

  let current: { runId: number; pending: Set<number>; batch: { callId: number; name: string; json: string }[]; nextCallId: number } | undefined
  // A host call: queued for the main thread (one message per microtask checkpoint); its id, or 0
  // when no run is active. The reply comes back through deliver() (see 'replies').
  const hostCall = (name: string, json: string): number => {
    const run = current
    if (run === undefined) return 0
    const callId = ++run.nextCallId
    run.pending.add(callId)
    if (run.batch.length === 0) {
      queueMicrotask(() => {
        const calls = run.batch
        run.batch = []
        send({ type: 'calls', runId: run.runId, calls })
      })
    }
    run.batch.push({ callId, name, json })
    return callId
  }
  const hostPrint = (text: string): void => {
    if (current !== undefined) send({ type: 'logs', runId: current.runId, lines: text.split('\n') })
  }

  const namespace = pyodide.runPython(`__import__('sys').modules['${PRELUDE_MODULE}'].__dict__`) as PyProxyLike
  // Host calls of the current run not yet answered: while one is, a waiting program has not stalled.
  const hostPending = (): number => current?.pending.size ?? 0
  const install = namespace.get('install') as (a: unknown, b: unknown, c: unknown, d: string) => PyProxyLike
  const api = install(hostCall, hostPrint, hostPending, JSON.stringify({ messageChars: data.messageChars, stalledMessage: data.stalledMessage }))
  const start = api.get('start') as (spec: string) => PromiseLike<string> & PyProxyLike
  const abort = api.get('abort') as () => void
  const baseline = api.get('baseline') as () => void
  const collectAll = api.get('collect_all') as () => number
  const deliver = api.get('deliver') as (callId: number, text: string) => void
  const flush = api.get('flush') as () => void
  /** Hands replies to Python and runs what they made ready, now. */
  const answer = (state: NonNullable<typeof current>, replies: readonly { readonly callId: number; readonly text: string }[]): void => {
    try {
      for (const { callId, text } of replies) if (state.pending.delete(callId)) deliver(callId, text)
    } finally {
      try {
        flush()
      } catch {
        // A KeyboardInterrupt (a stop) or SystemExit raised out of a task: the task has recorded
        // it, and what was not run yet stays queued for the loop.
      }
    }
  }
  baseline()
  const interrupt = new Int32Array(data.interrupt)
  pyodide.setInterruptBuffer(interrupt)
  hardenRealm(pyodide as unknown as Record<string, unknown>)
  // One run through the whole path (compile, exec, await, print, JSON), so the first real run
  // does not pay for the code paths WebAssembly and CPython touch for the first time.
  const warm = start(JSON.stringify({ code: WARM_PROGRAM, tools: [], valueBytes: 1024, outputBytes: 1024, maxSubCalls: 1 }))
  try {
    await warm
  } finally {
    warm.destroy()
  }
  const memory = (): number => (pyodide as unknown as { _module: { HEAP8: Int8Array } })._module.HEAP8.buffer.byteLength
  const baselineBytes = memory()
  send(made === undefined ? { type: 'ready', baselineBytes } : { type: 'ready', baselineBytes, snapshot: made }, made === undefined ? [] : [made.buffer as ArrayBuffer])

  const run = async (message: Extract<ToPyWorker, { type: 'run' }>): Promise<void> => {
    const state = { runId: message.runId, pending: new Set<number>(), batch: [] as { callId: number; name: string; json: string }[], nextCallId: 0 }
    current = state
    cap = baselineBytes + message.memoryBytes
    const refusedAtStart = refused
    const spec = JSON.stringify({
      code: message.code,
      tools: message.tools,
      valueBytes: message.valueBytes,
      outputBytes: message.outputBytes,
      maxSubCalls: message.maxSubCalls,
    })
    let outcome: { logs: string[]; value?: string; error?: { kind: string; message: string }; tainted: string }
    try {
      const task = start(spec)
      try {
        outcome = JSON.parse(await task) as typeof outcome
      } finally {
        task.destroy()
      }
    } catch (error) {
      outcome = { logs: [], error: { kind: 'exception', message: `sandbox internal error: ${error instanceof Error ? error.message.split('\n').filter(Boolean).pop() : String(error)}` }, tainted: 'the run failed inside the runtime' }
    }
    current = undefined
    Atomics.store(interrupt, 0, 0)
    state.pending.clear()
    const capReached = refused > refusedAtStart
    if (capReached) {
      // What the run left in older reference cycles (the run's own reset only collected the young
      // generation) is freed before the next run: it gets the whole memory budget again.
      try {
        collectAll()
      } catch {
        // A failed collection leaves the garbage to CPython's own collections.
      }
    }
    send({ type: 'done', runId: message.runId, ...outcome, capReached })
  }

  port.on('message', (message: ToPyWorker) => {
    switch (message.type) {
      case 'run':
        void run(message)
        return
      case 'replies': {
        const state = current
        if (state === undefined || state.runId !== message.runId) return
        answer(state, message.replies)
        return
      }
      case 'abort': {
        const state = current
        if (state === undefined || state.runId !== message.runId) return
        // The program is idle here (this handler runs between its steps): a pending SIGINT would
        // only land in the calls below, so it is cleared; the host signals again while the run lasts.
        Atomics.store(interrupt, 0, 0)
        try {
          abort()
        } catch {
          // An interrupt that arrived meanwhile; the run is stopped either way.
        }
        answer(state, [...state.pending].map((callId) => ({ callId, text: 'E{"kind":"abort","message":"the run was aborted"}' })))
        return
      }
    }
  })
}

/**
 * Removes what a Python-level escape could use to reach the host from this worker's JavaScript
 * realm: string compilation (`Function` constructors, `eval`), the Pyodide API's host-reaching
 * entries (host file-system mounts, package loading, script loading), and the process-wide
 * controls of `process` (exit, kill, native modules, built-in module access, environment).
 */
export function hardenRealm(pyodide: Record<string, unknown>): void {
  const refuse = (what: string) => () => {
    throw new Error(`${what} is not available in the Python sandbox`)
  }
  for (const key of ['loadPackage', 'loadPackagesFromImports', 'mountNodeFS', 'mountNativeFS', 'unpackArchive', 'registerJsModule', 'runPython', 'runPythonAsync', 'pyimport', 'setInterruptBuffer', 'setStdin', 'setStdout', 'setStderr']) {
    if (key in pyodide) {
      try {
        Object.defineProperty(pyodide, key, { value: refuse(`pyodide.${key}`), writable: false, configurable: true })
      } catch {
        // A non-configurable property stays; the others are still removed.
      }
    }
  }
  const fs = pyodide.FS as { filesystems?: Record<string, unknown> } | undefined
  if (fs?.filesystems !== undefined) {
    delete fs.filesystems.NODEFS
    delete fs.filesystems.NODERAWFS
  }
  const api = pyodide._api as Record<string, unknown> | undefined
  if (api !== undefined) {
    for (const key of ['loadScript', 'loadBinaryFile', 'loadPackage', 'nodeFsPromisesMod', 'nodeFSMod', 'nodePath', 'nodeVmMod', 'nodeUrlMod', 'nodeChildProcessMod']) {
      if (key in api) {
        try {
          delete api[key]
        } catch {
          // See above.
        }
      }
    }
  }
  const proc = process as unknown as Record<string, unknown>
  for (const key of ['getBuiltinModule', 'binding', '_linkedBinding', 'dlopen', 'kill', 'chdir', 'setuid', 'setgid', 'seteuid', 'setegid', 'setgroups', 'initgroups', 'send', 'disconnect']) {
    try {
      Object.defineProperty(proc, key, { value: refuse(`process.${key}`), writable: false, configurable: false })
    } catch {
      // See above.
    }
  }
  try {
    Object.defineProperty(process, 'env', { value: Object.freeze({}), writable: false, configurable: false })
  } catch {
    // See above.
  }
  const constructors = [function () {}, async function () {}, function* () {}, async function* () {}].map((f) => Object.getPrototypeOf(f) as object)
  for (const proto of constructors) Object.defineProperty(proto, 'constructor', { value: undefined, writable: false, configurable: false })
  Object.defineProperty(globalThis, 'eval', { value: refuse('eval'), writable: false, configurable: false })
}

function isPyWorkerData(data: unknown): data is PyWorkerData {
  return data !== null && typeof data === 'object' && (data as { marker?: unknown }).marker === PY_WORKER_MARKER
}

if (!isMainThread && parentPort !== null && isPyWorkerData(workerData)) void servePython(parentPort, workerData)
