/**
 * The Restate side of the core's durable seam (`DurableContext` from `@deepseek-ai/dsh-tools`):
 * each journaled step is a `ctx.run`, each durable decision an awakeable, the invocation's
 * cancellation the steps' AbortSignal.
 *
 * Restate matches journal entries by position and name: a replay that creates `ctx.run('b')` where
 * the first run created `ctx.run('a')` is a journal mismatch (error 570) and the invocation retries
 * forever. The pipeline runs a batch's calls concurrently, so the moment each call reaches its step
 * depends on timing. The adapter therefore RESERVES every call's entries up front, in batch order,
 * before the pipeline runs: `ctx.run` only creates the entry; its closure executes when the entry
 * is first awaited, which is when the pipeline asks for that step. Entries never asked for (a call
 * denied by policy, a batch cut short) are never executed and cost one journal entry each.
 */
import * as restate from '@restatedev/restate-sdk'
import type { DurableContext, DurableDecisionRequest, JsonObject, JsonValue, RawToolCall } from '@deepseek-ai/dsh-tools'
import { durableCallKey, durableStepNames } from '@deepseek-ai/dsh-tools'
import { jsonProblem } from './json-check'

/** A decision request waiting for someone outside (what `onApprovalRequest` receives). */
export interface PendingApproval {
  /** Resolve this awakeable with `{ "type": "approve" }` or `{ "type": "reject", "reason": "…" }`. */
  readonly awakeableId: string
  /** The call's idempotency key (`<batch key>/<call id>`). */
  readonly key: string
  /** The Restate invocation running the batch. */
  readonly invocationId: string
  readonly callId: string
  readonly toolName: string
  readonly arguments: Readonly<JsonObject>
  /** The policy's reason for asking, when it gave one. */
  readonly reason?: string
}

/** Options of {@link restateDurable}. */
export interface RestateDurableOptions {
  /**
   * The batch's stable key: the same on every retry and replay of this handler. Default: the
   * invocation id (`ctx.request().id`), right for one batch per handler run; a handler that runs
   * several batches (a multi-turn agent) gives each its own, e.g. `${ctx.request().id}:turn-${n}`.
   */
  readonly key?: string
  /**
   * The batch's calls, as they will be given to `tools.execute`: their steps (and awakeables,
   * with `approvals`) are reserved in this order before the pipeline runs. Steps asked for under
   * other names (PTC sub-calls) are created when asked, which is deterministic only while one
   * program runs at a time in the batch.
   */
  readonly calls: readonly Pick<RawToolCall, 'callId' | 'name'>[]
  /**
   * Durable approvals: an `ask` decision waits on a Restate awakeable (no process is held while it
   * waits; the invocation suspends). `onApprovalRequest` is called once per pending request, inside
   * a journaled step (so exactly once, also across crashes), to tell the outside the awakeable id.
   * Absent: `ask` goes to the mounted approval service as in a non-durable batch.
   */
  readonly approvals?: {
    readonly onApprovalRequest?: (pending: PendingApproval) => void | Promise<void>
  }
}

/** The {@link DurableContext} of one batch in one Restate handler run, plus what it observed. */
export interface RestateDurable extends DurableContext {
  /** Aborted when Restate cancels the invocation (reason: a `DurableCancelledError`). */
  readonly signal: AbortSignal
}

/** The reason a Restate cancellation aborts the steps with; `code` `'DURABLE_CANCELLED'`. */
export class DurableCancelledError extends Error {
  override readonly name = 'DurableCancelledError'
  readonly code = 'DURABLE_CANCELLED'
  constructor(invocationId: string) {
    super(`the Restate invocation ${invocationId} was cancelled`)
  }
}

/** A batch the adapter cannot journal (a repeated call id); `code` `'DURABLE_BATCH_INVALID'`. */
export class DurableBatchError extends Error {
  override readonly name = 'DurableBatchError'
  readonly code = 'DURABLE_BATCH_INVALID'
}

/** Raised (as the step's failure) when a step's value is not JSON; names the tool and the step. */
export class DurableStepValueError extends restate.TerminalError {
  readonly dshCode = 'DURABLE_STEP_NOT_JSON'
  constructor(toolName: string, step: string, problem: string) {
    super(`Tool "${toolName}": the value of step "${step}" is not JSON, so Restate cannot journal it: ${problem}`, { errorCode: 500 })
  }
}

