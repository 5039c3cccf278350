/**
 * A scriptable fake code runtime for PTC tests (docs/design.md, "PTC executor" and "Testkit").
 *
 * The types below are structurally identical to `CodeRuntime` of
 * `@deepseek-ai/dsh-tool-executor-ptc` (the testkit does not depend on that package): pass a
 * {@link FakeCodeRuntime} wherever the PTC executor accepts a runtime. Instead of executing
 * the program text, the fake plays a script of steps — log a line, call a binding, await the
 * calls, return a value, throw, fail with a given kind, or hang until aborted — and records
 * every run and every binding call, so executor tests can drive sub-calls deterministically.
 */
import type { JsonValue } from '@deepseek-ai/dsh-tools'

/** How a code run failed (the run failure kinds of docs/design.md, "PTC executor"). */
export type FakeCodeRunErrorKind = 'exception' | 'timeout' | 'abort' | 'memory' | 'output-limit' | 'invalid-output'

/** A run failure: the kind and a message (the model sees `Error: code run failed (<kind>): <message>`). */
export interface FakeCodeRunError {
  readonly kind: FakeCodeRunErrorKind
  readonly message: string
}

/** What one run consumed (the fake reports its sub-calls, zero compute and the elapsed wall time). */
export interface FakeCodeRunStats {
  readonly subCalls: number
  /** ms */
  readonly computeMs: number
  /** ms */
  readonly wallMs: number
}

/** What a run returns: the value (when the program returned one), the printed lines, and the failure if any. Never rejects. */
export interface FakeCodeRunResult {
  readonly value?: JsonValue
  readonly logs: readonly string[]
  readonly error?: FakeCodeRunError
  readonly stats?: FakeCodeRunStats
}

/**
 * A host function the program may call (an SDK function). It receives the arguments the
 * program passed and resolves with the sub-call's canonical value, or rejects (a tool failure
 * surfaces as a `ToolCallError` in the program).
 */
export type FakeCodeBinding = (args: JsonValue) => Promise<JsonValue>

/** The limits a run is given (the fake records them and enforces `maxSubCalls` only). */
export interface FakeCodeRunLimits {
  /** ms */
  readonly computeMs: number
  /** ms */
  readonly wallMs: number
  /** bytes */
  readonly memoryBytes: number
  /** bytes */
  readonly outputBytes: number
  /** bytes */
  readonly valueBytes: number
  /** Sub-calls a run may issue; the next one rejects with a `RangeError` inside the script. */
  readonly maxSubCalls: number
  /** bytes */
  readonly stackBytes?: number
}

/** Input of {@link FakeCodeRuntime.run}. */
export interface FakeCodeRunInput {
  /** The program text (recorded, not executed). */
  readonly program: string
  /** SDK functions by name. */
  readonly bindings: Readonly<Record<string, FakeCodeBinding>>
  /** Aborted when the run must stop (caller abort or the executor's deadline). */
  readonly signal: AbortSignal
  readonly limits: FakeCodeRunLimits
  /**
   * Called once, synchronously, when the run settles and before `run` resolves; from then on
   * no further binding call is forwarded (a late step's call rejects inside the script).
   */
  readonly onSettle?: () => void
}

/** The runtime seam, structurally identical to the PTC package's `CodeRuntime`. */
export interface CodeRuntimeLike {
  /** e.g. `javascript`, `python`. */
  readonly language: string
  /** e.g. `wasm`, `process`, `none`. */
  readonly isolation: string
  run(input: FakeCodeRunInput): Promise<FakeCodeRunResult>
}

/** The state a `return` function sees. */
export interface FakeRunState {
  /** Settled sub-calls so far, in the order they were issued. */
  readonly calls: readonly FakeCallRecord[]
  /** Lines logged so far. */
  readonly logs: readonly string[]
  /** The run's input. */
  readonly input: FakeCodeRunInput
}

/** One binding call the script made. */
export interface FakeCallRecord {
  readonly name: string
  readonly args: JsonValue
  /** `pending` until it settles. */
  readonly status: 'pending' | 'fulfilled' | 'rejected'
  readonly value?: JsonValue
  /** The rejection's message (`Error` → its message, anything else → `String(x)`). */
  readonly error?: string
}

