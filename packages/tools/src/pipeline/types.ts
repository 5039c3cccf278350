/**
 * The types the pipeline's stages share (internal): the host and configuration the registry
 * supplies, the per-runner context, the per-call state and its draft outcome.
 */
import type { AnyToolDefinition, ApprovalService, ContentBlock, JsonValue, RawToolCall, ResultContext, Scope, SessionLog, Agent, ToolErrorInfo, ToolExecution, ToolGuard, ToolSuccess } from '../contracts'
import type { ResolvedToolSet, RunnerOptions, ToolNameMap } from '../executor'
import type { FoundTool } from '../found-tool'
import type { RepairModes } from '../repair'
import type { ContentLimits } from '../content'
import type { Listener } from '../chains'
import type { AbortWatch } from '../abort-watch'
import type { UnknownKeysMode } from '../unknown-keys'
import type { Execution } from './execution'
import type { BatchSuspendControl } from '../suspend/control'
import type { SubCallControl } from '../suspend/sub-calls'
import type { DurableContext } from '../durable'
import type { ResolvedResultBudget, ResultCut } from '../budget/types'

/** Scope-filtered listeners and guards for one scope, collected once per runner. */
export interface StageHooks {
  readonly pre: readonly Listener[]
  readonly execute: readonly Listener[]
  readonly post: readonly Listener[]
  readonly result: readonly Listener[]
  readonly progress: readonly Listener[]
  readonly preliminary: readonly Listener[]
  readonly guards: readonly ToolGuard[]
  readonly approval: ApprovalService | undefined
}

/** What the registry supplies to the stages. */
export interface PipelineHost {
  /** The executable definition for `name` in `scope` under `toolSet`, or the names a model may call instead. */
  lookup(name: string, scope: Scope, toolSet: ResolvedToolSet | undefined): FoundTool | { readonly available: readonly string[] }
  /** The registry's version: it changes with every registration, disposal and restriction. */
  readonly version: number
  hooks(scope: Scope): StageHooks
  readonly config: PipelineConfig
  /** Reports a contained failure (a throwing `tools/result` listener, a log append). */
  report(stage: string, error: unknown): void
}

/** Registry-level pipeline configuration (validated by the registry). */
export interface PipelineConfig {
  /** Raw argument strings longer than this many UTF-8 bytes are rejected before parsing. Default 1 MiB. */
  readonly maxArgumentBytes: number
  /** Opt-in schema-guided argument repair; all modes off by default. */
  readonly repair: RepairModes
  /** Model-facing content caps applied to rendered results (bug case B18: one huge result must not flood the context). */
  readonly contentLimits: ContentLimits
  /** Whether input schemas that say nothing about extra keys are closed at registration. */
  readonly unknownKeys: UnknownKeysMode
  /** Minimum spacing of two `tools/progress` events of one call, in ms (`0`: no throttling). Default 100. */
  readonly progressIntervalMs: number
  /** Result budgets (`ToolRegistryConfig.resultBudget`), with their store; absent: none, and tools' own budgets use a process-wide in-memory store. */
  readonly resultBudget?: ResolvedResultBudget
}

/** The per-runner context every stage sees. */
export interface RunContext {
  readonly host: PipelineHost
  readonly hooks: StageHooks
  readonly scope: Scope
  readonly agent: Agent | undefined
  readonly log: SessionLog | undefined
  readonly toolSet: ResolvedToolSet | undefined
  /** `host.version` when the runner was created: while it is unchanged, no lookup can have changed. */
  readonly version: number
  readonly signal: AbortSignal
  /** `signal.aborted` for the per-call checks, a plain field while the runner's batch runs (`abort-watch.ts`). */
  readonly abort: AbortWatch
  readonly parent: ToolExecution | undefined
  readonly batchId: string | undefined
  readonly admit: RunnerOptions['admit'] | undefined
  readonly local: ((name: string) => AnyToolDefinition | undefined) | undefined
  /** The names the model saw (`RunnerOptions.nameMap`): library texts name tools by them (`shown-name.ts`). */
  readonly nameMap: ToolNameMap | undefined
  /** The engine that journals this runner's calls (`RunnerOptions.durable`, or the parent call's for PTC sub-calls); absent for a plain batch. */
  readonly durable: DurableContext | undefined
  /** With a {@link nameMap}: each name's shown name once it was first needed (created then). */
  shownNames: Map<string, string> | undefined
  /**
   * The last registry lookup that found a tool (`lookUp`): the name asked for and the answer.
   * The lookup is pure while the registry keeps {@link version} and the tool set is not disposed,
   * so the next call of the same name (the common batch) reuses it instead of asking the registry.
   */
  lastName: string | undefined
  lastFound: FoundTool | undefined
  /** The batch's suspension control when it may suspend or resumes (`RunnerOptions.suspend`). */
  readonly suspend: BatchSuspendControl | undefined
  /** A sub-call runner's suspension (`RunnerOptions.suspendable` / `decisions`); absent otherwise. */
  readonly subCalls: SubCallControl | undefined
}

/** A failure before an execution view existed, or at any later stage. */
interface Failure {
  readonly message: string
  readonly info: ToolErrorInfo
}

/** The per-call state the stages pass along. */
export interface CallState {
  readonly index: number
  readonly call: RawToolCall
  /** `finalizeContent` snapshotted at prepare. */
  finalize: AnyToolDefinition['finalizeContent'] | undefined
  /** The resolved tool once prepare found it: its definition, its arguments' JSON Schema and its validators. */
  tool: FoundTool | undefined
  exec: Execution | undefined
  parallel: boolean
  /** Set once the call reached stage 2 (post-execute runs for it). */
  reachedPolicy: boolean
  /** Set by the runner once the call's dispatch stage ended (or the call never needed one). */
  dispatched: boolean
  repairs: readonly string[] | undefined
  draft: Draft | undefined
  /**
   * The frozen result {@link settleValue} built as the call's success draft when nothing could
   * change it but a later stage (see `settle.ts`): finalize hands it out as it is while it is
   * still the draft, the same object (no second object and freeze per call).
   */
  prebuilt: ToolSuccess | undefined
  /** Whether `exec.signal` may be replaced: set by dispatch while the `tools/execute` wrappers run. */
  writable: boolean
  /** The contexts the body attached (`exec.attachContext`), in order. */
  attached: ResultContext[] | undefined
  /** What `exec.annotate` recorded, taken (and cleared) once when the result's metadata is built. */
  annotations: Map<string, JsonValue> | undefined
  /**
   * Set when the call is pending in a suspendable batch (`suspend/control.ts`): its approval was
   * deferred (`awaiting-approval`) or an earlier pending call holds it back (`blocked`).
   */
  suspended: { readonly status: 'awaiting-approval' | 'blocked'; readonly reason?: string; readonly blockedBy?: string } | undefined
}

/** A draft outcome. */
export type Draft =
  | { readonly isError: false; readonly value: JsonValue; readonly content: readonly ContentBlock[]; readonly contexts?: readonly ResultContext[]; readonly cut?: ResultCut | undefined }
  | { readonly isError: true; readonly failure: Failure; readonly content: readonly ContentBlock[]; readonly contexts?: readonly ResultContext[] }
