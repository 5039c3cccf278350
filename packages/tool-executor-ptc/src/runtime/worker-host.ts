/**
 * The main-thread side of the worker placement: QuickJS runs in a `worker_threads` Worker
 * (`worker-main.ts`), so the host event loop never blocks on a program — not in a tight loop,
 * not in a built-in that never polls the interrupt handler (bug case B20: "the host event loop
 * stays responsive throughout").
 *
 * A worker serves one run at a time and is reused across runs (its QuickJS instances are recycled
 * as in-process, see `module-pool.ts`); concurrent runs get workers of their own; one idle worker
 * is kept. Workers are `unref()`ed while idle, so they never hold the process open.
 *
 * Protection: the engine stops compute, wall and abort by itself through its interrupt handler.
 * The worker publishes every sandbox entry's deadline (remaining budget + grace) in a shared
 * heartbeat ({@link EntryMonitor}); a main-thread timer, scheduled at the earliest moment an entry
 * could overrun, reads it and terminates the worker when an entry is still running past its
 * deadline (a built-in that never polls) or the engine does not settle within the grace after
 * its wall deadline or an abort. The run then settles as `timeout` (or `abort`) with the lines
 * printed before the stuck entry, and the worker is replaced. Nothing here starts a thread per
 * entry: the cost of a run is two messages, of a sub-call two messages. The sub-calls of an entry
 * and the replies are strings (framing in `wire.ts`), checked when read: a calls message that
 * does not parse ends the run as an internal error and terminates the worker. Replies go on a
 * port of their own, followed by a raise of the monitor's wake counter: the engine blocks on that
 * counter while its program waits for them (see `worker-main.ts`; it spins on it briefly first,
 * at most as many workers of a pool at once as its spin gate allows, `reply-spin.ts`), and never
 * reads this port from its event loop in the meantime. The main thread itself never blocks.
 */
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads'
import type { RunLimits } from '../limits'
import { EntryMonitor, epochMs } from './entry-monitor'
import { abortError, MAX_MESSAGE_CHARS, memoryError, messageOf } from './execution'
import { accessor, callBindingWithJson, clip, type HostReply } from './host-call'
import { compiledModule, type ModulePoolStats } from './module-pool'
import { releaseSpinOf, SpinGate } from './reply-spin'
import type { HostFunction, RunError, RunInput, RunOutput } from './types'
import { WORKER_MARKER, type EngineWorkerData, type FromEngine, type ToEngine } from './worker-main'
import { parseCallsMessage, replyFrame } from './wire'
import { bundleWorkerEntry, lazyWorkerScript, type WorkerScript } from './worker-script'

/**
 * The worker's script. Running from TypeScript sources (tests, `tsx`), `worker-main.ts` and its
 * relative imports are bundled once per process with esbuild into one CommonJS text, package
 * imports rewritten to absolute paths, and evaluated in the worker without the parent's loader
 * flags. Running from built JavaScript, the worker loads this very module file (a bundle that
 * includes `worker-main`), which starts the engine loop when it sees its `workerData`.
 */
const workerScript = lazyWorkerScript(async () => {
  const here = import.meta.url
  if (!/\.[cm]?ts$/.test(new URL(here).pathname)) {
    // Built: the package ships `worker-main` as its own entry next to this bundle, so a worker
    // loads only the engine side; a single-file bundle falls back to loading itself.
    const entry = new URL('./runtime/worker-main.js', here)
    return { eval: false, url: existsSync(fileURLToPath(entry)) ? entry : new URL(here) }
  }
  return bundleWorkerEntry(fileURLToPath(new URL('./worker-main.ts', here)))
})

/** Options of a {@link WorkerPool}. */
export interface WorkerPoolOptions {
  /** The prelude source. */
  readonly prelude: string
  /** Added to an entry's remaining budget to form its deadline (ms). */
  readonly graceMs: number
  /** Recycle healthy QuickJS instances inside a worker. */
  readonly recycle: boolean
  /** How long an engine spins for a reply before it blocks (ms; `QuickJsRuntimeOptions.replySpinMs`). */
  readonly replySpinMs: number
  /** How many of the pool's workers may spin at once (default `defaultMaxSpinners()`). */
  readonly maxSpinners?: number
}

/** What one run needs from the runtime (limits validated, program stripped). */
export interface WorkerRunRequest {
  readonly code: string
  readonly input: RunInput
  readonly limits: Readonly<Required<RunLimits>>
  readonly started: number
}