interface StepSlot {
  readonly name: string
  readonly toolName: string
  readonly promise: restate.RestatePromise<JsonValue>
  fn?: (signal: AbortSignal) => Promise<unknown>
  /** The closure's own result, read when a cancellation poisons `promise`. */
  local?: Promise<JsonValue>
}

interface DecisionSlot {
  readonly awakeable: { readonly id: string; readonly promise: restate.RestatePromise<unknown> }
  readonly announce: StepSlot
}

/**
 * Makes the durable context for one batch run inside a Restate handler (service, virtual object or
 * workflow): pass it as `durable` to `ctx.tools.execute({ calls, durable })`. Reserves the batch's
 * journal entries at once (see the module comment), so call it right before `execute`, with the
 * same calls, and make no other Restate context call in between.
 *
 * Throws when `Promise.withResolvers` is missing (Node < 22): the Restate SDK needs it.
 */
export function restateDurable(ctx: restate.Context, options: RestateDurableOptions): RestateDurable {
  assertRuntime()
  return new RestateDurableContext(ctx, options)
}

/** Throws a clear error on Node < 22 without a `Promise.withResolvers` polyfill. */
export function assertRuntime(): void {
  if (typeof (Promise as { withResolvers?: unknown }).withResolvers !== 'function')
    throw new Error(`@restatedev/restate-sdk 1.14+ needs Promise.withResolvers (Node 22+); this is Node ${process.versions.node}: run the Restate service on Node 22 or newer`)
}

