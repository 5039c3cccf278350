/**
 * Progress from long tools: `exec.reportProgress(update)` inside a body becomes a
 * `tools/progress` event for UIs and logs. It never reaches the model.
 *
 * Delivery rule (per call), so a body may report as often as it likes:
 *
 * - The first update is delivered at once (synchronously, inside `reportProgress`).
 * - Further updates within `progressIntervalMs` (registry config, default 100 ms) of the last
 *   delivery are coalesced: only the latest is kept and delivered when the interval ends.
 * - When the body (with its `tools/execute` wrappers) settles, a pending update is delivered at
 *   once, before post-execute, `tools/result` and the session log see the call. After that the
 *   call's channel is closed: later `reportProgress` calls (a body abandoned by a hard timeout,
 *   a callback that fires late) are ignored, so no event ever follows the result.
 * - `progressIntervalMs: 0` delivers every update synchronously.
 *
 * PTC sub-calls (`<callId>:code:<n>`) report through the same event with `parentCallId` set to
 * the `run_code` call; MCP server progress notifications arrive the same way (the MCP tool's
 * body calls `reportProgress`).
 */
import type { Agent, Scope, ToolExecution } from './contracts'
import { typeLabel } from './errors'

/** What a body reports. Units are the tool's own (bytes, files, percent…); `total` is optional. */
export interface ToolProgress {
  /** Work done so far: a finite number. Tools should make it increase (MCP requires it). */
  readonly progress: number
  /** Total work when known: a finite number. */
  readonly total?: number
  /** A short human-readable status line. */
  readonly message?: string
}

/** The payload of a `tools/progress` event (frozen). */
export interface ToolProgressEvent {
  /** The call that reported it (`<callId>:code:<n>` for a PTC sub-call). */
  readonly callId: string
  /** The tool's name. */
  readonly tool: string
  readonly progress: number
  readonly total?: number
  readonly message?: string
  /** The outer call's id for a PTC sub-call. */
  readonly parentCallId?: string
  /** 1 for the first event of this call, then 2, 3, … (delivered events only). */
  readonly sequence: number
  /** How many earlier updates were coalesced into this one by throttling (0 when none). */
  readonly coalesced: number
  readonly scope: Scope
  readonly agent?: Agent
  /** The call's execution view (for correlation, e.g. by a tracing plugin). */
  readonly exec: ToolExecution
}

/** Default minimum spacing of two `tools/progress` events of one call, in ms. */
export const DEFAULT_PROGRESS_INTERVAL_MS = 100

/** Where a channel delivers (supplied by the pipeline). */
export interface ProgressSink {
  readonly listeners: readonly ((event: ToolProgressEvent) => unknown)[]
  readonly intervalMs: number
  /** Reports a throwing or rejecting listener (never propagated to the body). */
  report(error: unknown): void
}

function finite(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value)
}

/** A refused progress field: a non-finite number by its value (`NaN`, `Infinity`), anything else by its type. */
function shown(value: unknown): string {
  return typeof value === 'number' ? String(value) : typeLabel(value)
}

/**
 * What is wrong with an update's shape, worded to follow `reportProgress on "<tool>"` (the
 * caller names the tool, as the model saw it): ` takes { progress: number, … }, got null` or
 * `: /progress must be a finite number, got string`; `undefined` for a
 * `{ progress: finite number, total?: finite number, message?: string }`.
 */
export function progressProblem(update: unknown): string | undefined {
  if (update === null || typeof update !== 'object' || Array.isArray(update)) {
    return ` takes { progress: number, total?: number, message?: string }, got ${typeLabel(update)}`
  }
  const u = update as { progress?: unknown; total?: unknown; message?: unknown }
  if (!finite(u.progress)) return `: /progress must be a finite number, got ${shown(u.progress)}`
  if (u.total !== undefined && !finite(u.total)) return `: /total must be a finite number when present, got ${shown(u.total)}`
  if (u.message !== undefined && typeof u.message !== 'string') return `: /message must be a string when present, got ${typeLabel(u.message)}`
  return undefined
}

/**
 * One call's throttled progress channel. Created on the first report (calls that never report
 * pay nothing); closed by the pipeline when dispatch settles.
 */
export class ProgressChannel {
  #pending: ToolProgress | undefined
  #coalesced = 0
  #sequence = 0
  #timer: ReturnType<typeof setTimeout> | undefined
  #closed = false

  constructor(
    private readonly exec: ToolExecution,
    private readonly sink: ProgressSink,
  ) {}

  /** Accepts an already-checked update. Ignored once closed. */
  report(update: ToolProgress): void {
    if (this.#closed) return
    if (this.#timer === undefined) {
      this.#deliver(update)
      this.#arm()
      return
    }
    if (this.#pending !== undefined) this.#coalesced++
    this.#pending = update
  }

  /** Delivers a pending update, stops the timer, and ignores every later report. */
  close(): void {
    if (this.#closed) return
    this.#closed = true
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer)
      this.#timer = undefined
    }
    const pending = this.#pending
    if (pending !== undefined) {
      this.#pending = undefined
      this.#deliver(pending)
    }
  }

  #arm(): void {
    const interval = this.sink.intervalMs
    if (interval <= 0) return
    const timer = setTimeout(() => this.#tick(), interval)
    ;(timer as { unref?: () => void }).unref?.()
    this.#timer = timer
  }

  #tick(): void {
    this.#timer = undefined
    if (this.#closed) return
    const pending = this.#pending
    if (pending === undefined) return
    this.#pending = undefined
    this.#deliver(pending)
    this.#arm()
  }

  #deliver(update: ToolProgress): void {
    const exec = this.exec
    const event: { -readonly [K in keyof ToolProgressEvent]: ToolProgressEvent[K] } = {
      callId: exec.callId,
      tool: exec.name,
      progress: update.progress,
      sequence: ++this.#sequence,
      coalesced: this.#coalesced,
      scope: exec.scope,
      exec,
    }
    this.#coalesced = 0
    if (update.total !== undefined) event.total = update.total
    if (update.message !== undefined) event.message = update.message
    if (exec.parent !== undefined) event.parentCallId = exec.parent.callId
    if (exec.agent !== undefined) event.agent = exec.agent
    Object.freeze(event)
    for (const listener of this.sink.listeners) {
      try {
        const out = listener(event)
        if (out !== null && typeof out === 'object' && typeof (out as { then?: unknown }).then === 'function') {
          ;(out as Promise<unknown>).then(undefined, (error: unknown) => this.sink.report(error))
        }
      } catch (error) {
        this.sink.report(error)
      }
    }
  }
}