/** Keeps engine workers: one per running program, one idle spare. */
export class WorkerPool {
  private readonly idle: EngineWorker[] = []
  private readonly busy = new Set<EngineWorker>()
  /** Pool counters of workers that are gone (their instances count as dropped). */
  private retired = { created: 0, dropped: 0 }
  private spawned = 0
  /** Shared by every worker of the pool: caps how many spin for a reply at once. */
  private readonly spinGate: SpinGate

  constructor(private readonly options: WorkerPoolOptions) {
    this.spinGate = new SpinGate(options.maxSpinners)
  }

  /** Runs one program in a worker of its own. Never rejects. */
  async run(request: WorkerRunRequest): Promise<RunOutput> {
    let worker: EngineWorker
    try {
      worker = await this.acquire()
    } catch (error) {
      return { logs: [], error: { kind: 'exception', message: `the sandbox failed to start: ${messageOf(error)}` } }
    }
    if (request.input.signal.aborted) {
      this.release(worker)
      return { logs: [], error: abortError(request.input.signal) }
    }
    const output = await worker.run(request, this.options.graceMs)
    this.release(worker)
    return output
  }

  /** Terminates idle workers; busy ones are terminated when their run ends. */
  dispose(): void {
    for (const worker of this.idle.splice(0)) this.retire(worker)
    for (const worker of this.busy) worker.disposeAfterRun = true
  }

  /** Counters of the QuickJS instances across all workers (alive and gone). */
  stats(): ModulePoolStats {
    let { created, dropped } = this.retired
    let idle = 0
    let inUse = 0
    for (const worker of [...this.idle, ...this.busy]) {
      const s = worker.poolStats()
      created += s.created
      dropped += s.dropped
      idle += s.idle
      inUse += s.inUse
    }
    return { created, dropped, idle, inUse }
  }

  /** Workers started since the pool was made (diagnostics, tests). */
  workersStarted(): number {
    return this.spawned
  }

  /** The pool's workers spinning for a reply now (diagnostics, tests). */
  spinning(): number {
    return this.spinGate.spinning()
  }

  private async acquire(): Promise<EngineWorker> {
    const reused = this.idle.pop()
    const worker = reused ?? (await this.spawn())
    this.busy.add(worker)
    worker.ref()
    return worker
  }

  private release(worker: EngineWorker): void {
    this.busy.delete(worker)
    worker.unref()
    if (worker.dead || worker.disposeAfterRun || this.idle.length >= 1) this.retire(worker)
    else this.idle.push(worker)
  }

  private retire(worker: EngineWorker): void {
    const s = worker.poolStats()
    this.retired = { created: this.retired.created + s.created, dropped: this.retired.dropped + s.created }
    worker.terminate()
  }

  private async spawn(): Promise<EngineWorker> {
    const [source, wasmModule] = await Promise.all([workerScript(), compiledModule()])
    this.spawned++
    return new EngineWorker(source, {
      marker: WORKER_MARKER,
      prelude: this.options.prelude,
      recycle: this.options.recycle,
      replySpinMs: this.options.replySpinMs,
      spinGate: this.spinGate.buffer,
      ...(wasmModule === undefined ? {} : { wasmModule }),
    })
  }
}

/** The state of the run a worker is serving. */
interface ActiveRun {
  readonly runId: number
  readonly request: WorkerRunRequest
  readonly bindings: Readonly<Record<string, HostFunction>>
  /** The tool names as posted to the engine (a sub-call names its tool by position). */
  readonly names: readonly string[]
  readonly logs: string[]
  readonly resolve: (output: RunOutput) => void
  /** Sub-calls handed to a binding. */
  forwarded: number
  /** Sub-calls handed to a binding and not settled. */
  inFlight: number
  /** No sub-call is forwarded any more (settled on this side, or aborting). */
  closed: boolean
  /** The failure decided on this side (abort) that overrides the engine's. */
  override: RunError | undefined
  /** The frames of the replies settled in this microtask checkpoint, posted together (`''`: none). */
  replies: string
  timer: ReturnType<typeof setTimeout> | undefined
  onAbort: () => void
}

/** One engine worker thread (exported for the tests of the message framing; the pool is the API). */
export class EngineWorker {
  private readonly worker: Worker
  private readonly monitor = new EntryMonitor()
  /** Where replies are posted (its sibling is the engine's `workerData.replies`). */
  private readonly replies: MessagePort
  private nextRunId = 0
  private active: ActiveRun | undefined
  /** Terminated (by the watchdog, an error, or disposal). */
  dead = false
  /** Terminate when the current run ends (the pool was disposed during it). */
  disposeAfterRun = false

