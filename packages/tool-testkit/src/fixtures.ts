/**
 * Tool fixtures for tests and benchmarks (docs/design.md, "Testkit"). Every fixture is a real
 * `defineTool` definition that honours the pipeline contracts (it observes `exec.signal`
 * unless its point is not to).
 */
import { defineTool, type JsonValue, type ToolExecution } from '@deepseek-ai/dsh-tools'

/**
 * Resolves after `ms`, or rejects with the signal's reason when it aborts first. The timer is always cleared.
 *
 * @example await sleep(20, exec.signal) // inside a body: cancellable wait
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const onAbort = (): void => {
      clearTimeout(timer)
      reject(signal!.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/**
 * `echo({ text? , value? })` → returns its arguments object unchanged; parallel-safe.
 *
 * @example ctx.tools.register(echoTool())
 */
export function echoTool(options: { name?: string; parallel?: boolean } = {}) {
  return defineTool({
    name: options.name ?? 'echo',
    description: 'Echo the arguments back.',
    parameters: { text: { type: 'string' }, value: { type: 'json' } },
    output: { schema: { type: 'json' }, render: (_args, value) => [{ type: 'text', text: JSON.stringify(value) }] },
    isConcurrencySafe: () => options.parallel ?? true,
    execute: (args) => args as JsonValue,
  })
}

/**
 * Records live and peak concurrency and the start/end order of gated bodies, and holds each
 * body until the test releases it (or its signal aborts, which releases it with an abort).
 *
 * @example
 * const gate = new Gate()
 * h.ctx.tools.register(gatedTool(gate))
 * const pending = h.execute([call('gated', {}, 'a'), call('gated', {}, 'b')])
 * await gate.started(2)          // both bodies are running
 * gate.release('b'); gate.release('a', 'fail')
 * await pending                  // gate.ends → ['b', 'a'], gate.peak → 2
 */
export class Gate {
  /** Bodies running now. */
  live = 0
  /** Highest `live` seen. */
  peak = 0
  /** Call ids in the order bodies started. */
  readonly starts: string[] = []
  /** Call ids in the order bodies ended (released, aborted or failed). */
  readonly ends: string[] = []
  /** Call ids whose body ended through its abort signal. */
  readonly aborted: string[] = []
  private readonly held = new Map<string, (outcome: 'ok' | 'fail') => void>()
  private readonly startWaiters: { n: number; resolve: () => void }[] = []

  /** @internal Called by the gated body. */
  enter(callId: string, signal: AbortSignal): Promise<'ok' | 'fail'> {
    this.live++
    this.peak = Math.max(this.peak, this.live)
    this.starts.push(callId)
    for (const w of [...this.startWaiters]) {
      if (this.starts.length >= w.n) {
        this.startWaiters.splice(this.startWaiters.indexOf(w), 1)
        w.resolve()
      }
    }
    return new Promise<'ok' | 'fail'>((resolve, reject) => {
      const finish = (): void => {
        this.held.delete(callId)
        this.live--
        this.ends.push(callId)
        signal.removeEventListener('abort', onAbort)
      }
      const onAbort = (): void => {
        finish()
        this.aborted.push(callId)
        reject(signal.reason)
      }
      if (signal.aborted) return onAbort()
      signal.addEventListener('abort', onAbort, { once: true })
      this.held.set(callId, (outcome) => {
        finish()
        resolve(outcome)
      })
    })
  }

  /** Call ids currently held, in start order. */
  get waiting(): string[] {
    return [...this.held.keys()]
  }

  /** Releases one held body (it returns normally, or throws with `fail`). Returns whether it was held. */
  release(callId: string, outcome: 'ok' | 'fail' = 'ok'): boolean {
    const release = this.held.get(callId)
    release?.(outcome)
    return release !== undefined
  }

  /** Releases every held body. Returns how many. */
  releaseAll(): number {
    const ids = this.waiting
    for (const id of ids) this.release(id)
    return ids.length
  }

  /** Resolves once at least `n` bodies have started in total. */
  started(n: number): Promise<void> {
    if (this.starts.length >= n) return Promise.resolve()
    return new Promise((resolve) => this.startWaiters.push({ n, resolve }))
  }
}

/**
 * A tool whose body blocks on a {@link Gate}. `gated({ id })` returns `{ id }` once released;
 * a `fail` release throws `Error('gated <id> failed')`. Parallel-safe unless `parallel: false`
 * (or the call passes `exclusive: true`).
 *
 * @example h.ctx.tools.register(gatedTool(gate, { name: 'gated_x', parallel: false }))
 */
