/**
 * Shared execution policy events (docs/design.md, "Packages").
 *
 * Listeners are registered with `ctx.on(name, listener)` on any scope's context and are
 * disposed with the fiber that registered them. They are scope-filtered: a listener on an
 * agent's context sees that agent's (and its descendants') calls only; a listener on the
 * deployment's context sees every call (docs/design.md, "Scopes").
 *
 * Waterfalls are koa-style `(…args, next)`. In `tools/pre-execute` and `tools/post-execute`
 * `next()` may be called once (a second call throws `next() called multiple times`, as in
 * cordis). In `tools/execute` a wrapper may call `next()` again after the previous attempt
 * settled (retries); calling it while an attempt is still running throws.
 */
import type {
  Agent,
  DraftResult,
  JsonValue,
  PolicyDecision,
  PostDecision,
  RawToolCall,
  Scope,
  ToolExecution,
  ToolResult,
} from './contracts'
import type { ToolProgressEvent } from './progress'
import type { ToolPreliminaryEvent } from './pipeline/preliminary'

/** A registry mutation, as `tools/change` reports it. */
export type ToolChange =
  | { readonly type: 'register'; readonly scope: Scope; readonly name: string }
  | { readonly type: 'unregister'; readonly scope: Scope; readonly name: string }
  | { readonly type: 'restrict'; readonly scope: Scope }
  | { readonly type: 'unrestrict'; readonly scope: Scope }
  /**
   * A tool group (`ctx.tools.registerGroup`) registered, swapped or disposed its tools in one
   * step. `registered`: names with a new registration (added or changed); `unregistered`: names
   * whose previous registration is gone (removed or changed). A changed name is in both.
   */
  | { readonly type: 'replace'; readonly scope: Scope; readonly registered: readonly string[]; readonly unregistered: readonly string[] }

/** What `tools/result` observers receive beside the frozen result. */
export interface ToolResultEvent {
  readonly call: RawToolCall
  readonly scope: Scope
  /** Absent when the call failed before an execution view existed (unknown tool, bad entry). */
  readonly exec?: ToolExecution
  /** The batch (`exec.batchId`), also for calls that failed before an execution view existed. */
  readonly batchId?: string
  /** The outer execution of a PTC sub-call, also when the sub-call failed before an execution view existed. */
  readonly parent?: ToolExecution
}

/** What `tools/batch-start` and `tools/batch-end` observers receive. */
export interface ToolBatchEvent {
  /** Unique per `ctx.tools.execute()` call: `batch-<n>` (a stream run's: `stream-batch-<n>`); each call's `exec.batchId`. */
  readonly batchId: string
  readonly calls: readonly unknown[]
  readonly scope: Scope
  readonly agent?: Agent
  /** The selected executor's name (`native`, `ptc`, …). */
  readonly executor: string
  /**
   * `true` for a batch whose calls arrive while it runs (a stream run: the native package's
   * `executeToolStream`, opened with `ctx.tools.openStreamBatch`). Its `tools/batch-start` comes
   * when its first call starts, with `calls` the calls known then; its `tools/batch-end` event
   * carries every call of the turn. Absent for `ctx.tools.execute()` batches.
   */
  readonly streaming?: true
}

/** Listener signatures of the `tools/*` events. */
export interface ToolEvents {
  /** Decides allow / deny / ask. The innermost `next()` resolves to `{ type: 'allow' }`. */
  'tools/pre-execute'(exec: ToolExecution, next: () => Promise<PolicyDecision>): PolicyDecision | Promise<PolicyDecision>
  /**
   * Wraps dispatch. The innermost `next()` runs the body and resolves to its value, or rejects
   * with its error. A wrapper may replace only `exec.signal` (and must restore it afterwards).
   */
  'tools/execute'(exec: ToolExecution, next: () => Promise<JsonValue>): JsonValue | Promise<JsonValue>
  /** Inspects or replaces the result. The innermost `next()` resolves to `{ type: 'accept' }`. */
  'tools/post-execute'(exec: ToolExecution, draft: DraftResult, next: () => Promise<PostDecision>): PostDecision | Promise<PostDecision>
  /** Observes the frozen final result, in model order. A listener's throw is contained. */
  'tools/result'(result: ToolResult, event: ToolResultEvent): void
  /**
   * A running body reported progress (`exec.reportProgress`), throttled per call; never model
   * content. Every event of a call precedes its `tools/result`. A listener's throw is contained.
   */
  'tools/progress'(event: ToolProgressEvent): void
  /**
   * A body written as an async generator yielded a preliminary result (`event.value`, frozen JSON;
   * `event.sequence` 1, 2, … per body run). A call's events arrive in yield order and precede its
   * `tools/result`; never model content, never in the session log. A listener's throw is contained.
   */
  'tools/preliminary'(event: ToolPreliminaryEvent): void
  /**
   * A batch was accepted by an executor and is about to run (observe-only, scope-filtered; a
   * throw is contained). Tracing and metrics plugins open their batch span here.
   */
  'tools/batch-start'(event: ToolBatchEvent): void
  /** The batch settled: `results` in call order (observe-only; after every call's `tools/result`). */
  'tools/batch-end'(event: ToolBatchEvent, results: readonly ToolResult[]): void
  /** A registration, unregistration or restriction changed. A throw rolls back register/restrict. */
  'tools/change'(change: ToolChange): void
}

declare module 'cordis' {
  interface Events extends ToolEvents {}
}
