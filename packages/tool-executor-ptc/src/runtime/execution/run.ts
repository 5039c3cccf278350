/**
 * One program run inside a QuickJS runtime and context of its own (see `quickjs.ts` for the
 * design): the {@link Execution} class. Owns the context for its whole life: builds it, enters the
 * sandbox for the program and for every batch of settled sub-calls, enforces the limits, settles
 * exactly once, and frees every handle.
 */
import type { JsonValue } from '@deepseek-ai/dsh-tools'
import type { QuickJSHandle } from 'quickjs-emscripten'
import { accessor, clip, type GuestRejection, type HostLink, type HostReply } from '../host-call'
import { parseQueuedCalls } from '../call-queue'
import type { RunError } from '../types'
import { runGuarded, WatchdogTimeout } from '../watchdog'
import type { ExecutionArgs } from './args'
import { TimeBudget } from './budget'
import { buildContext, type RunContext } from './context'
import {
  ABORTED_MESSAGE,
  abortError,
  classify,
  hostFailure,
  MAX_MESSAGE_CHARS,
  memoryError,
  returnedOutput,
  STALLED_MESSAGE,
  wallTimeoutError,
} from './failures'
import { callForString, callForText, callSerialize, callWithId, describeGuest, rejectionHandle } from './guest-calls'
import { noteLines } from '../notes'
import { RunTimers } from './timers'

/**
 * Longest single blocking wait for host replies (ms) when the host link can wait
 * ({@link HostLink.wait}); the engine re-checks its deadline and abort flag between waits.
 */
const MAX_WAIT_MS = 100

/** An entry that runs program code: counted as compute time and guarded by the watchdog. */
const GUEST_ENTRY = { counted: true, guarded: true } as const

/** A settled sub-call waiting to be applied: its id in the guest (the prelude's `deliver` / `refuse`) and its reply. */
type Settlement = HostReply & { readonly id: number }

/** One run: owns a QuickJS runtime and context for its whole life. Call {@link Execution.start} once. */
export class Execution {
  private readonly a: ExecutionArgs
  private readonly host: HostLink
  /** The run's sandbox (`context.ts`), once the first entry built it. */
  private sb: RunContext | undefined
  /** Every handle the run made (the sandbox's included); freed when it ends. */
  private readonly handles: QuickJSHandle[] = []
  private mainPromise: QuickJSHandle | undefined
  private readonly queue: Settlement[] = []
  private readonly logs: string[] = []
  private logBytes = 0
  private failure: RunError | undefined
  private result: { value?: JsonValue } | undefined
  private finished = false
  private poisoned = false
  /** Compute and wall time (`budget.ts`); the wall budget starts with the program (after the context is ready). */
  private readonly budget: TimeBudget
  private inEntry = false
  private wallTimer: ReturnType<typeof setTimeout> | undefined
  private wake: ReturnType<typeof setImmediate> | undefined
  private wakeQueued = false
  /** Inside {@link Execution.awaitReplies}: replies are applied by the waiting loop, not a scheduled wake. */
  private waiting = false
  /** Sub-calls taken from the program (the host's own count against maxSubCalls). */
  private subCalls = 0
  /** Sub-calls handed to the host link (one with `flush` sends them when the entry ends, unless it ended the run). */
  private forwarded = 0
  private inFlight = 0
  /** `growFailures()` of the instance when this run started. */
  private readonly growFailuresAtStart: number
  /** The program's armed timers (`timers.ts`), and the host timer that wakes the run for the next one. */
  private readonly timers = new RunTimers()
  private timerWake: ReturnType<typeof setTimeout> | undefined
  private timerWakeAt = Infinity
  /** When the program started (`performance.now()`): the guest clock's zero (`console.time`). */
  private programStart = 0
  /** Notes on work the program left pending when it ended (`RunOutput.notes`). */
  private notes: string[] | undefined

  constructor(args: ExecutionArgs) {
    this.a = args
    this.host = args.host
    this.budget = new TimeBudget(args.limits.computeMs, args.limits.wallMs)
    this.growFailuresAtStart = args.entry.growFailures()
  }

  /** Lines printed so far (the array is live; the worker forwards new lines after each entry). */
  printed(): readonly string[] {
    return this.logs
  }