  constructor(source: WorkerScript, data: Omit<EngineWorkerData, 'monitor' | 'replies'>) {
    const channel = new MessageChannel()
    this.replies = channel.port1
    // Never listened to on this side, so it holds nothing open; unref'd all the same.
    this.replies.unref()
    const workerData: EngineWorkerData = { ...data, monitor: this.monitor.buffer, replies: channel.port2 }
    const transferList = [channel.port2]
    this.worker = source.eval
      ? new Worker(source.code, { eval: true, workerData, transferList, execArgv: [] })
      : new Worker(source.url, { workerData, transferList })
    // No stdio capture: piped worker streams keep a ref'd MessagePort that would hold the host
    // process open after the last run. The engine prints nothing (guest console output is captured
    // inside the sandbox).
    this.worker.unref()
    this.worker.on('message', (message: FromEngine) => this.onMessage(message))
    this.worker.on('error', (error: Error) => this.onCrash(error))
    const spinGate = new SpinGate(undefined, data.spinGate)
    this.worker.on('exit', (code) => {
      // A worker terminated while it spun for a reply could not give its gate place back.
      releaseSpinOf(this.monitor, spinGate)
      this.onCrash(new Error(`the sandbox worker exited with code ${code}`))
    })
  }

  ref(): void {
    if (!this.dead) this.worker.ref()
  }

  unref(): void {
    this.worker.unref()
  }

  terminate(): void {
    if (this.dead) return
    this.dead = true
    this.replies.close()
    void this.worker.terminate().catch(() => undefined)
  }

  poolStats(): ModulePoolStats {
    return this.monitor.poolStats()
  }

  /** Runs one program; never rejects. */
  run(request: WorkerRunRequest, graceMs: number): Promise<RunOutput> {
    return new Promise<RunOutput>((resolve) => {
      const runId = ++this.nextRunId
      const { input, limits } = request
      this.monitor.reset()
      const names = Object.keys(input.bindings)
      const run: ActiveRun = {
        runId,
        request,
        bindings: input.bindings,
        names,
        logs: [],
        resolve,
        forwarded: 0,
        inFlight: 0,
        closed: false,
        override: undefined,
        replies: '',
        timer: undefined,
        onAbort: () => this.onAbort(run, graceMs),
      }
      this.active = run
      input.signal.addEventListener('abort', run.onAbort)
      this.post({ type: 'run', runId, code: request.code, names, limits, graceMs })
      this.schedule(run, graceMs, limits.computeMs + graceMs)
    })
  }

  // ---- watchdog ----------------------------------------------------------------------------

  private schedule(run: ActiveRun, graceMs: number, delayMs: number): void {
    if (run.timer !== undefined) clearTimeout(run.timer)
    run.timer = setTimeout(() => this.check(run, graceMs), Math.min(2_147_483_647, Math.max(1, Math.ceil(delayMs))))
    run.timer.unref()
  }

  /** Terminates the worker when its current entry overran its deadline; otherwise checks again when it next could. */
  private check(run: ActiveRun, graceMs: number): void {
    run.timer = undefined
    if (this.active !== run) return
    const s = this.monitor.snapshot()
    const now = epochMs()
    const limits = run.request.limits
    const wallLimit = s.wallDeadline === undefined ? undefined : s.wallDeadline + graceMs
    if ((s.entryDeadline !== undefined && now >= s.entryDeadline) || (wallLimit !== undefined && now >= wallLimit)) {
      const compute = s.computeUsed + (s.entryStart === undefined ? 0 : now - s.entryStart)
      const computeOut = compute >= limits.computeMs || s.wallDeadline === undefined || now < s.wallDeadline
      const waiting = run.inFlight > 0 ? ` (${run.inFlight} tool call${run.inFlight === 1 ? '' : 's'} still running)` : ''
      this.kill(run, {
        kind: 'timeout',
        message: computeOut ? `compute time limit of ${limits.computeMs} ms exceeded` : `wall time limit of ${limits.wallMs} ms exceeded${waiting}`,
      })
      return
    }
    // Outside an entry no compute runs: the next entry cannot overrun before its whole remaining budget plus the grace.
    const next = s.entryDeadline ?? now + Math.max(0, limits.computeMs - s.computeUsed) + graceMs
    this.schedule(run, graceMs, Math.min(next, wallLimit ?? Number.POSITIVE_INFINITY) - now)
  }