/**
 * One scripted step:
 *
 * - `{ log: 'line' }` — print a line.
 * - `{ call: 'name', args?, await? }` — call a binding with `args` (default `{}`); with
 *   `await: true` wait for it (a rejection fails the run as `exception`, like an uncaught
 *   `await`), otherwise leave it in flight.
 * - `{ awaitAll: 'all' }` — `await Promise.all(inFlight)`: the first rejection fails the run as
 *   `exception`; `{ awaitAll: 'settled' }` — `Promise.allSettled` (never fails).
 * - `{ return: value }` or `{ return: (state) => value }` — end the run with a value.
 * - `{ throw: 'message' }` — end the run as an `exception` with that message.
 * - `{ fail: { kind, message } }` — end the run with any failure kind (timeout, memory, …).
 * - `{ hang: true }` — wait until the run's signal aborts (then the run ends as `abort`).
 * - `{ yield: n }` — let `n` turns of the event loop pass (lets other work interleave).
 *
 * @example [{ call: 'search', args: { q: 'x' }, await: true }, { return: (s) => s.calls[0]!.value ?? null }]
 *
 * A script that runs out of steps ends with no value. An abort of the run's signal ends the
 * run as `abort` at once, whatever step it waits on, as the real runtime does (in-flight calls
 * are left to the executor, which `onSettle` tells to abort and drain them). A call past
 * `limits.maxSubCalls` rejects with a `RangeError` (uncaught → `exception`), as in the real
 * runtime. The fake never rejects.
 */
export type FakeStep =
  | { readonly log: string }
  | { readonly call: string; readonly args?: JsonValue; readonly await?: boolean }
  | { readonly awaitAll: 'all' | 'settled' }
  | { readonly return: JsonValue | ((state: FakeRunState) => JsonValue) }
  | { readonly throw: string }
  | { readonly fail: FakeCodeRunError }
  | { readonly hang: true }
  | { readonly yield: number }

/**
 * A script: a fixed list of steps, or a function of the run's input.
 *
 * @example runtime.enqueue((input) => [{ log: `got ${input.program.length} chars` }, { return: null }])
 */
export type FakeScript = readonly FakeStep[] | ((input: FakeCodeRunInput) => readonly FakeStep[])

/** What the fake recorded about one run. */
export interface FakeRunRecord {
  readonly program: string
  /** The binding names the run was given, sorted. */
  readonly bindingNames: readonly string[]
  readonly limits: FakeCodeRunLimits
  readonly calls: FakeCallRecord[]
  /** The outcome, once the run ended. */
  result?: FakeCodeRunResult
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message
  if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') return (error as { message: string }).message
  return String(error)
}

class Aborted extends Error {}

/**
 * A {@link CodeRuntimeLike} that plays scripts.
 *
 * Scripts are taken from the queue filled by {@link FakeCodeRuntime.enqueue} (one per run);
 * when the queue is empty, the `fallback` script given to the constructor is used (default:
 * no steps → no value).
 *
 * @example
 * const runtime = new FakeCodeRuntime()
 * runtime.enqueue([
 *   { log: 'fetching' },
 *   { call: 'echo', args: { text: 'a' } },
 *   { call: 'echo', args: { text: 'b' } },
 *   { awaitAll: 'all' },
 *   { return: (s) => s.calls.map((c) => c.value ?? null) },
 * ])
 * const out = await runtime.run({ program: '…', bindings: { echo: async (a) => a }, signal, limits })
 * // out → { value: [{ text: 'a' }, { text: 'b' }], logs: ['fetching'], stats: { subCalls: 2, … } }
 * // or mount it: createPtcExecutor({ runtime })
 */
export class FakeCodeRuntime implements CodeRuntimeLike {
  readonly language: string
  readonly isolation: string
  /** Every run, in order. */
  readonly runs: FakeRunRecord[] = []
  private readonly queue: FakeScript[] = []
  private readonly fallback: FakeScript

  constructor(options: { language?: string; isolation?: string; fallback?: FakeScript } = {}) {
    this.language = options.language ?? 'javascript'
    this.isolation = options.isolation ?? 'none'
    this.fallback = options.fallback ?? []
  }

