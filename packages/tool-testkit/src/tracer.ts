/**
 * Stage tracing: instruments every pipeline stage of a deployment (or scope) so a test can
 * assert which stages ran for each call, in which order, and how often (docs/design.md, "The batch and the pipeline":
 * each stage runs at most once per call).
 */
import type { Context } from 'cordis'
import type {
  AnyToolDefinition,
  ApprovalDecision,
  ApprovalRequest,
  ApprovalService,
  ContentBlock,
  FinalizeInput,
  ToolDefinition,
  ToolExecution,
  JsonValue,
} from '@deepseek-ai/dsh-tools'

/**
 * The stages a {@link StageTracer} records, in pipeline order:
 *
 * - `pre` — a `tools/pre-execute` listener ran (stage 2).
 * - `approval` — the traced approval service was asked (stage 2, `ask` only).
 * - `guard` — the traced guard ran (stage 2, after pre-execute).
 * - `wrap` — a `tools/execute` wrapper was entered, before `next()` (stage 3).
 * - `body` — the tool body started (stage 3).
 * - `body-end` — the tool body settled (returned or threw).
 * - `unwrap` — the wrapper's `next()` settled, i.e. the wrapper is after `next()` (stage 3).
 * - `render` — the value was rendered (stage 3, successes only; again when a post-execute
 *   policy replaces the value, which is re-rendered).
 * - `post` — a `tools/post-execute` listener ran (stage 4).
 * - `finalize` — the definition's `finalizeContent` ran (stage 5).
 * - `result` — a `tools/result` observer saw the frozen result (stage 6).
 */
export type TracedStage = 'pre' | 'approval' | 'guard' | 'wrap' | 'body' | 'body-end' | 'unwrap' | 'render' | 'post' | 'finalize' | 'result'

/**
 * Every {@link TracedStage}, in pipeline order.
 *
 * @example TRACED_STAGES.indexOf('guard') < TRACED_STAGES.indexOf('body') // true
 */
export const TRACED_STAGES: readonly TracedStage[] = Object.freeze(['pre', 'approval', 'guard', 'wrap', 'body', 'body-end', 'unwrap', 'render', 'post', 'finalize', 'result'])

/** One recorded stage entry. */
export interface StageEvent {
  readonly callId: string
  readonly stage: TracedStage
  /** Position in the tracer's global order (0-based). */
  readonly seq: number
  /**
   * When the stage was recorded, in milliseconds on the tracer's clock (`performance.now()`
   * unless {@link StageTracerOptions.now} says otherwise). Order entries by `seq`, not `at`:
   * two entries may share a time.
   */
  readonly at: number
}

/** Options of a {@link StageTracer}. */
export interface StageTracerOptions {
  /**
   * The clock stamped on each entry as {@link StageEvent.at}, in milliseconds. Default
   * `performance.now`; pass `() => clock.now` of the testkit's `ManualClock` for exact times in a test.
   */
  readonly now?: () => number
}

/**
 * A hook run when a stage is recorded (to inject an abort, a throw, a delay…).
 *
 * @example tracer.on((e) => { if (e.stage === 'finalize') controller.abort() })
 */
export type StageHook = (event: StageEvent) => void

/**
 * Records the stages each call goes through.
 *
 * `install(ctx)` adds one listener to each of `tools/pre-execute`, `tools/execute`,
 * `tools/post-execute` and `tools/result` plus a guard, all passing through (they never change
 * the outcome) and all owned by `ctx`'s fiber. `trace(definition)` returns a copy of a plain
 * definition (from `defineTool` / `defineRawTool`) whose body, `render` and `finalizeContent`
 * are recorded too. `approval(service)` wraps an approval service.
 *
 * Install the tracer before the listeners under test when you want it outermost (cordis runs
 * waterfall listeners in registration order).
 *
 * @example
 * const tracer = new StageTracer()
 * tracer.install(h.ctx)
 * h.ctx.tools.register(tracer.trace(echoTool()))
 * await h.execute([call('echo', {}, 'c1')])
 * tracer.stagesOf('c1') // ['pre', 'guard', 'wrap', 'body', 'body-end', 'unwrap', 'render', 'post', 'finalize', 'result']
 */
export class StageTracer {
  /** Every recorded entry, in order. */
  readonly events: StageEvent[] = []
  private readonly hooks: StageHook[] = []
  private readonly now: () => number

  constructor(options: StageTracerOptions = {}) {
    this.now = options.now ?? (() => performance.now())
  }

  /** Records one entry and runs the hooks (a hook's throw propagates into that stage). */
  record(callId: string, stage: TracedStage): void {
    const event: StageEvent = Object.freeze({ callId, stage, seq: this.events.length, at: this.now() })
    this.events.push(event)
    for (const hook of this.hooks) hook(event)
  }

  /**
   * Runs `hook` on every recorded entry from now on; returns a function that removes it.
   *
   * @example tracer.on((e) => { if (e.callId === 'c1' && e.stage === 'guard') controller.abort() })
   */
  on(hook: StageHook): () => void {
    this.hooks.push(hook)
    return () => {
      const i = this.hooks.indexOf(hook)
      if (i !== -1) this.hooks.splice(i, 1)
    }
  }