/** `promise`, or a rejection with `signal.reason` when the caller's signal aborts first (no listener left behind). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

class RestateDurableContext implements RestateDurable {
  readonly engine = 'restate'
  readonly key: string
  readonly #ctx: restate.Context
  readonly #abort = new AbortController()
  readonly #steps = new Map<string, StepSlot>()
  readonly #decisions = new Map<string, DecisionSlot>()
  readonly #tools = new Map<string, string>()
  readonly #waiters = new Map<restate.RestatePromise<unknown>, { resolve: (value: unknown) => void; reject: (error: unknown) => void }>()
  #driving = false
  readonly #onApprovalRequest: ((pending: PendingApproval) => void | Promise<void>) | undefined
  readonly awaitDecision?: (name: string, request: DurableDecisionRequest) => Promise<unknown>

  constructor(ctx: restate.Context, options: RestateDurableOptions) {
    this.#ctx = ctx
    this.key = options.key ?? ctx.request().id
    const seen = new Set<string>()
    const keys = options.calls.map((call, index) => {
      if (seen.has(call.callId)) throw new DurableBatchError(`calls/${index}/callId "${call.callId}" repeats an earlier call's id: call ids must be unique in a durable batch (each is part of its call's journal key)`)
      seen.add(call.callId)
      return durableCallKey(this.key, call.callId)
    })
    const approvals = options.approvals !== undefined
    this.#onApprovalRequest = options.approvals?.onApprovalRequest
    if (approvals) this.awaitDecision = (name, request) => this.#awaitDecision(name, request)
    options.calls.forEach((call, index) => {
      const key = keys[index]!
      this.#tools.set(key, call.name)
      if (approvals) this.#reserveDecision(key, call.name)
      const names = durableStepNames(key)
      this.#reserveStep(names.start, call.name)
      this.#reserveStep(names.call, call.name)
    })
  }

  get signal(): AbortSignal {
    return this.#abort.signal
  }

  #reserveStep(name: string, toolName: string): StepSlot {
    const slot: { -readonly [K in keyof StepSlot]: StepSlot[K] } = { name, toolName, promise: undefined as never }
    slot.promise = this.#ctx.run<JsonValue>(
      name,
      () => {
        const fn = slot.fn
        if (fn === undefined) throw new restate.TerminalError(`step "${name}" ran before the pipeline asked for it`)
        slot.local = fn(this.#abort.signal).then((value) => {
          const problem = jsonProblem(value)
          if (problem !== undefined) throw new DurableStepValueError(toolName, name, problem)
          return value as JsonValue
        })
        return slot.local
      },
      // The core's step functions return failures as data: a throw is a bug or a non-JSON value, never retried.
      { maxRetryAttempts: 1 },
    )
    this.#steps.set(name, slot)
    return slot
  }

  #reserveDecision(key: string, toolName: string): DecisionSlot {
    const awakeable = this.#ctx.awakeable<unknown>()
    const announce = this.#reserveStep(`dsh:ask:${key}`, toolName)
    const slot = { awakeable, announce }
    this.#decisions.set(key, slot)
    return slot
  }

  #toolOf(name: string): string {
    for (const [key, tool] of this.#tools) if (name.endsWith(key)) return tool
    return '(unknown tool)'
  }

  async step(name: string, fn: (signal: AbortSignal) => Promise<unknown>): Promise<unknown> {
    const slot = this.#steps.get(name) ?? this.#reserveStep(name, this.#toolOf(name))
    if (slot.fn !== undefined) throw new Error(`durable step "${name}" was asked for twice in one batch`)
    slot.fn = fn
    return this.#settle(slot)
  }

  /** Awaits a step; on a Restate cancellation aborts the steps' signal and returns what the closure produced. */
  async #settle(slot: StepSlot): Promise<unknown> {
    try {
      return await this.#await(slot.promise)
    } catch (error) {
      if (!(error instanceof restate.CancelledError)) throw error
      this.#cancelled()
      if (slot.local !== undefined) return slot.local
      return slot.fn!(this.#abort.signal)
    }
  }

  /**
   * Awaits a Restate promise through the one driver of this batch. The SDK allows one awaiting
   * consumer at a time ("awaitNext already pending" otherwise), while the pipeline awaits its
   * calls' steps concurrently: so every wait joins a set, and a single loop races the set
   * (`RestatePromise.race`, which journals nothing) and hands each completion to its waiter.
   */
  #await<T>(promise: restate.RestatePromise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#waiters.set(promise as restate.RestatePromise<unknown>, { resolve: resolve as (value: unknown) => void, reject })
      void this.#drive()
    })
  }

  async #drive(): Promise<void> {
    if (this.#driving) return
    this.#driving = true
    try {
      while (this.#waiters.size > 0) {
        // Let the waits requested in the same turn of the event loop join this race.
        await new Promise<void>((resolve) => setImmediate(resolve))
        const entries = [...this.#waiters]
        const tagged = entries.map(([promise], index) => promise.map((value, failure) => ({ index, value, failure })))
        let settled: { index: number; value: unknown; failure: restate.TerminalError | undefined }
        try {
          settled = await restate.RestatePromise.race(tagged)
        } catch (error) {
          // A cancellation (or a broken attempt) reaches the one awaiting consumer: every waiter hears it.
          for (const [promise, waiter] of entries) {
            this.#waiters.delete(promise)
            waiter.reject(error)
          }
          continue
        }
        const [promise, waiter] = entries[settled.index]!
        this.#waiters.delete(promise)
        if (settled.failure !== undefined) waiter.reject(settled.failure)
        else waiter.resolve(settled.value)
      }
    } finally {
      this.#driving = false
    }
  }

  #cancelled(): void {
    if (!this.#abort.signal.aborted) this.#abort.abort(new DurableCancelledError(this.#ctx.request().id))
  }

  async #awaitDecision(name: string, request: DurableDecisionRequest): Promise<unknown> {
    const slot = this.#decisions.get(name) ?? this.#reserveDecision(name, request.toolName)
    const pending: PendingApproval = {
      awakeableId: slot.awakeable.id,
      key: name,
      invocationId: this.#ctx.request().id,
      callId: request.callId,
      toolName: request.toolName,
      arguments: request.arguments,
      ...(request.reason === undefined ? {} : { reason: request.reason }),
    }
    const announce = this.#onApprovalRequest
    slot.announce.fn = async () => {
      await announce?.(pending)
      return { awakeableId: pending.awakeableId }
    }
    await this.#settle(slot.announce)
    if (this.#abort.signal.aborted) return { type: 'reject', reason: 'the Restate invocation was cancelled' }
    try {
      return await untilAborted(this.#await(slot.awakeable.promise), request.signal)
    } catch (error) {
      if (!(error instanceof restate.CancelledError)) throw error
      this.#cancelled()
      return { type: 'reject', reason: 'the Restate invocation was cancelled' }
    }
  }
}