  /** Queues scripts for the next runs, one script per run. Returns `this`. */
  enqueue(...scripts: FakeScript[]): this {
    this.queue.push(...scripts)
    return this
  }

  /** Scripts queued and not yet used. */
  get queued(): number {
    return this.queue.length
  }

  async run(input: FakeCodeRunInput): Promise<FakeCodeRunResult> {
    const script = this.queue.shift() ?? this.fallback
    const steps = typeof script === 'function' ? script(input) : script
    const record: FakeRunRecord = { program: input.program, bindingNames: Object.keys(input.bindings).sort(), limits: { ...input.limits }, calls: [] }
    this.runs.push(record)
    const started = performance.now()
    const logs: string[] = []
    const inFlight: Promise<void>[] = []
    let settled = false
    const state = (): FakeRunState => ({ calls: record.calls.filter((c) => c.status !== 'pending'), logs: [...logs], input })
    const end = (outcome: Omit<FakeCodeRunResult, 'stats'>): FakeCodeRunResult => {
      settled = true
      try {
        input.onSettle?.()
      } catch {
        // As the real runtime: a throwing onSettle is ignored.
      }
      const result: FakeCodeRunResult = { ...outcome, logs: [...outcome.logs], stats: { subCalls: record.calls.length, computeMs: 0, wallMs: performance.now() - started } }
      record.result = result
      return result
    }
    const issue = (name: string, args: JsonValue): Promise<void> => {
      const index = record.calls.length
      const max = input.limits.maxSubCalls
      if (settled) return Promise.reject(new Error(`the run already settled; ${name} was not called`))
      if (index >= max) return Promise.reject(new RangeError(`sub-call limit reached (${max})`))
      record.calls.push({ name, args, status: 'pending' })
      const binding = input.bindings[name]
      const call = binding === undefined ? Promise.reject(new TypeError(`tools.${name} is not a function`)) : Promise.resolve().then(() => binding(args))
      return call.then(
        (value) => {
          record.calls[index] = { name, args, status: 'fulfilled', value }
        },
        (error: unknown) => {
          record.calls[index] = { name, args, status: 'rejected', error: messageOf(error) }
          throw error
        },
      )
    }
    // The run settles as `abort` the moment the signal aborts, whatever it is waiting for (as the
    // real runtime does); the listener is removed when the run settles.
    let onAbort: (() => void) | undefined
    const aborted = new Promise<never>((_resolve, reject) => {
      onAbort = () => reject(new Aborted())
    })
    aborted.catch(() => undefined)
    if (input.signal.aborted) onAbort!()
    else input.signal.addEventListener('abort', onAbort!, { once: true })
    const waitFor = <T>(p: Promise<T>): Promise<T> => Promise.race([p, aborted])
    const abortResult = (): FakeCodeRunResult => end({ logs, error: { kind: 'abort', message: messageOf(input.signal.reason ?? 'aborted') } })

    try {
      for (const step of steps) {
        if (input.signal.aborted) return abortResult()
        if ('log' in step) logs.push(step.log)
        else if ('call' in step) {
          const p = issue(step.call, step.args ?? {})
          p.catch(() => undefined)
          if (step.await === true) await waitFor(p)
          else inFlight.push(p)
        } else if ('awaitAll' in step) {
          const batch = inFlight.splice(0)
          if (step.awaitAll === 'settled') await waitFor(Promise.allSettled(batch))
          else await waitFor(Promise.all(batch))
        } else if ('return' in step) {
          const value = typeof step.return === 'function' ? step.return(state()) : step.return
          return end({ value, logs })
        } else if ('throw' in step) return end({ logs, error: { kind: 'exception', message: step.throw } })
        else if ('fail' in step) return end({ logs, error: { kind: step.fail.kind, message: step.fail.message } })
        else if ('hang' in step) await aborted
        else if ('yield' in step) for (let i = 0; i < step.yield; i++) await waitFor(new Promise<void>((resolve) => setImmediate(resolve)))
      }
      if (input.signal.aborted) return abortResult()
      return end({ logs })
    } catch (error) {
      if (error instanceof Aborted || input.signal.aborted) return abortResult()
      return end({ logs, error: { kind: 'exception', message: messageOf(error) } })
    } finally {
      input.signal.removeEventListener('abort', onAbort!)
    }
  }
}
