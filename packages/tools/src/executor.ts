/**
 * Executor descriptions and batch input/output (docs/design.md, "Packages").
 *
 * An executor decides how the model meets the tools: the native executor shows each visible
 * tool as a function; the PTC executor shows one `run_code` tool and a generated SDK. Both
 * run calls through the shared pipeline ({@link ToolPipeline}); a custom executor implements
 * only `describe` and `execute` and may ignore the pipeline.
 */
import type {
  Agent,
  AnyToolDefinition,
  JsonValue,
  ModelSelection,
  RawToolCall,
  Scope,
  SessionLog,
  ToolExecution,
  ToolResult,
  ToolSchema,
} from './contracts'
import type { BatchSuspendControl } from './suspend/control'
import type { CallOutcome } from './suspend/call-types'
import type { ResumeDecision } from './suspend/types'
import type { DurableContext } from './durable'

/**
 * A step-owned admitted tool set (docs/design.md, "The registry"). Produced by
 * `ctx.tools.resolve()`; pass it as `toolSet` to `describe` and `execute`, and dispose it
 * after the batch settles. It pins registrations by identity: a disposal, a new restriction
 * or a same-name replacement makes unstarted calls of that name `UNKNOWN_TOOL`.
 */
export interface ResolvedToolSet {
  /** The scope the set was resolved for. */
  readonly scope: Scope
  readonly agent?: Agent
  readonly modelSelection?: ModelSelection
  /** Admitted definitions in prompt order (registration order, nearest layer first on clashes). */
  readonly definitions: readonly AnyToolDefinition[]
  /** True once `dispose()` ran; a disposed set admits nothing. */
  readonly disposed: boolean
  /** Whether `name` is admitted and its pinned registration is still the visible one. */
  has(name: string): boolean
  dispose(): void
}

/** A prompt section an executor adds to the system prompt (PTC: the generated SDK). */
export interface PromptSection {
  /** Stable id, e.g. `ptc/sdk`. */
  readonly id: string
  readonly title: string
  readonly text: string
}

/** What an executor shows the model for one scope and tool set. */
export interface ExecutorDescription {
  readonly tools: readonly ToolSchema[]
  readonly sections: readonly PromptSection[]
}

/** Input of {@link ToolExecutor.describe}: the visible definitions for the scope and set. */
export interface DescribeInput {
  readonly scope: Scope
  readonly toolSet?: ResolvedToolSet
  /** Visible definitions in prompt order. */
  readonly definitions: readonly AnyToolDefinition[]
  /** Their model-facing projections, same order. */
  readonly schemas: readonly ToolSchema[]
}

/**
 * The names a provider was shown for the registry's tools, when they differ (OpenAI and
 * Anthropic names must match `^[a-zA-Z0-9_-]{1,64}$`, so `math.factorial` is declared as
 * `math_factorial`). `toWire(name)` answers a registry name with the name the model saw, or
 * `undefined` for a tool it does not know (its registry name is shown). The native package's
 * `NameMap` (`declared.nameMap` of its declaration builders: `toOpenAIChatTools`,
 * `toAnthropicTools`, …) is one as it is.
 *
 * Given as {@link ToolBatch.nameMap}, it changes only the library's model-facing texts: every
 * message that names a tool (`Invalid arguments for tool "math_factorial": …`, `Tool
 * "math_factorial" was denied`, `Unknown tool "x". Available tools: math_factorial, …`, a
 * misused execution view's `TypeError`s such as `exec.signal of "math_factorial" can only be
 * replaced inside a tools/execute wrapper`) shows
 * `toWire(name) ?? name`, and `Available tools:` lists the mapped names, sorted. The name of an
 * `UNKNOWN_TOOL` call goes through the map too: one it does not know (a name the model made up)
 * is quoted as the call gave it, and a declared tool that is gone when the batch runs (its MCP
 * server disconnected, the tool set was disposed) by the name the model called. Author texts
 * (deny reasons, guard verdicts, approver reasons, block feedback, a body's own error messages)
 * stay verbatim. Everything code reads keeps the registry name: the calls' `name`,
 * `result.meta.toolName`, `error.info.toolName`, `exec.name`, the session log's events and the
 * `tools/*` events.
 *
 * The map is asked only for a failure text, once per tool name and batch. A `toWire` that throws
 * is reported to `ctx.logger('tools')` as `nameMap failed: <stack>` (stage `nameMap`) and the
 * text shows the registry name; an answer that is not a non-empty string (`''`, a number) shows
 * the registry name too. A value without a `toWire` method makes `ctx.tools.execute()` reject:
 * `TypeError: ctx.tools.execute(): nameMap must have a toWire(name) method, got object` (for
 * `{}`); `null` means no map.
 */
export interface ToolNameMap {
  /** The name the model was shown for registry tool `name`; `undefined` keeps `name`. */
  toWire(name: string): string | undefined
}