  /** Whether the WebAssembly memory refused to grow past its cap during this run. */
  private capReached(): boolean {
    return this.a.entry.growFailures() > this.growFailuresAtStart
  }

  start(): void {
    this.a.input.signal.addEventListener('abort', this.onAbort)
    // Building the runtime, the context and the prelude is ours, not the program's: it has its
    // own entry, counted neither as compute time nor against the wall budget (a cold instance
    // can take a while), and unguarded (no program code runs in it).
    this.enter(() => this.setupContext(), { counted: false, guarded: false })
    this.budget.startWall()
    this.programStart = performance.now()
    this.a.monitor?.setWallDeadline(this.a.limits.wallMs)
    this.enter(() => {
      this.startProgram()
      if (this.failure === undefined) this.drainAndCheck()
    })
    if (!this.finished) {
      this.wallTimer = setTimeout(this.onWallTimeout, Math.min(2_147_483_647, Math.max(1, this.budget.wallDeadline - performance.now())))
    }
    this.awaitReplies()
  }

  // ---- setup -------------------------------------------------------------------------------

  private setupContext(): void {
    const a = this.a
    this.sb = buildContext(
      { entry: a.entry, prelude: a.prelude, code: a.code, names: this.host.names, limits: a.limits, print: (line) => this.hostPrint(line), interrupt: this.interrupt, timer: this.onTimer },
      this.handles,
    )
  }

  private startProgram(): void {
    const { ctx, code } = this.sb as RunContext
    const compiled = ctx.evalCode(code, 'program.js')
    if (compiled.error !== undefined) {
      this.failWith(this.describe(compiled.error))
      compiled.error.dispose()
      return
    }
    const mainFn = this.keep(compiled.value)
    if (ctx.typeof(mainFn) !== 'function') {
      this.fail('exception', 'the program must be the body of a function (unbalanced braces?)')
      return
    }
    const called = ctx.callFunction(mainFn, ctx.undefined)
    if (called.error !== undefined) {
      this.failWith(this.describe(called.error))
      called.error.dispose()
      return
    }
    this.mainPromise = this.keep(called.value)
  }

  private keep(handle: QuickJSHandle): QuickJSHandle {
    this.handles.push(handle)
    return handle
  }

  // ---- entries -----------------------------------------------------------------------------

  /**
   * Runs `fn` inside the sandbox under the watchdog, accounting the time spent in it as compute
   * time (the watchdog's own start-up is not counted); then settles the run if it is due.
   */
  private enter(fn: () => void, mode: { readonly counted: boolean; readonly guarded: boolean } = GUEST_ENTRY): void {
    if (this.finished) return
    const counted = mode.counted
    const budget = this.budget
    const timed = (): void => {
      if (counted) budget.beginEntry()
      fn()
    }
    const monitor = this.a.monitor
    this.inEntry = true
    try {
      monitor?.enter(mode.guarded ? budget.remainingMs() + this.a.graceMs : undefined, counted)
      if (this.a.watchdog && mode.guarded) runGuarded(timed, budget.remainingMs() + this.a.graceMs)
      else timed()
    } catch (error) {
      this.poisoned = true
      if (error instanceof WatchdogTimeout) this.failure ??= budget.stopped(this.running)
      else this.failure ??= this.hostError(error)
    } finally {
      budget.endEntry()
      this.inEntry = false
      monitor?.leave(budget.computeUsed)
    }
    try {
      this.a.afterEntry?.()
    } catch {
      // Forwarding printed lines must not disturb the run.
    }
    // The calls the entry issued go out together, unless the entry ended the run (then never).
    if (this.over()) this.finish()
    else {
      this.host.flush?.()
      this.scheduleTimer()
    }
  }

  /** Whether the run has its outcome (a failure, or the program's result): no sub-call is forwarded from then on. */
  private over(): boolean {
    return this.failure !== undefined || this.result !== undefined
  }

  private readonly interrupt = (): boolean => {
    if (this.failure !== undefined) return true
    if (this.a.monitor?.abortRequested() === true) {
      this.failure = { kind: 'abort', message: ABORTED_MESSAGE }
      return true
    }
    const exceeded = this.budget.exceeded(performance.now(), this.running)
    if (exceeded === undefined) return false
    this.failure = exceeded
    return true
  }

