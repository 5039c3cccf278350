/**
 * The `tools/abandoned` event (docs/design.md, "Timeout policy": the hard limit accounts for the abandoned
 * body), declared in cordis `Events`, and its scope-filtered emission.
 */
import type { Context } from 'cordis'
import { emitScoped, type Scope } from '@deepseek-ai/dsh-tools'
import type { DeadlineCause } from './deadline'

/** What `tools/abandoned` listeners receive. Frozen. */
export interface ToolAbandonedEvent {
  /** The abandoned call's id, as the model emitted it. */
  readonly callId: string
  /** The tool's name. */
  readonly toolName: string
  /** The budget in ms the call had. */
  readonly budgetMs: number
  /** The grace in ms the body got after its signal fired. */
  readonly graceMs: number
  /**
   * Which signal fired first: `timeout` (the call settled as `TOOL_TIMEOUT`) or `abort` (the
   * caller aborted first; the call settled as `ABORTED`).
   */
  readonly cause: DeadlineCause
  /** The scope the call ran in (the batch's agent scope, or the deployment/preset scope). */
  readonly scope: Scope
  /** The calling agent's id, when the batch had an agent. */
  readonly agentId?: string
}

/** Listener signature of the events this package adds. */
export interface TimeoutPolicyEvents {
  /**
   * A body that ignored its signal was abandoned by the hard limit: the call has already
   * settled without it, and whatever it returns later is dropped. Scope-filtered like the
   * `tools/*` events: a listener on an agent's context sees only that agent's (and its
   * descendants') abandonments. A listener's throw is contained.
   */
  'tools/abandoned'(event: ToolAbandonedEvent): void
}

declare module 'cordis' {
  interface Events extends TimeoutPolicyEvents {}
}

/**
 * Calls every `tools/abandoned` listener whose context's scope contains `event.scope`, in
 * registration order. Each listener's throw is contained and reported through `report`.
 */
export function emitAbandoned(ctx: Context, event: ToolAbandonedEvent, report: (error: unknown) => void): void {
  emitScoped(ctx, 'tools/abandoned', event.scope, [event], report)
}