export function gatedTool(gate: Gate, options: { name?: string; parallel?: boolean } = {}) {
  return defineTool({
    name: options.name ?? 'gated',
    description: 'Blocks until the test releases it.',
    parameters: { id: { type: 'string' }, exclusive: { type: 'boolean' } },
    output: { schema: { type: 'object', properties: { id: { type: 'string', required: true } } }, render: (_a, v) => [{ type: 'text', text: `done ${v.id}` }] },
    isConcurrencySafe: (args) => args.exclusive !== true && (options.parallel ?? true),
    async execute(args, exec) {
      const id = args.id ?? exec.callId
      const outcome = await gate.enter(exec.callId, exec.signal)
      if (outcome === 'fail') throw new Error(`gated ${id} failed`)
      return { id }
    },
  })
}

/**
 * `slow({ ms })` sleeps `ms` (default `defaultMs`) observing its signal, then returns `slept <ms>ms`.
 *
 * @example h.ctx.tools.register(slowTool({ defaultMs: 1_000 })) // with a ManualClock: clock.settle(h.execute(...))
 */
export function slowTool(options: { name?: string; defaultMs?: number; parallel?: boolean } = {}) {
  return defineTool({
    name: options.name ?? 'slow',
    description: 'Sleeps, then answers.',
    parameters: { ms: { type: 'integer', minimum: 0 } },
    output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
    isConcurrencySafe: () => options.parallel ?? true,
    async execute(args, exec) {
      const ms = args.ms ?? options.defaultMs ?? 20
      await sleep(ms, exec.signal)
      return `slept ${ms}ms`
    },
  })
}

/**
 * `fail({ message? })` throws `new Error(message)` (default `boom`): `TOOL_FAILED`, the model sees `Error: boom`.
 *
 * @example h.ctx.tools.register(failingTool({ message: 'disk full' }))
 */
export function failingTool(options: { name?: string; message?: string; parallel?: boolean } = {}) {
  return defineTool({
    name: options.name ?? 'fail',
    description: 'Always throws an Error.',
    parameters: { message: { type: 'string' } },
    output: { schema: { type: 'null' }, render: () => [] },
    isConcurrencySafe: () => options.parallel ?? true,
    execute(args): null {
      throw new Error(args.message ?? options.message ?? 'boom')
    },
  })
}

/**
 * A tool whose body throws `make()` — any value, Error or not (bug case B17).
 *
 * @example h.ctx.tools.register(throwingTool(() => undefined, { name: 'throws_undefined' })) // Error: threw undefined
 */
export function throwingTool(make: (exec: ToolExecution) => unknown, options: { name?: string } = {}) {
  return defineTool({
    name: options.name ?? 'throws',
    description: 'Throws a prepared value.',
    parameters: {},
    output: { schema: { type: 'null' }, render: () => [] },
    execute(_args, exec): null {
      throw make(exec)
    },
  })
}

/**
 * A body that ignores its signal: sleeps `ms` regardless, records when it really ended.
 *
 * @example
 * const { tool, finished } = signalIgnoringTool({ ms: 15 })
 * h.ctx.tools.register(tool) // after an abort the batch still waits; finished lists the call ids
 */
export function signalIgnoringTool(options: { name?: string; ms?: number; parallel?: boolean } = {}) {
  const finished: string[] = []
  const tool = defineTool({
    name: options.name ?? 'stubborn',
    description: 'Ignores cancellation.',
    parameters: { ms: { type: 'integer', minimum: 0 } },
    output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
    isConcurrencySafe: () => options.parallel ?? true,
    async execute(args, exec) {
      await sleep(args.ms ?? options.ms ?? 20)
      finished.push(exec.callId)
      return 'finished anyway'
    },
  })
  return { tool, finished }
}

/**
 * `hang()` waits until its signal aborts, then rejects with the signal's reason: the
 * cooperative victim of a timeout or a caller abort (no timer of its own, so it works with
 * any clock). Parallel-safe unless `parallel: false`.
 *
 * @example
 * h.ctx.tools.register(hangTool({ timeoutMs: 50 }))   // with TimeoutPolicy: TOOL_TIMEOUT
 */
export function hangTool(options: { name?: string; parallel?: boolean; timeoutMs?: number } = {}) {
  return defineTool({
    name: options.name ?? 'hang',
    description: 'Waits until cancelled.',
    parameters: {},
    output: { schema: { type: 'null' }, render: () => [] },
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    isConcurrencySafe: () => options.parallel ?? true,
    execute: (_args, exec): Promise<null> =>
      new Promise<null>((_resolve, reject) => {
        const signal = exec.signal
        if (signal.aborted) return reject(signal.reason)
        signal.addEventListener('abort', () => reject(signal.reason), { once: true })
      }),
  })
}