  private drainAndCheck(): void {
    const sb = this.sb
    if (sb === undefined) return
    const { rt, ctx, raw } = sb
    // A successful executePendingJobs(-1) ran every job, including those it queued.
    while (this.failure === undefined && rt.hasPendingJob()) {
      const error = raw !== undefined ? raw.runJobs() : rt.executePendingJobs(-1).error
      if (error === undefined) break
      const text = this.failure === undefined ? this.describe(error) : ''
      error.dispose()
      if (this.failure === undefined) this.failWith(text)
    }
    if (this.failure !== undefined || this.mainPromise === undefined) return
    // The program still running is the common case: asked through the C interface when it is there.
    const state = raw?.isPending(this.mainPromise) === true ? undefined : ctx.getPromiseState(this.mainPromise)
    if (state === undefined || state.type === 'pending') {
      // The calls the program queued in this entry (those of an entry that ended it are dropped).
      this.takeCalls()
      // Nothing in the engine can run again unless a host call settles or a timer fires: with no
      // call in flight or waiting to be applied and no timer armed, the program can never
      // progress (it awaits a promise that nothing will ever settle). End it now instead of at
      // the wall limit.
      if (this.failure === undefined && this.inFlight === 0 && this.queue.length === 0 && this.timers.size === 0) this.fail('timeout', STALLED_MESSAGE)
      return
    }
    // The program ended (returned or threw): what it left pending is cancelled, and named.
    this.collectNotes()
    if (state.type === 'rejected') {
      const text = this.describe(state.error)
      state.error.dispose()
      if (this.failure === undefined) this.failWith(text)
      return
    }
    const valueHandle = state.value
    try {
      const unhandled = this.unhandledRejection()
      if (unhandled !== undefined) this.failWith(unhandled)
      else this.collect(valueHandle)
    } finally {
      valueHandle.dispose()
    }
  }

  /** The notes on the sub-calls and timers the program left pending (the prelude's `pendingWork`). */
  private collectNotes(): void {
    const sb = this.sb
    if (sb === undefined) return
    const found = callForText(sb.ctx, undefined, sb.pendingWorkFn)
    if ('error' in found) {
      found.error.dispose()
      return
    }
    if (found.text !== 'undefined' && found.text !== '') this.notes = noteLines(found.text.split('\n'))
  }

  // ---- timers (prelude-timers.ts, timers.ts) -------------------------------------------------

  /** The prelude's `hostTimer(op, id, ms)`: arm (1), disarm (2), or read the run's clock (3, ms since the program started). */
  private readonly onTimer = (op: number, id: number, ms: number): number | undefined => {
    const now = performance.now()
    if (op === 3) return now - this.programStart
    if (this.finished) return undefined
    if (op === 1) this.timers.set(id, ms, now)
    else if (op === 2) this.timers.clear(id)
    return undefined
  }

  /** Sets the host timer that wakes the run for its next due timer (after each entry). */
  private scheduleTimer(): void {
    const next = this.timers.next()
    if (next === undefined || this.finished || this.over()) {
      this.cancelTimerWake()
      return
    }
    if (this.timerWake !== undefined && this.timerWakeAt <= next.due) return
    this.cancelTimerWake()
    this.timerWakeAt = next.due
    this.timerWake = setTimeout(this.onTimerWake, Math.max(0, Math.ceil(next.due - performance.now())))
  }

  private cancelTimerWake(): void {
    if (this.timerWake !== undefined) clearTimeout(this.timerWake)
    this.timerWake = undefined
    this.timerWakeAt = Infinity
  }

  private readonly onTimerWake = (): void => {
    this.timerWake = undefined
    this.timerWakeAt = Infinity
    if (this.finished) return
    this.fireTimers()
    this.awaitReplies()
  }

  /**
   * One entry: fires every timer due now, in due order, running the jobs that follow each (as
   * Node runs microtasks between timer callbacks). A callback's throw fails the run as an
   * uncaught exception. Nothing due (a host timer that woke early): only the next wake is set.
   */
  private fireTimers(): void {
    const next = this.timers.next()
    if (next === undefined || next.due > performance.now()) {
      this.scheduleTimer()
      return
    }
    this.enter(() => {
      const sb = this.sb as RunContext
      for (;;) {
        if (this.over()) return
        const id = this.timers.takeDue(performance.now())
        if (id === undefined) return
        const error = callWithId(sb.ctx, sb.fireFn, id, sb.ctx.undefined)
        if (error !== undefined) {
          const description = this.failure === undefined ? this.describe(error) : ''
          error.dispose()
          if (this.failure === undefined) this.failWith(description.startsWith('Uncaught ') ? description : `Uncaught ${description}`)
          return
        }
        this.drainAndCheck()
      }
    })
  }