/**
 * A raw batch as `ctx.tools.execute()` receives it (docs/design.md, "The batch and the pipeline"). `calls` is typed
 * loosely on purpose: a malformed entry (missing `callId`, non-string `name`) gets its own
 * `INVALID_ARGS` result while the rest of the batch runs. How each call's `arguments` are read,
 * and what happens to repeated call ids: {@link RawToolCall}.
 */
export interface ToolBatch {
  readonly calls: readonly (RawToolCall | Readonly<Record<string, unknown>>)[]
  /** Absent for standalone service calls. */
  readonly agent?: Agent
  /** Receives the batch's `tool/call` / `tool/result` events; absent: the agent's log, if any; neither: no events. */
  readonly log?: SessionLog
  readonly toolSet?: ResolvedToolSet
  /** The caller's abort signal. */
  readonly signal?: AbortSignal
  /**
   * The provider names the model saw (`declared.nameMap` of the native package's declaration
   * builders): library texts that name a tool use them (see {@link ToolNameMap}). The calls'
   * `name`s stay registry names (the parsers map them back); absent or `null`: texts use
   * registry names. Not a `{ toWire }`: `execute()` rejects with `TypeError: ctx.tools.execute():
   * nameMap must have a toWire(name) method, got <type>`; a throwing `toWire` is reported (stage
   * `nameMap`) and a throw, `''` or a non-string answer shows the registry name.
   */
  readonly nameMap?: ToolNameMap
  /**
   * Runs the batch durably on an engine (an adapter package's context for one workflow run, e.g.
   * `@deepseek-ai/dsh-tool-durable-dbos`): each call's `tools/execute` stage is a journaled step,
   * replayed rather than re-run; an `ask` waits on the engine; `exec.idempotencyKey` is set. See
   * {@link DurableContext}. Absent: a plain batch (nothing of the seam runs).
   */
  readonly durable?: DurableContext
}

/** What an executor's `execute` receives: the batch plus the scope and the shared pipeline. */
export interface ExecutorBatch {
  readonly calls: ToolBatch['calls']
  readonly scope: Scope
  readonly agent?: Agent
  readonly log?: SessionLog
  readonly toolSet?: ResolvedToolSet
  readonly signal: AbortSignal
  readonly pipeline: ToolPipeline
  /** Unique per `ctx.tools.execute()` call (`batch-<n>`); carried to each call's `exec.batchId`. */
  readonly batchId?: string
  /** {@link ToolBatch.nameMap}: an executor that runs the batch's calls passes it to its runner. */
  readonly nameMap?: ToolNameMap
  /**
   * Set when the batch may suspend (`ctx.tools.executeSuspendable`) or resumes a suspended one
   * (`ctx.tools.resume`): opaque; an executor hands it on by passing the batch (or a spread copy)
   * to `pipeline.runBatch`. An executor that runs calls otherwise cannot suspend: a deferred
   * approval then fails its call closed (`TOOL_DENIED`).
   */
  readonly suspend?: BatchSuspendControl
  /** {@link ToolBatch.durable}: `pipeline.runBatch` runs the calls on it; an executor with a runner of its own passes it on. */
  readonly durable?: DurableContext
  /** The definitions visible to this batch (scope and tool set applied), computed on first use. */
  definitions(): readonly AnyToolDefinition[]
}

/**
 * An executor: mounted per scope with `ctx.tools.mount(executor)`.
 * `execute` must resolve to exactly one result per call, in call order, and never reject
 * for tool, policy or argument failures.
 */
export interface ToolExecutor {
  /** A short name, e.g. `native` or `ptc`. */
  readonly name: string
  describe(input: DescribeInput): ExecutorDescription
  execute(batch: ExecutorBatch): Promise<readonly ToolResult[]>
  /** Called when the executor's mount is disposed; may settle unstarted work as cancelled. */
  dispose?(): void | Promise<void>
}

/**
 * Options of a call runner: the same ordered, bounded scheduling the native executor uses,
 * fed incrementally (PTC sub-calls arrive while the program runs).
 */