/**
 * `badOutput({ kind? })` returns a JSON value that violates its declared output schema
 * (`{ count: integer }`): `kind: 'type'` (default) returns `{ count: 'three' }`, `'missing'`
 * returns `{}`. The call fails as `INVALID_TOOL_OUTPUT` naming the pointer (`/count`).
 *
 * @example await h.execute([call('badOutput', { kind: 'missing' })]) // Error: Tool "badOutput" returned an invalid value: /count: is required
 */
export function invalidOutputTool(options: { name?: string } = {}) {
  return defineTool({
    name: options.name ?? 'badOutput',
    description: 'Returns a value that breaks its own output schema.',
    parameters: { kind: { type: 'string', enum: ['type', 'missing'] } },
    output: { schema: { type: 'object', properties: { count: { type: 'integer', required: true } } }, render: (_a, v) => [{ type: 'text', text: String(v.count) }] },
    isConcurrencySafe: () => true,
    execute(args) {
      return (args.kind === 'missing' ? {} : { count: 'three' }) as unknown as { count: number }
    },
  })
}

/**
 * A 1×1 PNG, base64 (what {@link imageTool} returns).
 *
 * @example expect(result.content[0]).toEqual({ type: 'image', data: TINY_PNG_BASE64, mimeType: 'image/png' })
 */
export const TINY_PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='

/**
 * `image({ caption? })` returns `{ mimeType, data, caption? }` rendered as an image block plus the caption text (`image` without one).
 *
 * @example
 * h.ctx.tools.register(imageTool())
 * await h.execute([call('image', { caption: 'a dot' })]) // content: [{ type: 'image', … }, { type: 'text', text: 'a dot' }]
 */
export function imageTool(options: { name?: string } = {}) {
  return defineTool({
    name: options.name ?? 'image',
    description: 'Returns a tiny PNG image.',
    parameters: { caption: { type: 'string' } },
    output: {
      schema: { type: 'object', properties: { mimeType: { type: 'string', required: true }, data: { type: 'string', required: true }, caption: { type: 'string' } } },
      render: (_a, v) => [{ type: 'image', data: v.data, mimeType: v.mimeType }, { type: 'text', text: v.caption ?? 'image' }],
    },
    isConcurrencySafe: () => true,
    execute: (args) => ({ mimeType: 'image/png', data: TINY_PNG_BASE64, ...(args.caption === undefined ? {} : { caption: args.caption }) }),
  })
}

/**
 * `large({ chars?, lines? })` returns a string of exactly `chars` characters (default 100,000) spread over `lines` lines.
 *
 * @example await h.execute([call('large', { chars: 5_000_000, lines: 100_000 })]) // the model sees the capped content
 */
export function largeOutputTool(options: { name?: string } = {}) {
  return defineTool({
    name: options.name ?? 'large',
    description: 'Returns a large text.',
    parameters: { chars: { type: 'integer', minimum: 0 }, lines: { type: 'integer', minimum: 1 } },
    output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
    execute(args) {
      const chars = args.chars ?? 100_000
      const lines = args.lines ?? 1
      const perLine = Math.max(1, Math.floor(chars / lines))
      const line = 'x'.repeat(Math.max(0, perLine - 1))
      const text = Array.from({ length: lines }, () => line).join('\n')
      return text.length >= chars ? text.slice(0, chars) : text + 'x'.repeat(chars - text.length)
    },
  })
}

/**
 * `lossy({ kind })` returns a value JSON cannot carry: `symbol`, `bigint`, `cycle`, `function`, `nan`, `date`
 * (a returned `undefined` is not among them: it is the value `null` where the output schema admits it).
 *
 * @example await h.execute([call('lossy', { kind: 'cycle' })]) // INVALID_TOOL_OUTPUT: /self is a circular reference
 */
export function nonLosslessTool(options: { name?: string } = {}) {
  return defineTool({
    name: options.name ?? 'lossy',
    description: 'Returns a non-JSON value.',
    parameters: { kind: { type: 'string', enum: ['symbol', 'bigint', 'cycle', 'function', 'nan', 'date'], required: true } },
    output: { schema: { type: 'json' }, render: () => [{ type: 'text', text: 'unreachable' }] },
    execute(args): JsonValue {
      const cycle: Record<string, unknown> = {}
      cycle.self = cycle
      const values: Record<string, unknown> = { symbol: Symbol('lossy'), bigint: 1n, cycle, function: () => 1, nan: { n: Number.NaN }, date: new Date(0) }
      return values[args.kind] as JsonValue
    },
  })
}
