/**
 * Deterministic replay of a suspended program (issue: batches that outlive their process, the
 * PTC part). A `run_code` call whose program waits on a sub-call with a deferred approval ends
 * as suspended; its state holds the program, the journal of the sub-calls that settled (their
 * outcomes, in the order they settled), the pending sub-calls and the run's seed and clock
 * journal. Resuming runs the program again from the start in a fresh sandbox:
 *
 * - sub-call `k` (the k-th the program issues, counted from 1) that the journal holds is
 *   answered from it — never executed again — once every journaled call that settled before it
 *   in the first run has been answered (the replies reach the program in their original order);
 * - a pending sub-call is executed for real when its decision approves it, gets the rejection
 *   result when its decision rejects it, and without one is asked again (the approval service
 *   answers; a deferral keeps it pending and the run suspends again); a sub-call that was only
 *   blocked behind a pending one (`blocked`) is issued live, and the barrier rules decide again;
 * - a sub-call past the journal runs live, as in any run;
 * - a sub-call that differs from what the journal holds at step `k` (another tool, other
 *   arguments), or a program that ends before re-issuing every journaled step, is a divergence:
 *   the run stops at once and `run_code` fails with `PTC_REPLAY_DIVERGED` naming `k`, the
 *   expected and the actual call. Nothing it asked for is executed.
 *
 * Arguments compare as JSON with object keys in any order.
 */
import type { ContentBlock, JsonValue } from '@deepseek-ai/dsh-tools'
import { checkDeterminism, type RunDeterminism } from './runtime/determinism'

/** Version of {@link PtcRunState}; a state of another version is refused. */
export const PTC_STATE_VERSION = 1

/** The error code of a replay that diverged from its journal (see {@link replayDivergence}). */
export const PTC_REPLAY_DIVERGED = 'PTC_REPLAY_DIVERGED'

/** How a sub-call settled, as the program received it. */
export type SubCallOutcome =
  | {
      readonly ok: true
      readonly value: JsonValue
      /** Image blocks of the result, attached again as context when the outcome is replayed. */
      readonly images?: readonly Extract<ContentBlock, { type: 'image' }>[]
    }
  | { readonly ok: false; readonly toolName: string; readonly message: string }

/** One journaled sub-call. */
export interface SubCallRecord {
  /** The k-th sub-call the program issued (from 1). */
  readonly step: number
  readonly callId: string
  /** The tool's registry name. */
  readonly name: string
  /** The argument as the program passed it. */
  readonly arguments: JsonValue
  readonly outcome: SubCallOutcome
}

/** A sub-call waiting for a decision, or (`blocked`) behind one. */
export interface PendingSubCall {
  readonly step: number
  readonly callId: string
  readonly name: string
  readonly arguments: JsonValue
  /** Held back by the barrier rules behind an earlier pending sub-call: no decision; a resumed run issues it live. */
  readonly blocked?: true
}

/**
 * The state of a suspended `run_code` call: plain JSON, everything a fresh sandbox in another
 * process needs to replay the program up to where it stopped.
 */
export interface PtcRunState {
  readonly version: typeof PTC_STATE_VERSION
  /** The runtime's language (`typescript`, `python`): a state is replayed by a runtime of the same language. */
  readonly language: string
  /** The program, as the model wrote it. */
  readonly program: string
  /** The settled sub-calls, in the order they settled. */
  readonly journal: readonly SubCallRecord[]
  /** The sub-calls waiting for a decision, in step order. */
  readonly pending: readonly PendingSubCall[]
  /** The seed of `Math.random` / `random` and the clock reads of the run. */
  readonly determinism: RunDeterminism
}

/** A decision for a pending sub-call, by its call id. */
export type SubCallDecision = { readonly type: 'approve' } | { readonly type: 'reject'; readonly reason?: string }

/** What the bridge does with sub-call `step` of a replayed run. */
export type ReplayPlan =
  /** Answer from the journal: `ready` resolves when the calls that settled before it have been answered. */
  | { readonly kind: 'journal'; readonly outcome: SubCallOutcome; readonly ready: Promise<void>; readonly done: () => void }
  /** A pending sub-call with its decision: execute it (approve) or give it the rejection (reject). */
  | { readonly kind: 'decided'; readonly decision: SubCallDecision }
  /** A pending sub-call without a decision: asked again (the approval service may defer it again). */
  | { readonly kind: 'undecided' }
  /** Beyond the journal: run it live. */
  | { readonly kind: 'live' }
  /** Not what the journal holds: the replay stops. */
  | { readonly kind: 'diverged'; readonly message: string }

/** The text of a divergence at `step` (`got` undefined: the program ended first). */
export function replayDivergence(step: number, expected: { name: string; arguments: JsonValue }, got?: { name: string; arguments: JsonValue }): string {
  const show = (c: { name: string; arguments: JsonValue }): string => `${c.name} ${canonicalJson(c.arguments)}`
  return `replay diverged at sub-call ${step}: expected ${show(expected)}, got ${got === undefined ? 'the end of the program' : show(got)}`
}

