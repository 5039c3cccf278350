/**
 * An in-memory session log with query helpers (docs/design.md, "Testkit").
 */
import type { SessionEvent, SessionLog } from '@deepseek-ai/dsh-tools'

/** Events of one `type`. */
export type SessionEventOf<T extends SessionEvent['type']> = Extract<SessionEvent, { type: T }>

/**
 * A {@link SessionLog} that keeps every appended event in order, frozen.
 *
 * @example
 * const log = new MemorySessionLog()
 * await ctx.tools.execute({ calls, log })
 * log.ofType('tool/result').map((e) => e.callId)
 */
export class MemorySessionLog implements SessionLog {
  /** Every appended event, in order (each frozen). */
  readonly events: SessionEvent[] = []

  /** Appends a frozen shallow copy of `event`. */
  append(event: SessionEvent): void {
    this.events.push(Object.freeze({ ...event }))
  }

  /** Events of one type, in append order. */
  ofType<T extends SessionEvent['type']>(type: T): SessionEventOf<T>[] {
    return this.events.filter((e): e is SessionEventOf<T> => e.type === type)
  }

  /** Every event about `callId`, in append order. */
  forCall(callId: string): SessionEvent[] {
    return this.events.filter((e) => e.callId === callId)
  }

  /** `type:callId` for every event — a compact order fingerprint for assertions. */
  trace(): string[] {
    return this.events.map((e) => `${e.type}:${e.callId}`)
  }

  /** The `tool/call` events, in append (model) order. */
  calls(): SessionEventOf<'tool/call'>[] {
    return this.ofType('tool/call')
  }

  /** The `tool/result` events, in append (model) order. */
  results(): SessionEventOf<'tool/result'>[] {
    return this.ofType('tool/result')
  }

  /** The `tool/result` event of `callId`, if one was appended. */
  resultFor(callId: string): SessionEventOf<'tool/result'> | undefined {
    return this.results().find((e) => e.callId === callId)
  }

  /**
   * `[callId, outcome]` per `tool/result`, outcome `ok` or the failure's code — a compact
   * fingerprint of a batch's outcomes.
   *
   * @example log.outcomes() // [['c1', 'ok'], ['c2', 'INVALID_ARGS']]
   */
  outcomes(): [string, string][] {
    return this.results().map((e) => [e.callId, e.isError ? (e.error?.info?.code ?? 'error') : 'ok'])
  }

  /** Forgets every event. */
  clear(): void {
    this.events.length = 0
  }
}