  /**
   * The description of the first promise rejection the program left unhandled (the prelude
   * tracks them; the main promise itself is excluded), `undefined` when there is none.
   */
  private unhandledRejection(): string | undefined {
    const sb = this.sb
    if (sb === undefined || this.mainPromise === undefined) return undefined
    const found = callForString(sb.ctx, sb.unhandledFn, this.mainPromise)
    if (!('error' in found)) return found.text
    const text = this.failure === undefined ? this.describe(found.error) : ''
    found.error.dispose()
    return this.failure === undefined ? text : undefined
  }

  /** Serializes the program's return value and checks the output budget (`returnedOutput`). */
  private collect(valueHandle: QuickJSHandle): void {
    const sb = this.sb
    if (sb === undefined) return
    const serialized = callSerialize(sb.ctx, sb.serializeFn, valueHandle)
    if ('error' in serialized) {
      const text = this.failure === undefined ? this.describe(serialized.error) : ''
      serialized.error.dispose()
      if (this.failure !== undefined) return
      const error = classify(text, this.a.limits.memoryBytes, this.capReached())
      this.failure = error.kind === 'memory' ? error : { kind: 'invalid-output', message: text.replace(/^TypeError: /, '') }
      return
    }
    const output = returnedOutput(serialized.json, serialized.chars, this.logs.length, this.logBytes, this.a.limits.outputBytes)
    if ('kind' in output) this.fail(output.kind, output.message)
    else this.result = output
  }

  // ---- host functions (called from inside an entry) ----------------------------------------

  private hostPrint(lineHandle: QuickJSHandle): void {
    if (this.failure !== undefined || this.sb === undefined) return
    const line = this.sb.ctx.getString(lineHandle)
    const bytes = Buffer.byteLength(line)
    const next = this.logBytes + bytes + (this.logs.length > 0 ? 1 : 0)
    if (next > this.a.limits.outputBytes) {
      this.fail('output-limit', `output limit of ${this.a.limits.outputBytes} bytes exceeded by printed lines`)
      return
    }
    this.logs.push(line)
    this.logBytes = next
  }

  /** After the jobs of an entry that left the program running: takes the sub-calls it queued (`afterJobs`), in order. */
  private takeCalls(): void {
    const sb = this.sb as RunContext
    const taken = callForText(sb.ctx, sb.raw, sb.afterJobsFn)
    if ('error' in taken) {
      this.failWith(this.describe(taken.error))
      taken.error.dispose()
      return
    }
    // `undefined` when nothing was queued, read as the text `undefined` (no typeof call: a queue
    // text always begins with a call id, so it is never that word). The text is '' when QuickJS
    // cannot allocate its UTF-8 copy (its heap is at the limit): the calls would be lost and the
    // program reported as stalled.
    const text = taken.text
    if (text === 'undefined') return
    if (text === '') {
      this.failure ??= memoryError(this.a.limits.memoryBytes)
      return
    }
    // The prelude's JSON.stringify escapes lone surrogates, so the text keeps its UTF-16 length
    // through getString's UTF-8 and the frames' lengths hold.
    const { calls, malformed } = parseQueuedCalls(text, this.host.names.length)
    for (const call of calls) this.accept(call.id, call.index, call.json)
    if (malformed !== undefined) this.fail('exception', `sandbox internal error: malformed sub-call queue (${malformed})`)
  }