export interface RunnerOptions {
  readonly scope: Scope
  readonly agent?: Agent
  /** Root session log: receives `tool/call` and `tool/result` in model order. */
  readonly log?: SessionLog
  readonly toolSet?: ResolvedToolSet
  readonly signal: AbortSignal
  /** Parallel-safe calls overlap up to this bound (default 10; 1 = serial). */
  readonly maxParallel?: number
  /** The outer execution, for PTC sub-calls (their ids are `<callId>:code:<n>`). */
  readonly parent?: ToolExecution
  /**
   * Admission filter for model-direct calls of registry tools (`known`: the name resolved in
   * the registry). Return a hint to make the call `UNKNOWN_TOOL` with `Unknown tool "<name>".
   * <hint>` (PTC uses it to point model-direct calls at `run_code`); `undefined` admits it.
   * `shown(name)` is the name the library's texts give a tool under the runner's `nameMap`
   * (`toWire(name)`, else `name`; a throwing map is reported with stage `nameMap`, as for the
   * pipeline's own texts), for a hint that names a tool.
   */
  readonly admit?: (name: string, known: boolean, shown: (name: string) => string) => string | undefined
  /**
   * Executor-owned tools resolved before the registry (PTC: `run_code`). They run through the
   * complete pipeline like registered tools but are not registered anywhere.
   */
  readonly local?: (name: string) => AnyToolDefinition | undefined
  /** The batch the runner's calls belong to (`exec.batchId`); absent for PTC sub-call runners. */
  readonly batchId?: string
  /**
   * The names the model saw for the runner's tools ({@link ToolNameMap}): the library texts of
   * its calls' failures name tools by them. Absent (PTC sub-call runners: programs call tools
   * by their registry names): texts use registry names.
   */
  readonly nameMap?: ToolNameMap
  /** A suspendable or resumed batch's control (`ExecutorBatch.suspend`); `pipeline.runBatch` passes it on. Used with `submitAll` only. */
  readonly suspend?: BatchSuspendControl
  /**
   * The engine that journals the runner's calls ({@link ToolBatch.durable}). Absent with a
   * `parent` that runs in a durable batch: the parent call's engine, keyed by its
   * `exec.idempotencyKey` (PTC sub-calls are journaled steps of their own).
   */
  readonly durable?: DurableContext
  /**
   * A sub-call runner of a body that may suspend (`exec.suspension` of its `parent` is set): a
   * call whose approval service answers `{ type: 'defer' }` comes back pending from
   * {@link CallRunner.submitOutcome} (it does not run, its post-execute and observers do not
   * run) instead of failing `TOOL_DENIED` (`ApprovalDeferred`). `submit` still fails it closed.
   */
  readonly suspendable?: boolean
  /**
   * Decisions for pending sub-calls of a resumed body, by sub-call id
   * (`exec.suspension.resumed.decisions`): each answers its call's `ask` instead of the approval
   * service. With a `parent` whose `exec.suspension` is set, an approved call is claimed in the
   * batch's resume ledger before its body runs, so a second resume of the same state cannot run
   * it again (`ALREADY_EXECUTED`).
   */
  readonly decisions?: Readonly<Record<string, ResumeDecision>>
  /** Called at submission for every call (parsed arguments when prepare succeeded, else the raw ones); PTC logs inner events with it. */
  readonly onCallStart?: (call: RawToolCall, args: JsonValue) => void
}

/** An incremental ordered runner (see {@link RunnerOptions}). */
export interface CallRunner {
  /**
   * Submits one call; resolves with its frozen final result. Stages after dispatch run in
   * submission order, so a later call's promise never resolves before an earlier one's.
   * Never rejects.
   */
  submit(call: RawToolCall | Readonly<Record<string, unknown>>): Promise<ToolResult>
  /**
   * {@link submit} for a {@link RunnerOptions.suspendable} runner: `{ status: 'complete', result }`,
   * or `{ status: 'pending', pending }` when the call's approval was deferred (it did not run).
   * Never rejects. Present on the registry's runners.
   */
  submitOutcome?(call: RawToolCall | Readonly<Record<string, unknown>>): Promise<CallOutcome>
  /** Resolves once every submitted call has settled. */
  drain(): Promise<void>
  /** Number of calls submitted so far. */
  readonly submitted: number
}

/** The shared pipeline executors run calls through (docs/design.md, "The batch and the pipeline"). */
export interface ToolPipeline {
  /** Runs a complete batch: one frozen result per call, in call order. Never rejects. */
  runBatch(batch: ExecutorBatch, options?: { readonly maxParallel?: number; readonly admit?: RunnerOptions['admit']; readonly local?: RunnerOptions['local'] }): Promise<readonly ToolResult[]>
  /** Creates an incremental runner with the same contract. */
  createRunner(options: RunnerOptions): CallRunner
  /**
   * Makes V8 compile the stages' code before the first real call: a few calls of a private
   * tool (validated arguments and output, a render) on a runner of their own, sequential and as
   * one batch. Once per process (later calls return the same promise); ~10–30 ms of CPU in a
   * fresh process, after which the first real call runs ms sooner. Nothing is observable: no
   * listener, guard, approval service, session log or registered tool takes part, and no event
   * is emitted (only `validatorCacheStats()` counts the private tool's two validators). Never
   * rejects. The registry's pipeline has it; the `PtcExecutor` plugin awaits it at plugin start
   * (unless `warmUp: false`), the `NativeExecutor` plugin with `warmUp: true`. Optional for other
   * implementations.
   */
  warmUp?(): Promise<void>
}