  private onAbort(run: ActiveRun, graceMs: number): void {
    if (this.active !== run || run.closed) return
    run.override = abortError(run.request.input.signal)
    this.close(run)
    this.monitor.requestAbort()
    this.post({ type: 'abort', runId: run.runId })
    // The engine stops at its next interrupt poll or message; a built-in that never polls gets the grace.
    if (run.timer !== undefined) clearTimeout(run.timer)
    const error = run.override
    run.timer = setTimeout(() => {
      run.timer = undefined
      if (this.active === run) this.kill(run, error)
    }, graceMs)
    run.timer.unref()
  }

  /** Stops forwarding sub-calls and calls the run's `onSettle` (once). */
  private close(run: ActiveRun): void {
    if (run.closed) return
    run.closed = true
    run.request.input.signal.removeEventListener('abort', run.onAbort)
    try {
      run.request.input.onSettle?.()
    } catch {
      // The settle hook must not disturb the run's result.
    }
  }

  private settle(run: ActiveRun, output: RunOutput): void {
    if (this.active !== run) return
    this.active = undefined
    if (run.timer !== undefined) clearTimeout(run.timer)
    run.timer = undefined
    this.close(run)
    run.resolve(output)
  }

  private kill(run: ActiveRun, error: RunError): void {
    this.terminate()
    const s = this.monitor.snapshot()
    const now = epochMs()
    const computeMs = s.computeUsed + (s.entryStart === undefined ? 0 : now - s.entryStart)
    this.settle(run, { logs: run.logs, error, stats: { subCalls: run.forwarded, computeMs, wallMs: performance.now() - run.request.started } })
  }

  // ---- messages ----------------------------------------------------------------------------

  private post(message: ToEngine): void {
    if (!this.dead) this.worker.postMessage(message)
  }

  private onMessage(message: FromEngine): void {
    const run = this.active
    if (run === undefined) return
    if (typeof message === 'string') {
      this.onCalls(run, message)
      return
    }
    if (run.runId !== message.runId) return
    switch (message.type) {
      case 'logs':
        run.logs.push(...message.lines)
        return
      case 'done': {
        const output = message.output
        const logs = run.logs.length === 0 ? output.logs : [...run.logs, ...output.logs]
        const stats = { subCalls: run.forwarded, computeMs: output.stats?.computeMs ?? 0, wallMs: performance.now() - run.request.started }
        const error = run.override ?? output.error
        const notes = output.notes === undefined ? {} : { notes: output.notes }
        if (error !== undefined) this.settle(run, { logs, error, stats, ...notes })
        else if (output.value !== undefined) this.settle(run, { value: output.value, logs, stats, ...notes })
        else this.settle(run, { logs, stats, ...notes })
        return
      }
    }
  }

  /** Forwards the sub-calls of a calls message; a message that does not parse ends the run and the worker. */
  private onCalls(run: ActiveRun, text: string): void {
    const { runId, calls, malformed } = parseCallsMessage(text, run.names.length)
    if (runId !== undefined && runId !== run.runId) return
    if (malformed !== undefined) {
      this.kill(run, { kind: 'exception', message: `sandbox internal error: malformed sub-call message (${clip(malformed, MAX_MESSAGE_CHARS)})` })
      return
    }
    for (const call of calls) this.forward(run, call.id, run.names[call.index] as string, call.json)
  }

  private forward(run: ActiveRun, callId: number, name: string, json: string): void {
    if (run.closed) return
    const binding = Object.prototype.hasOwnProperty.call(run.bindings, name) ? run.bindings[name] : undefined
    run.forwarded++
    run.inFlight++
    this.monitor.addHostRunning(1)
    const reply: Promise<HostReply> =
      binding === undefined
        ? Promise.resolve({ rejection: { kind: 'invalid', message: `${accessor(name)} is not a tool of this run` } })
        : callBindingWithJson(binding, name, json, run.request.limits.valueBytes)
    void reply.then((r) => {
      run.inFlight--
      if (this.active !== run) return
      this.monitor.addHostRunning(-1)
      if (run.replies === '') queueMicrotask(() => this.flushReplies(run))
      run.replies += replyFrame(callId, r)
    })
  }

  private flushReplies(run: ActiveRun): void {
    const replies = run.replies
    run.replies = ''
    if (this.active !== run || replies === '' || this.dead) return
    this.replies.postMessage(`${run.runId}:${replies}`)
    this.monitor.wakeEngine()
  }

  private onCrash(error: Error): void {
    const wasDead = this.dead
    this.dead = true
    this.replies.close()
    const run = this.active
    if (run === undefined || wasDead) return
    const oom = (error as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY'
    this.kill(
      run,
      oom
        ? memoryError(run.request.limits.memoryBytes)
        : { kind: 'exception', message: `sandbox internal error: ${clip(error.message, MAX_MESSAGE_CHARS)}` },
    )
  }
}
