/**
 * An in-memory session log with query helpers (ARCHITECTURE §8).
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
  readonly events: SessionEvent[] = []

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

  clear(): void {
    this.events.length = 0
  }
}
