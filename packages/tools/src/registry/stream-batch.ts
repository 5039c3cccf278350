/**
 * A batch whose calls arrive while it runs (a model stream read call by call): its observers and
 * its per-batch result budget, kept the way `ctx.tools.execute()` keeps them for a whole batch.
 */
import type { Agent, Scope, ToolResult } from '../contracts'
import type { ToolBatchEvent } from '../events'

/** What {@link StreamBatch} needs from the registry. */
export interface StreamBatchHost {
  /** Calls the scope-filtered observers of `name` (throws contained). */
  observe(scope: Scope, name: 'tools/batch-start' | 'tools/batch-end', args: readonly unknown[]): void
  /** `results` within the per-batch budget, frozen. */
  budget(results: readonly ToolResult[]): readonly ToolResult[]
}

/** Where a stream batch runs (see `ctx.tools.openStreamBatch`). */
export interface StreamBatchInput {
  /** The batch id its calls carry (`exec.batchId`). */
  readonly batchId: string
  readonly scope: Scope
  /** The serving executor's name (`native`, …), as the events report it. */
  readonly executor: string
  readonly agent?: Agent
}

/**
 * One stream batch's observer side: {@link start} before its first call is submitted,
 * {@link end} once every call has its result. A batch that never starts a call emits nothing.
 */
export class StreamBatch {
  #started = false
  #ended = false
  constructor(
    private readonly host: StreamBatchHost,
    private readonly input: StreamBatchInput,
  ) {}

  /** Whether `tools/batch-start` was emitted. */
  get started(): boolean {
    return this.#started
  }

  /** Emits `tools/batch-start` (once; later calls do nothing) with `calls`, the calls known now, and `streaming: true`. */
  start(calls: readonly unknown[]): void {
    if (this.#started || this.#ended) return
    this.#started = true
    this.host.observe(this.input.scope, 'tools/batch-start', [this.#event(calls)])
  }

  /**
   * `results` (one per call, in call order) within the registry's per-batch budget
   * (`resultBudget.batchMaxChars`), frozen; emits `tools/batch-end` with every call and those
   * results when the batch started (once).
   */
  end(calls: readonly unknown[], results: readonly ToolResult[]): readonly ToolResult[] {
    const budgeted = this.host.budget(Object.isFrozen(results) ? results : Object.freeze([...results]))
    if (this.#started && !this.#ended) this.host.observe(this.input.scope, 'tools/batch-end', [this.#event(calls), budgeted])
    this.#ended = true
    return budgeted
  }

  #event(calls: readonly unknown[]): ToolBatchEvent {
    const { batchId, scope, executor, agent } = this.input
    return Object.freeze({ batchId, calls: Object.freeze([...calls]), scope, executor, streaming: true as const, ...(agent === undefined ? {} : { agent }) })
  }
}