  /**
   * A sub-call the program queued: forwarded when the entry ends (a host link with `flush`, the
   * engine in a worker) or from a microtask (in-process bindings), outside the sandbox entry and
   * only if the run is still open. The prelude refused calls over `valueBytes` in characters and
   * over `maxSubCalls`; the host checks the UTF-8 size (only here) and the count again (a call
   * over them is refused, not forwarded).
   */
  private accept(id: number, index: number, json: string): void {
    this.inFlight++
    // parseQueuedCalls keeps `index` below names.length, and every name is one of the run's tools.
    const name = this.host.names[index] as string
    const bytes = Buffer.byteLength(json)
    if (bytes > this.a.limits.valueBytes) {
      this.onHostSettled(id, {
        rejection: { kind: 'limit', message: `the argument of ${accessor(name)} is ${bytes} bytes, over the valueBytes limit of ${this.a.limits.valueBytes} bytes` },
      })
      return
    }
    if (this.subCalls >= this.a.limits.maxSubCalls) {
      this.onHostSettled(id, {
        rejection: { kind: 'limit', message: `sub-call limit reached: a run may make at most ${this.a.limits.maxSubCalls} tool calls (${accessor(name)} was not called)` },
      })
      return
    }
    this.subCalls++
    // A link with `flush` only buffers the call until the entry ends (see enter).
    if (this.host.flush !== undefined) this.invoke(index, json, id)
    else queueMicrotask(() => this.invoke(index, json, id))
  }

  private invoke(index: number, json: string, id: number): void {
    if (this.finished || this.over()) {
      this.inFlight--
      return
    }
    this.forwarded++
    this.host.call(index, json, (reply) => this.onHostSettled(id, reply))
  }

  private onHostSettled(id: number, reply: HostReply): void {
    this.inFlight--
    if (this.finished) return
    this.queue.push({ ...reply, id })
    if (this.waiting) return
    if (this.a.wake !== 'microtask') {
      this.wake ??= setImmediate(this.onWake)
    } else if (!this.wakeQueued) {
      this.wakeQueued = true
      queueMicrotask(this.onWake)
    }
  }

  private readonly onWake = (): void => {
    this.wake = undefined
    this.wakeQueued = false
    if (this.finished) return
    this.applyReplies()
    this.awaitReplies()
  }

  /**
   * With a host link that can wait ({@link HostLink.wait}: the engine in a worker thread, whose
   * event loop has nothing else to do during a run): while the program waits on nothing but host
   * replies, blocks the thread for them and applies them at once, instead of returning to the
   * event loop and waking on a message. Each wait is bounded by the wall deadline and
   * {@link MAX_WAIT_MS}; an abort raised by the host wakes it and ends the run as `abort`.
   */
  private awaitReplies(): void {
    const host = this.host
    if (host.wait === undefined) return
    while (!this.finished && this.failure === undefined && this.queue.length === 0 && this.inFlight > 0) {
      const now = performance.now()
      const left = this.budget.wallDeadline - now
      if (left <= 0) {
        this.failure ??= this.wallTimeout()
        this.finish()
        return
      }
      // A timer due before the next reply fires from here: this thread's own timers do not run while it waits.
      const timer = this.timers.next()
      const untilTimer = timer === undefined ? Infinity : Math.max(0, timer.due - now)
      if (untilTimer > 0) {
        this.waiting = true
        try {
          host.wait(Math.min(left, MAX_WAIT_MS, untilTimer))
        } finally {
          this.waiting = false
        }
      }
      if (this.a.monitor?.abortRequested() === true) {
        this.failure ??= { kind: 'abort', message: ABORTED_MESSAGE }
        this.finish()
        return
      }
      if (this.queue.length > 0) this.applyReplies()
      else if (timer !== undefined && timer.due <= performance.now()) this.fireTimers()
    }
  }

  /** One entry: settles the guest promises of the settled sub-calls (`deliver` / `refuse`), then runs the jobs that follow. */
  private applyReplies(): void {
    this.enter(() => {
      for (const item of this.queue.splice(0)) {
        if (this.failure !== undefined) break
        const error = 'text' in item ? this.deliver(item.id, item.text) : this.refuse(item.id, item.rejection)
        if (error !== undefined) {
          const description = this.failure === undefined ? this.describe(error) : ''
          error.dispose()
          if (this.failure === undefined) this.failWith(description)
        }
      }
      if (this.failure === undefined) this.drainAndCheck()
    })
  }

  /** `api.deliver(id, text)` in the sandbox; the exception it threw, if any. */
  private deliver(id: number, text: string): QuickJSHandle | undefined {
    const sb = this.sb as RunContext
    if (sb.raw !== undefined) return sb.raw.callIdText(sb.deliverFn, id, text)
    return callWithId(sb.ctx, sb.deliverFn, id, sb.ctx.newString(text))
  }