/** JSON text with object keys sorted (arguments compare equal whatever their key order). */
export function canonicalJson(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v)).join(',')}]`
  const keys = Object.keys(value).sort()
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, JsonValue>)[k] as JsonValue)}`).join(',')}}`
}

/**
 * The replay side of one resumed run: answers {@link ReplayPlan}s by step and keeps the order
 * in which journaled replies are released.
 */
export class Replayer {
  private readonly byStep = new Map<number, { record: SubCallRecord; order: number }>()
  private readonly pendingByStep = new Map<number, PendingSubCall>()
  /** Journal positions whose reply waits for an earlier one: resolves it. */
  private readonly waiting = new Map<number, () => void>()
  /** The next journal position to release. */
  private next = 0
  /** An unsticking turn is scheduled ({@link Replayer.unstickLater}). */
  private unsticking = false
  /** Steps the program has re-issued so far. */
  private readonly seen = new Set<number>()

  constructor(
    private readonly state: PtcRunState,
    private readonly decisions: ReadonlyMap<string, SubCallDecision>,
  ) {
    state.journal.forEach((record, order) => this.byStep.set(record.step, { record, order }))
    for (const p of state.pending) this.pendingByStep.set(p.step, p)
  }

  /** What to do with the program's sub-call `step`. */
  plan(step: number, name: string, args: JsonValue): ReplayPlan {
    const found = this.byStep.get(step)
    const pending = this.pendingByStep.get(step)
    const expected = found?.record ?? pending
    if (expected === undefined) return { kind: 'live' }
    this.seen.add(step)
    if (expected.name !== name || canonicalJson(expected.arguments) !== canonicalJson(args)) {
      return { kind: 'diverged', message: replayDivergence(step, expected, { name, arguments: args }) }
    }
    if (found === undefined) {
      if ((pending as PendingSubCall).blocked === true) return { kind: 'live' }
      const decision = this.decisions.get((pending as PendingSubCall).callId)
      return decision === undefined ? { kind: 'undecided' } : { kind: 'decided', decision }
    }
    const order = found.order
    const ready = new Promise<void>((resolve) => {
      if (order === this.next) {
        resolve()
        return
      }
      this.waiting.set(order, resolve)
      this.unstickLater()
    })
    return { kind: 'journal', outcome: found.record.outcome, ready, done: () => this.release(order) }
  }

  /** Journal position `order` was answered: the next one may go. */
  private release(order: number): void {
    if (order !== this.next) return
    this.next++
    // The woken call releases its own successor through its done().
    const wake = this.waiting.get(this.next)
    this.waiting.delete(this.next)
    wake?.()
  }

  /**
   * Calls issued together reach the bridge in one turn of the event loop (one sandbox entry's
   * calls are forwarded together). A reply still waiting one turn later waits for a call the
   * program has not issued — it would only issue it after a reply (or never, if it diverged):
   * the earliest waiting reply goes then, so a replay never hangs on its ordering.
   */
  private unstickLater(): void {
    if (this.unsticking) return
    this.unsticking = true
    setImmediate(() => {
      this.unsticking = false
      if (this.waiting.size === 0) return
      const earliest = Math.min(...this.waiting.keys())
      if (earliest <= this.next) return
      this.next = earliest
      const wake = this.waiting.get(earliest)
      this.waiting.delete(earliest)
      wake?.()
      if (this.waiting.size > 0) this.unstickLater()
    })
  }

  /** The divergence of a program that ended without re-issuing every step of the state, or `undefined`. */
  unfinished(): string | undefined {
    const steps = [...this.byStep.keys(), ...this.pendingByStep.keys()].sort((a, b) => a - b)
    for (const step of steps) {
      if (this.seen.has(step)) continue
      const expected = this.byStep.get(step)?.record ?? (this.pendingByStep.get(step) as PendingSubCall)
      return replayDivergence(step, expected)
    }
    return undefined
  }
}

/**
 * Checks a {@link PtcRunState} read from storage: the version, the fields and their types.
 * Returns the first problem as `<pointer> <what was expected>` (`/journal/0/step must be a
 * positive integer, got "1"`), `undefined` when it is valid.
 */
export function checkPtcRunState(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return '(root) must be an object'
  const s = value as Record<string, unknown>
  if (s.version !== PTC_STATE_VERSION) return `/version must be ${PTC_STATE_VERSION}, got ${JSON.stringify(s.version)}`
  if (typeof s.language !== 'string') return `/language must be a string, got ${JSON.stringify(s.language)}`
  if (typeof s.program !== 'string') return '/program must be a string'
  if (!Array.isArray(s.journal)) return '/journal must be an array'
  if (!Array.isArray(s.pending)) return '/pending must be an array'
  const steps = new Set<number>()
  const check = (list: unknown[], at: string, withOutcome: boolean): string | undefined => {
    for (const [i, item] of list.entries()) {
      const p = `${at}/${i}`
      if (item === null || typeof item !== 'object' || Array.isArray(item)) return `${p} must be an object`
      const r = item as Record<string, unknown>
      if (typeof r.step !== 'number' || !Number.isInteger(r.step) || r.step < 1) return `${p}/step must be a positive integer, got ${JSON.stringify(r.step)}`
      if (steps.has(r.step)) return `${p}/step ${r.step} appears twice`
      steps.add(r.step)
      if (typeof r.callId !== 'string') return `${p}/callId must be a string`
      if (typeof r.name !== 'string') return `${p}/name must be a string`
      if (!('arguments' in r)) return `${p}/arguments is missing`
      if (!withOutcome) {
        if (r.blocked !== undefined && r.blocked !== true) return `${p}/blocked must be true when present, got ${JSON.stringify(r.blocked)}`
        continue
      }
      const o = r.outcome as Record<string, unknown> | null | undefined
      if (o === null || typeof o !== 'object') return `${p}/outcome must be an object`
      if (o.ok === true && !('value' in o)) return `${p}/outcome/value is missing`
      if (o.ok === false && (typeof o.toolName !== 'string' || typeof o.message !== 'string')) return `${p}/outcome must have a string toolName and message`
      if (o.ok !== true && o.ok !== false) return `${p}/outcome/ok must be a boolean`
    }
    return undefined
  }
  return check(s.journal, '/journal', true) ?? check(s.pending, '/pending', false) ?? checkDeterminism(s.determinism, '/determinism')
}