  /**
   * Resolves with the entry once `callId` reaches `stage` (at once if it already did). Use it
   * to sequence a test against the pipeline without sleeping.
   *
   * @example
   * await tracer.reached('c2', 'guard') // every earlier call's policy has run too
   */
  reached(callId: string, stage: TracedStage): Promise<StageEvent> {
    const seen = this.events.find((e) => e.callId === callId && e.stage === stage)
    if (seen !== undefined) return Promise.resolve(seen)
    return new Promise<StageEvent>((resolve) => {
      const off = this.on((e) => {
        if (e.callId === callId && e.stage === stage) {
          off()
          resolve(e)
        }
      })
    })
  }

  /** The stages `callId` went through, in order. */
  stagesOf(callId: string): TracedStage[] {
    return this.events.filter((e) => e.callId === callId).map((e) => e.stage)
  }

  /** How many times each stage ran for `callId` (stages that never ran are absent). */
  counts(callId: string): Partial<Record<TracedStage, number>> {
    const counts: Partial<Record<TracedStage, number>> = {}
    for (const e of this.events) if (e.callId === callId) counts[e.stage] = (counts[e.stage] ?? 0) + 1
    return counts
  }

  /** Call ids in the order they reached `stage`. */
  orderOf(stage: TracedStage): string[] {
    return this.events.filter((e) => e.stage === stage).map((e) => e.callId)
  }

  /** `[callId, stage]` pairs that ran more than once (empty when every stage ran at most once). */
  repeated(): [string, TracedStage][] {
    const seen = new Map<string, number>()
    for (const e of this.events) {
      const key = `${e.callId}\u0000${e.stage}`
      seen.set(key, (seen.get(key) ?? 0) + 1)
    }
    const out: [string, TracedStage][] = []
    for (const [key, n] of seen) {
      if (n > 1) {
        const [callId, stage] = key.split('\u0000') as [string, TracedStage]
        out.push([callId, stage])
      }
    }
    return out
  }

  /** Forgets every entry (hooks stay). */
  clear(): void {
    this.events.length = 0
  }

  /**
   * Adds the pass-through listeners and the guard on `ctx` (owned by its fiber). Returns a
   * function that removes them.
   */
  install(ctx: Context): () => void {
    const offs = [
      ctx.on('tools/pre-execute', (exec, next) => {
        this.record(exec.callId, 'pre')
        return next()
      }),
      ctx.on('tools/execute', async (exec, next) => {
        this.record(exec.callId, 'wrap')
        try {
          return await next()
        } finally {
          this.record(exec.callId, 'unwrap')
        }
      }),
      ctx.on('tools/post-execute', (exec, _draft, next) => {
        this.record(exec.callId, 'post')
        return next()
      }),
      ctx.on('tools/result', (result) => {
        this.record(result.callId, 'result')
      }),
    ]
    const guard = ctx.tools.guard((exec) => {
      this.record(exec.callId, 'guard')
      return undefined
    })
    return () => {
      for (const off of offs) off()
      void guard()
    }
  }

  /**
   * A copy of `definition` whose body (`body`, `body-end`), `output.render` (`render`) and
   * `finalizeContent` (`finalize`; identity when the definition had none) are recorded.
   * Works on plain definitions (own properties), which is what `defineTool` and
   * `defineRawTool` return.
   */
  trace<Args, Value extends JsonValue>(definition: ToolDefinition<Args, Value>): ToolDefinition<Args, Value> {
    const original: AnyToolDefinition = definition
    const record = this.record.bind(this)
    const traced: AnyToolDefinition = {
      ...original,
      async execute(args: unknown, exec: ToolExecution): Promise<JsonValue> {
        record(exec.callId, 'body')
        try {
          return (await original.execute(args, exec)) as JsonValue
        } finally {
          record(exec.callId, 'body-end')
        }
      },
      finalizeContent(content: readonly ContentBlock[], input: FinalizeInput): readonly ContentBlock[] | undefined {
        record(input.callId, 'finalize')
        return original.finalizeContent === undefined ? content : original.finalizeContent(content, input)
      },
    }
    // `render` does not receive the call id; `projectContent` (which the pipeline calls in its
    // place and which receives `exec`) records it and falls through to the original.
    const project = original.projectContent ?? ((args: unknown, value: JsonValue) => original.output.render(args, value))
    traced.projectContent = (args: unknown, value: JsonValue, exec: ToolExecution) => {
      record(exec.callId, 'render')
      return project(args, value, exec)
    }
    return Object.freeze(traced) as ToolDefinition<Args, Value>
  }

  /** Wraps an approval service so each request records `approval` before it is answered. */
  approval(service: ApprovalService): ApprovalService {
    return {
      request: (request: ApprovalRequest): Promise<ApprovalDecision> => {
        this.record(request.exec.callId, 'approval')
        return service.request(request)
      },
    }
  }
}
