/**
 * One Pyodide worker, main-thread side (`PyWorker`): boots the worker thread (from the memory
 * snapshot when there is one), runs one program at a time in it under the compute and wall
 * limits, forwards its sub-calls to the bindings and settles the run once; a worker that would
 * not stop, left state behind or crashed is marked for replacement.
 */
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { JsonValue } from '@deepseek-ai/dsh-tools'
import {
  abortError,
  bundleWorkerEntry,
  clip,
  lazyWorkerScript,
  MAX_MESSAGE_CHARS,
  noteLines,
  renderValue,
  STALLED_MESSAGE,
  type HostFunction,
  type RunError,
  type RunInput,
  type RunLimits,
  type RunOutput,
} from '@deepseek-ai/dsh-tool-executor-ptc'
import { callHost } from './host-call'
import type { SnapshotStore } from './snapshot'
import { PY_WORKER_MARKER, type FromPyWorker, type PyToolEntry, type PyWorkerData, type ToPyWorker } from './worker'

const require = createRequire(import.meta.url)
const PYODIDE_ENTRY = require.resolve('pyodide')

/** The worker's script: `worker.js` next to this file when built; bundled once from `worker.ts` (esbuild) when running from sources. */
const workerScript = lazyWorkerScript(async () => {
  const here = import.meta.url
  if (!/\.[cm]?ts$/.test(new URL(here).pathname)) return { eval: false, url: new URL('./worker.js', here) }
  return bundleWorkerEntry(fileURLToPath(new URL('./worker.ts', here)))
})

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
export class PyWorker {
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
        // Work the program left pending (tasks, timers) was cancelled: the model is told (RunOutput.notes).
        const notes = message.notes === undefined || message.notes.length === 0 ? undefined : noteLines(message.notes)
        const done = (output: RunOutput): void => this.settle(run, notes === undefined ? output : { ...output, notes })
        const logs = [...message.logs]
        const error = run.override ?? this.classify(run, message)
        if (error !== undefined) return done({ logs, error, stats })
        if (message.value === undefined) return done({ logs, stats })
        // The TypeScript runtime's check and words: JSON text alone over the budget (its length in
        // UTF-16 units, as the guest measures it there).
        if (message.value.length > run.limits.outputBytes) {
          return done({
            logs,
            error: { kind: 'output-limit', message: `output limit of ${run.limits.outputBytes} bytes exceeded: the return value is ${message.value.length} characters of JSON` },
            stats,
          })
        }
        let value: JsonValue
        try {
          value = JSON.parse(message.value) as JsonValue
        } catch {
          return done({ logs, error: { kind: 'invalid-output', message: 'the return value is not JSON' }, stats })
        }
        const rendered = renderValue(value)
        const bytes = logs.reduce((n, l, i) => n + Buffer.byteLength(l) + (i > 0 ? 1 : 0), 0)
        const total = bytes + (rendered === '' ? 0 : Buffer.byteLength(rendered) + (logs.length > 0 ? 1 : 0))
        if (total > run.limits.outputBytes) {
          return done({
            logs,
            error: { kind: 'output-limit', message: `output limit of ${run.limits.outputBytes} bytes exceeded: printed lines and the return value come to ${total} bytes` },
            stats,
          })
        }
        return done({ value, logs, stats })
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
