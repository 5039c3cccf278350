/**
 * Preliminary results: a body written as an async generator (`async function* execute(args,
 * exec)`) yields preliminary values and returns its final value. The pipeline drains the
 * generator inside dispatch (so `tools/execute` wrappers — timeouts, retries — see one promise of
 * the final value), delivers each yield to `tools/preliminary` observers in yield order, before
 * the call's `tools/result`, and closes the generator (`return()`, so its `finally` runs) when the
 * call's signal aborts or a yield is not JSON. Preliminary values never reach the model, the
 * session log or a PTC program: only the final value does.
 */
import type { Agent, JsonValue, Scope, ToolExecution } from '../contracts'
import { ToolError } from '../errors'
import { snapshotJson } from '../json'
import { describeProblem } from './drafts'

/** The payload of a `tools/preliminary` event (frozen). */
export interface ToolPreliminaryEvent {
  /** The call that yielded it (`<callId>:code:<n>` for a PTC sub-call). */
  readonly callId: string
  /** The tool's name (registry name). */
  readonly tool: string
  /** 1 for the call's first yield, then 2, 3, … (restarts at 1 when a retry runs the body again). */
  readonly sequence: number
  /** The yielded value: a frozen copy (JSON rules: an `undefined` member is dropped). */
  readonly value: JsonValue
  /** The outer call's id for a PTC sub-call. */
  readonly parentCallId?: string
  readonly scope: Scope
  readonly agent?: Agent
  /** The call's execution view (for correlation, e.g. by a tracing plugin). */
  readonly exec: ToolExecution
}

/** Whether a body's return value is an async generator (an object with `next`, `return` and `Symbol.asyncIterator`). */
export function isBodyGenerator(value: unknown): value is AsyncGenerator<unknown, unknown, undefined> {
  if (typeof value !== 'object' || value === null) return false
  const v = value as { next?: unknown; return?: unknown; [Symbol.asyncIterator]?: unknown }
  return typeof v.next === 'function' && typeof v.return === 'function' && typeof v[Symbol.asyncIterator] === 'function'
}

/** Where a drained generator's yields go (supplied by dispatch). */
export interface PreliminarySink {
  readonly listeners: readonly ((event: ToolPreliminaryEvent) => unknown)[]
  readonly scope: Scope
  readonly agent: Agent | undefined
  /** The name texts give the tool (the model's name under a name map); asked only for a failure text. */
  shownName(): string
  /** Reports a throwing listener (never propagated to the body). */
  report(error: unknown): void
}

/**
 * Drains `generator` until it returns; resolves with the returned value. Each yield is checked
 * (JSON), copied, frozen and handed to every listener in order. Rejects with `signal.reason` as
 * soon as `signal` aborts, and with `INVALID_TOOL_OUTPUT` (naming the tool and the yield) for a
 * yield that is not JSON; either way the generator is closed with `return()` so its `finally`
 * blocks run (at once when it is suspended at a `yield`, else when its pending step settles).
 * The abort listener is removed when the drain settles.
 */
export async function drainBody(generator: AsyncGenerator<unknown, unknown, undefined>, exec: ToolExecution, signal: AbortSignal, sink: PreliminarySink): Promise<unknown> {
  let stop: ((reason: unknown) => void) | undefined
  const aborted = new Promise<never>((_, reject) => (stop = reject))
  aborted.catch(() => undefined)
  const onAbort = (): void => stop!(signal.reason)
  signal.addEventListener('abort', onAbort, { once: true })
  let finished = false
  try {
    for (let sequence = 1; ; sequence++) {
      if (signal.aborted) throw signal.reason
      const step = await Promise.race([generator.next(), aborted])
      if (step.done === true) {
        finished = true
        return step.value
      }
      deliver(step.value, sequence, exec, sink)
    }
  } finally {
    signal.removeEventListener('abort', onAbort)
    // A generator that threw or returned is closed already; one we stop reading is closed here.
    if (!finished) generator.return(undefined).then(undefined, () => undefined)
  }
}

function deliver(yielded: unknown, sequence: number, exec: ToolExecution, sink: PreliminarySink): void {
  const snap = snapshotJson(yielded, { dropUndefined: true })
  if (!snap.ok) {
    throw new ToolError('INVALID_TOOL_OUTPUT', `Tool "${sink.shownName()}" yielded an invalid preliminary value (yield ${sequence}): ${describeProblem(snap.problem)}`)
  }
  if (sink.listeners.length === 0) return
  const parent = exec.parent
  const event: ToolPreliminaryEvent = Object.freeze({
    callId: exec.callId,
    tool: exec.name,
    sequence,
    value: snap.value,
    ...(parent === undefined ? {} : { parentCallId: parent.callId }),
    scope: sink.scope,
    ...(sink.agent === undefined ? {} : { agent: sink.agent }),
    exec,
  })
  for (const listener of sink.listeners) {
    try {
      const out = listener(event)
      if (out instanceof Promise) out.catch((error: unknown) => sink.report(error))
    } catch (error) {
      sink.report(error)
    }
  }
}