  /** `api.refuse(id, rejection)` in the sandbox; the exception it threw, if any. */
  private refuse(id: number, rejection: GuestRejection): QuickJSHandle | undefined {
    const sb = this.sb as RunContext
    return callWithId(sb.ctx, sb.refuseFn, id, rejectionHandle(sb.ctx, rejection))
  }

  // ---- failures ----------------------------------------------------------------------------

  /** Describes a thrown guest value with the prelude (one line, truncated). */
  private describe(errorHandle: QuickJSHandle): string {
    return this.sb === undefined ? 'Uncaught exception' : describeGuest(this.sb.ctx, this.sb.describeFn, errorHandle)
  }

  private fail(kind: RunError['kind'], message: string): void {
    this.failure ??= { kind, message }
  }

  private failWith(description: string): void {
    this.failure ??= classify(description, this.a.limits.memoryBytes, this.capReached())
  }

  /**
   * Host calls not yet settled, for a wall-timeout message: in a worker, "running" means the host
   * function has not settled on the main thread (a call or reply still in transit is not
   * running); in-process the two counts are the same. (A program waiting on nothing that can
   * settle never times out: it is stopped at once, see STALLED_MESSAGE.)
   */
  private readonly running = (): number => (this.a.monitor === undefined ? this.inFlight : this.a.monitor.hostRunning())

  private wallTimeout(): RunError {
    return wallTimeoutError(this.a.limits.wallMs, this.running())
  }

  private hostError(error: unknown): RunError {
    return hostFailure(error, this.capReached(), this.a.limits.memoryBytes)
  }

  private readonly onWallTimeout = (): void => {
    this.wallTimer = undefined
    if (this.finished) return
    this.failure ??= this.wallTimeout()
    if (!this.inEntry) this.finish()
  }

  /**
   * Ends the run as `exception` with `sandbox internal error: <message>` (the host link received
   * something it cannot read); settles at once unless an entry is running (then when it ends).
   */
  failInternal(message: string): void {
    if (this.finished) return
    this.failure ??= { kind: 'exception', message: `sandbox internal error: ${clip(message, MAX_MESSAGE_CHARS)}` }
    if (!this.inEntry) this.finish()
  }

  private readonly onAbort = (): void => {
    if (this.finished) return
    this.failure ??= abortError(this.a.input.signal)
    if (!this.inEntry) this.finish()
  }

  // ---- settlement --------------------------------------------------------------------------

  private finish(): void {
    if (this.finished) return
    this.finished = true
    if (this.wallTimer !== undefined) clearTimeout(this.wallTimer)
    if (this.wake !== undefined) clearImmediate(this.wake)
    this.cancelTimerWake()
    this.timers.clearAll()
    this.wallTimer = undefined
    this.wake = undefined
    this.a.input.signal.removeEventListener('abort', this.onAbort)
    this.a.monitor?.leave(this.budget.computeUsed)
    try {
      this.a.input.onSettle?.()
    } catch {
      // The settle hook must not disturb the run's result.
    }
    const oom = this.failure?.kind === 'memory'
    const disposed = this.dispose()
    const { pool, prelude } = this.a
    pool.release(this.a.entry, disposed && !oom)
    const stats = { subCalls: this.forwarded, computeMs: this.budget.computeUsed, wallMs: performance.now() - this.a.started }
    const logs = this.logs
    const notes = this.notes === undefined ? {} : { notes: this.notes }
    if (this.failure !== undefined) this.a.resolve({ logs, error: this.failure, stats, ...notes })
    else if (this.result?.value !== undefined) this.a.resolve({ value: this.result.value, logs, stats, ...notes })
    else this.a.resolve({ logs, stats, ...notes })
    // The result is delivered first: preparing the next run's context is not the caller's wait.
    if (this.a.prepareNext === 'now') pool.prepareIdle(prelude)
    else setImmediate(() => pool.prepareIdle(prelude)).unref()
  }

  /** Frees every handle, the context and the runtime. `false` when the instance must not be reused. */
  private dispose(): boolean {
    if (this.poisoned) return false
    try {
      this.queue.length = 0
      for (const handle of this.handles) if (handle.alive) handle.dispose()
      this.handles.length = 0
      const sb = this.sb
      this.sb = undefined
      sb?.raw?.dispose()
      sb?.ctx.dispose()
      sb?.rt.dispose()
      return true
    } catch {
      return false
    }
  }
}
