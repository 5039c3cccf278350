/**
 * Contracts shared by tool authors, policies and executors: JSON values, content blocks,
 * tool definitions, the execution view a body and its wrappers see, policy decisions and
 * the frozen results a batch returns.
 *
 * Design: docs/design.md ("Definitions and schemas", "The registry", "The batch and the pipeline")
 * and docs/cancellation.md.
 */
import type { ToolProgress } from './progress'
import type { ResultCut, ToolResultBudget } from './budget/types'
import type { CallSuspension } from './suspend/call-types'

/** A JSON primitive. */
export type JsonPrimitive = string | number | boolean | null
/** Any JSON value (what crosses the model boundary and the PTC sandbox boundary). */
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue }
/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue }

/**
 * A raw JSON Schema node as it travels on the wire (MCP `inputSchema`, provider `parameters`).
 * Draft-07 and 2020-12 keywords are accepted; `true`/`false` are valid schemas.
 */
export type JsonSchemaNode = boolean | { readonly [keyword: string]: unknown }

/** A model-facing text block. */
export interface TextBlock {
  readonly type: 'text'
  readonly text: string
}
/** A model-facing image block; `data` is base64 without a data-URL prefix. */
export interface ImageBlock {
  readonly type: 'image'
  readonly data: string
  readonly mimeType: string
}
/** What the model sees of a result. */
export type ContentBlock = TextBlock | ImageBlock

/**
 * Additional model-facing context attached after a result, in order: by the body
 * (`exec.attachContext`), then by a post-execute `accept` (`contexts`); the PTC executor appends
 * a successful image-bearing sub-result this way, attributed to its source (docs/design.md,
 * "PTC executor").
 */
export interface ResultContext {
  /** Who produced it, e.g. `read_image (call_1:code:3)`. */
  readonly source: string
  readonly content: readonly ContentBlock[]
}

/**
 * Failure codes carried in `error.info.code` (each explained in docs/glossary.md, "Failure
 * codes"); a body's `ToolError` may also carry a code of its own.
 *
 * - `UNKNOWN_TOOL`: no visible, executable tool of that name (message lists available names).
 * - `INVALID_ARGS`: unparsable, oversize or schema-violating arguments, or a malformed call entry.
 * - `INVALID_TOOL_OUTPUT`: the body's value violates `output.schema` (or is not JSON).
 * - `ABORTED_BEFORE_DISPATCH`: the caller aborted before the body started.
 * - `ABORTED`: the caller aborted while the body ran and the body would otherwise have succeeded.
 * - `TOOL_TIMEOUT`: a deadline owned by a timeout policy fired.
 * - `TOOL_ACTIVATION_FAILED`: a `when` condition threw inside `resolve` (thrown, not a result).
 * - `CODE_RUN_FAILED`: a PTC program failed.
 * - `TOOL_DENIED`: pre-execute policy, a guard, or an unanswered/declined approval denied the call.
 * - `TOOL_BLOCKED`: post-execute policy blocked the result.
 * - `TOOL_FAILED`: the body or a wrapper threw (an error's own `code` wins when it has one).
 * - `NO_EXECUTOR`: no executor is mounted for the scope (thrown by `execute`, not a result).
 * - `TOOL_CHANGED`: a resumed call's tool definition differs from the one the batch was suspended
 *   with (its hash of schemas and `version`); the call never runs under the other definition.
 * - `ALREADY_EXECUTED`: the resume ledger says another resume of the same suspended batch claimed
 *   this call already; it does not run again (its outcome is not known here).
 * - `TRUNCATED_ARGUMENTS` / `TRUNCATED_RESPONSE`: the provider adapters' answers for calls of a
 *   response cut at the model's output limit (the call's JSON is incomplete / the batch is); the
 *   call was never executed (bug case B22).
 */
export type ToolErrorCode =
  | 'UNKNOWN_TOOL'
  | 'INVALID_ARGS'
  | 'INVALID_TOOL_OUTPUT'
  | 'ABORTED_BEFORE_DISPATCH'
  | 'ABORTED'
  | 'TOOL_TIMEOUT'
  | 'TOOL_ACTIVATION_FAILED'
  | 'CODE_RUN_FAILED'
  | 'TOOL_DENIED'
  | 'TOOL_BLOCKED'
  | 'TOOL_FAILED'
  | 'NO_EXECUTOR'
  | 'TRUNCATED_ARGUMENTS'
  | 'TRUNCATED_RESPONSE'
  | 'TOOL_CHANGED'
  | 'ALREADY_EXECUTED'

/**
 * Structured failure detail. Never part of model-facing content (docs/design.md, "The batch and the pipeline": structured
 * failure detail and a user-facing reason are never added to that message).
 */
export interface ToolErrorInfo {
  /** Error class name, e.g. `ToolError`, `TypeError`. */
  readonly name: string
  /** A {@link ToolErrorCode} or a tool-specific code string. */
  readonly code: ToolErrorCode | (string & {})
  /** A user-facing reason (for UIs and logs), never shown to the model. */
  readonly reason?: string
  /**
   * The tool the failure concerns, set on policy outcomes (denials, approvals, blocks) whose
   * model-facing message is the policy author's text and so does not name the tool.
   */
  readonly toolName?: string
}

/** A successful, frozen result. `value` is the canonical value (execution-local). */
export interface ToolSuccess<V extends JsonValue = JsonValue> {
  readonly callId: string
  readonly isError: false
  readonly value: V
  readonly content: readonly ContentBlock[]
  readonly contexts?: readonly ResultContext[]
  readonly meta?: ToolResultMeta
}

/**
 * A failed, frozen result. Model-facing content is exactly `Error: <message>`, except for a
 * post-execute block with feedback, whose content is that feedback (see {@link PostDecision}),
 * and for what the definition's own `finalizeContent` makes of it (it runs for failures too).
 * `error.message` is at most `MAX_ERROR_MESSAGE_CHARS` (2,000) characters for the pipeline's
 * and policies' texts; a thrown error's message is capped like content (`contentLimits.maxChars`).
 * `error.info` is always there: every failure the pipeline (and the native executor's
 * `truncatedCallResults`) produces carries `{ name, code }`, plus `reason` and `toolName` where
 * they apply, so `r.error.info.code` needs no `?.`.
 */
export interface ToolFailure {
  readonly callId: string
  readonly isError: true
  readonly error: { readonly message: string; readonly info: ToolErrorInfo }
  readonly content: readonly ContentBlock[]
  readonly contexts?: readonly ResultContext[]
  readonly meta?: ToolResultMeta
}

/** One result per call, discriminated by `isError`. */
export type ToolResult<V extends JsonValue = JsonValue> = ToolSuccess<V> | ToolFailure

/** Non-model metadata recorded with a result (session log, UIs). */
export interface ToolResultMeta {
  /** The tool name the call resolved to (absent for malformed entries). */
  readonly toolName?: string
  /** Presentation metadata from `output.presentationMeta` (successes only). */
  readonly presentation?: JsonValue
  /**
   * What the pipeline changed in the arguments before validation: invisible characters removed
   * around the JSON text (`(root): leading U+FEFF (byte-order mark) removed`) and opt-in
   * schema-guided repairs (`/limit: null treated as absent`), in that order.
   */
  readonly repairs?: readonly string[]
  /**
   * What wrappers and bodies recorded with `exec.annotate(key, value)`, by key (e.g. `retry`:
   * the retry policy's attempts). Never model content.
   */
  readonly annotations?: Readonly<Record<string, JsonValue>>
  /** What a result budget cut (the handle of the full text in the result store); absent when nothing was cut. */
  readonly cut?: ResultCut
}

/** A pending call's UI descriptor (docs/design.md, "Presentation"). */
export interface ToolCallPresentation {
  readonly title: string
  readonly kind?: 'read' | 'edit' | 'delete' | 'move' | 'search' | 'execute' | 'think' | 'fetch' | 'other'
  readonly rawInput?: JsonValue
  readonly content?: readonly ContentBlock[]
  readonly terminal?: { readonly cwd?: string }
}

/** A completed call's UI descriptor (docs/design.md, "Presentation"). */
export interface ToolResultPresentation {
  readonly title?: string
  readonly content?: readonly ContentBlock[]
  readonly terminal?: { readonly output?: string; readonly exitCode?: number; readonly signal?: string }
}

/** What `presentResult` receives of a result. */
export interface PresentableResult {
  readonly content: readonly ContentBlock[]
  readonly isError: boolean
}

/**
 * The output declaration of a tool: the canonical value's schema and how it renders for the
 * model. `render` must be pure. The pipeline takes a frozen copy of the blocks `render` (or
 * `projectContent`) returns, block by block, at dispatch — frozen or not, the returned objects
 * are never frozen in place or kept, so a later change to them does not reach the result.
 */
export interface ToolOutput<Args, Value extends JsonValue> {
  readonly schema: JsonSchemaNode
  render(args: Args, value: Value): readonly ContentBlock[]
  presentationMeta?(args: Args, value: Value): JsonValue | undefined
}

/**
 * What a body given to `defineTool` or `defineRawTool` may return for the value type `Value`:
 * the value itself, or nothing (`undefined`, or a `void` function) when `Value` admits `null`.
 * A body that returns nothing succeeded with the value `null` when the output schema admits
 * `null`, and is `INVALID_TOOL_OUTPUT` otherwise; so a `Value` without `null` (e.g. a
 * `defineTool` output of `{ type: 'integer' }`) does not admit returning nothing.
 */
export type ToolBodyResult<Value extends JsonValue> = Value | (null extends Value ? void : never)

/**
 * A body that streams preliminary results: an async generator (`async function* execute(args,
 * exec)`) whose yields are preliminary JSON values, delivered to `tools/preliminary` observers
 * in yield order and never to the model, and whose return value is the final value (as a plain
 * body's). The pipeline closes it (`return()`, so its `finally` runs) when the call's signal
 * aborts (timeout, cancellation) and when a yield is not JSON (`INVALID_TOOL_OUTPUT`).
 */
export type ToolBodyGenerator<Value extends JsonValue> = AsyncGenerator<JsonValue, ToolBodyResult<Value>, undefined>

/** What `finalizeContent` receives beside the content. */
export interface FinalizeInput {
  readonly callId: string
  readonly toolName: string
  readonly isError: boolean
}

/**
 * A registered tool. Produce one with `defineTool` (typed DSL) or `defineRawTool` (raw JSON
 * Schema). The registry projects only `name`, `description`, `parameters` (and
 * `deferLoading`) to the model.
 */
export interface ToolDefinition<Args = JsonObject, Value extends JsonValue = JsonValue> {
  /**
   * Model-facing name: 1–128 Unicode characters (code points) in NFC form, without control or
   * invisible format characters and without surrounding whitespace (`search`, `搜索工具`, `🔍`).
   */
  readonly name: string
  readonly description: string
  /** JSON Schema of the arguments object (the projection of the DSL for `defineTool`). */
  readonly parameters: JsonSchemaNode
  readonly output: ToolOutput<Args, Value>
  /**
   * The body. Returns only the declared JSON value, or nothing (`undefined`): the pipeline
   * records nothing as the value `null` when the output schema admits `null` and as
   * `INVALID_TOOL_OUTPUT` otherwise (`defineTool` and `defineRawTool` admit a body returning
   * nothing only when `Value` admits `null`: {@link ToolBodyResult}). Must observe `exec.signal`.
   * May be an async generator ({@link ToolBodyGenerator}): each yield is a preliminary result for
   * `tools/preliminary` observers, the return value is final.
   */
  execute(args: Args, exec: ToolExecution): Value | void | Promise<Value | void> | AsyncGenerator<JsonValue, Value | void, undefined>
  /** Declarative deadline in ms; enforced only by `@deepseek-ai/dsh-tool-call-timeout-policy`. */
  readonly timeoutMs?: number
  /** Exactly `true` makes a call parallel-safe; anything else (or a throw) is exclusive. */
  isConcurrencySafe?(args: Args): boolean
  /**
   * `true` declares that running a call again with the same arguments is safe (no further
   * effect), so a retry policy may repeat it after a transient failure. Declarative only.
   */
  readonly idempotent?: boolean
  /**
   * How a durable batch journals the call (`ToolBatch.durable`): `'step'` (the default) runs the
   * `tools/execute` stage as a journaled step, replayed rather than re-run; `'workflow'` runs it in
   * the workflow itself, outside any step, for a tool whose effects are its sub-calls (PTC's
   * `run_code`: each sub-call is a journaled step, and a replay re-runs the program against them).
   */
  readonly durability?: 'step' | 'workflow'
  presentCall?(args: Args): ToolCallPresentation | undefined
  presentResult?(args: Args, result: PresentableResult): ToolResultPresentation | undefined
  /**
   * The final content transform, run exactly once for every outcome (snapshotted at prepare).
   * Returning `undefined` keeps the content unchanged (an observing finalizer); anything else
   * that is not content, or a throw, turns the outcome into `TOOL_FAILED`.
   */
  finalizeContent?(content: readonly ContentBlock[], input: FinalizeInput): readonly ContentBlock[] | undefined
  /** Installs execution-prepared content in place of `render` (before post-execute); copied like `render`'s (see {@link ToolOutput}). */
  projectContent?(args: Args, value: Value, exec: ToolExecution): readonly ContentBlock[] | undefined
  /**
   * The author's version of the tool's behaviour (e.g. `2`, `2026-12-01`). Part of the identity a
   * suspended batch records for each pending call (with the name and both schemas): resuming a
   * call whose tool's identity changed fails it `TOOL_CHANGED`. Bump it when the body's meaning
   * changes without its schemas changing. Not shown to the model.
   */
  readonly version?: string
  /** Requests deferred loading on providers that support it; preserved through projection. */
  readonly deferLoading?: boolean
  /**
   * The tool's model-facing budget: a successful result whose text exceeds `maxChars` characters
   * is cut with a marker naming a handle, and its full text is kept in the registry's result
   * store (`ToolRegistryConfig.resultBudget`). Replaces `contentLimits` for this tool. The value
   * is never cut. See `ToolResultBudget`.
   */
  readonly resultBudget?: ToolResultBudget
  /** `false` skips argument validation (a raw tool whose server validates for itself). */
  readonly validateArguments?: boolean
  /**
   * Extra synchronous argument check at prepare, after the JSON Schema validation (which
   * `validateArguments: false` skips; this check still runs). Returns the model-facing problem
   * (`/a: …; /b: …`), which becomes `INVALID_ARGS` (`Invalid arguments for tool "x": <problem>`),
   * or `undefined`. Standard Schema tools validate with their library here.
   */
  checkArguments?(args: Readonly<JsonObject>): string | undefined
  /** Authoring origin: `dsl` (defineTool), `raw` (JSON Schema as it came) or `standard` (a Standard Schema). */
  readonly source?: 'dsl' | 'raw' | 'standard'
}

/** A definition with its type parameters erased, as the registry stores it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- variance erasure for storage
export type AnyToolDefinition = ToolDefinition<any, any>

/** The model-facing projection of a definition (never `output`, `execute`, callbacks). */
export interface ToolSchema {
  readonly name: string
  readonly description: string
  readonly parameters: JsonSchemaNode
  readonly deferLoading?: true
}

/**
 * An append-only session log (docs/design.md, "The batch and the pipeline": the session log
 * records rendered content and presentation metadata, never canonical values).
 */
export interface SessionLog {
  append(event: SessionEvent): void
}

/** Events appended to a session log, in model order. */
export type SessionEvent =
  | {
      readonly type: 'tool/call'
      readonly callId: string
      readonly name: string
      /** Arguments exactly as the model emitted them. */
      readonly arguments: string | JsonValue
      readonly parentCallId?: string
    }
  | {
      readonly type: 'tool/result'
      readonly callId: string
      readonly name: string
      readonly isError: boolean
      readonly content: readonly ContentBlock[]
      readonly error?: { readonly message: string; readonly info: ToolErrorInfo }
      readonly presentation?: JsonValue
      readonly parentCallId?: string
    }
  | {
      readonly type: 'tool/code-dispatch-start'
      readonly callId: string
      readonly parentCallId: string
      readonly name: string
      readonly arguments: JsonValue
    }
  | {
      readonly type: 'tool/code-dispatch'
      readonly callId: string
      readonly parentCallId: string
      readonly name: string
      readonly isError: boolean
      readonly content: readonly ContentBlock[]
      readonly error?: { readonly message: string; readonly info: ToolErrorInfo }
    }

/** The three scope layers (docs/design.md, "Scopes"). */
export type ScopeKind = 'deployment' | 'preset' | 'agent'

/** A scope: a node in the deployment → preset → agent chain. Identity matters. */
export interface Scope {
  readonly id: string
  readonly kind: ScopeKind
  readonly parent: Scope | undefined
}

/** An agent: a scope plus an optional session log (docs/design.md, "Scopes"). */
export interface Agent {
  readonly id: string
  readonly scope: Scope
  readonly log?: SessionLog
}

/** Provider, model and reasoning effort captured for a model step (docs/design.md, "The registry"). */
export interface ModelSelection {
  readonly provider: string
  readonly model: string
  readonly reasoningEffort?: string
}

/** Input of a `when` condition and of `resolve`. */
export interface ActivationInput {
  readonly agent?: Agent
  readonly modelSelection?: ModelSelection
  readonly signal: AbortSignal
}

/** A conditional tool's predicate: runs once per model step inside `resolve`. */
export type ToolCondition = (input: ActivationInput) => boolean | Promise<boolean>

/**
 * The execution view a body, its wrappers and its policies see. Everything is read-only
 * except `signal`, which only a `tools/execute` wrapper may replace (docs/design.md, "The batch and the pipeline", step 3).
 */
export interface ToolExecution {
  readonly callId: string
  /** Opaque correlation token, unique per call (minted when first read). */
  readonly token: symbol
  readonly name: string
  /**
   * Parsed, lossless, deep-frozen arguments. Like every field here but `signal`, read-only at
   * run time too: assigning it throws a `TypeError` (a `tools/pre-execute` listener then fails
   * closed, a wrapper fails its call), so the body runs with what was validated and logged.
   */
  readonly arguments: Readonly<JsonObject>
  /** Arguments as the model emitted them. */
  readonly rawArguments: string | JsonValue
  /** The abort signal. Writable only inside a `tools/execute` wrapper. */
  signal: AbortSignal
  readonly definition: AnyToolDefinition
  readonly scope: Scope
  readonly agent?: Agent | undefined
  readonly log?: SessionLog | undefined
  /** The outer execution for PTC sub-calls. */
  readonly parent?: ToolExecution | undefined
  /** The `ctx.tools.execute()` batch this call belongs to (`batch-<n>`); absent for PTC sub-calls (see `parent`). */
  readonly batchId?: string | undefined
  /**
   * In a durable batch (`ToolBatch.durable`): the call's stable key, `<batch key>/<callId>` (a PTC
   * sub-call's: `<parent call's key>/<sub-call id>`), the same on every retry and every replay of
   * the call, so a body can hand it to a downstream API that deduplicates (a payment's
   * idempotency key). `undefined` outside a durable batch.
   */
  readonly idempotencyKey?: string | undefined
  /**
   * In a durable batch: when the call first started (epoch ms), as its journal recorded it, the
   * same on a replay after a restart; the timeout policy measures deadlines from it. `undefined`
   * outside a durable batch and before the call's start was journaled (pre-execute listeners).
   */
  readonly durableStartedAt?: number | undefined
  /**
   * Set for a model-direct call of a suspendable or resumed batch (`ctx.tools.executeSuspendable`,
   * `ctx.tools.resume`): lets a body that runs calls of its own (PTC's `run_code`) end its call as
   * pending on their deferred approvals and be resumed later from its own journal. See
   * {@link CallSuspension}. `undefined` elsewhere (plain batches, PTC sub-calls).
   */
  readonly suspension?: CallSuspension | undefined
  /**
   * Appends model-facing context after this call's result (docs/design.md, "PTC executor": a successful
   * image-bearing PTC sub-result "is appended after the outer result as source-attributed
   * context"). Contexts attached by the body come before those post-execute attaches.
   */
  attachContext(context: ResultContext): void
  /**
   * Reports progress of a long body as a `tools/progress` event for UIs and logs; never model
   * content. Throttled per call (`progressIntervalMs` in the registry config, default 100 ms):
   * the first update goes out at once, later ones within the interval are coalesced to the
   * latest, a pending one is delivered before the call's result, and reports after the body
   * settled are ignored (see `progress.ts`).
   *
   * @throws TypeError naming the tool and field when `update` is not
   *   `{ progress: finite number, total?: finite number, message?: string }`.
   */
  reportProgress(update: ToolProgress): void
  /**
   * Records non-model metadata with this call's result under `meta.annotations[key]` (a later
   * value for the same key replaces the earlier one). Wrappers use it, e.g. the retry policy
   * records its attempts. Annotations made after the result was built are ignored.
   *
   * @throws TypeError when `key` is empty or `value` is not lossless JSON.
   */
  annotate(key: string, value: JsonValue): void
}

/**
 * A `tools/pre-execute` decision (stage 2a of the pipeline: docs/pipeline.md, "Stage table"). A `deny` reason is the whole
 * model-facing message, verbatim (`Error: <reason>`; an empty reason falls back to
 * `Tool "x" was denied`); `info` replaces the default `{ name: 'PolicyDenied', code:
 * 'TOOL_DENIED', toolName }`. Without an approval service, an `ask` reason is shown the same
 * way (`Tool "x" needs approval and no approval service is available` without one).
 */
export type PolicyDecision =
  | { readonly type: 'allow' }
  | { readonly type: 'deny'; readonly reason: string; readonly info?: ToolErrorInfo }
  | { readonly type: 'ask'; readonly reason?: string }

/**
 * An approval service's answer to an `ask`. A rejection's `reason` is the model-facing message
 * verbatim (`Tool "x" was not approved` without one) and is also kept as `error.info.reason`.
 * `defer` says a person will answer later: in a batch started with
 * `ctx.tools.executeSuspendable()` (or resumed) the call is pending and the batch settles as
 * suspended (see `BatchOutcome`); in any other batch the call fails closed, `TOOL_DENIED` with
 * `info.name` `ApprovalDeferred`.
 * Any other answer (another `type`, a non-string `reason`, no object) fails closed like a
 * throwing service: `TOOL_DENIED`, `Tool "x" could not be checked by policy (approval): …`.
 */
export type ApprovalDecision =
  | { readonly type: 'approve' }
  | { readonly type: 'reject'; readonly reason?: string }
  | { readonly type: 'defer'; readonly reason?: string }

/** The approval service consulted for `ask` decisions (mounted at ctx key `approval`). */
export interface ApprovalService {
  request(request: ApprovalRequest): Promise<ApprovalDecision>
}

/** What an approval service is asked. */
export interface ApprovalRequest {
  readonly exec: ToolExecution
  readonly reason?: string
  readonly signal: AbortSignal
}

/**
 * A monotonic synchronous guard: a returned string denies the call (stage 2b, after
 * `tools/pre-execute`: docs/pipeline.md, "Stage table") with code `TOOL_DENIED` and is
 * the model-facing message verbatim (empty → `Tool "x" was denied`), with info `{ name:
 * 'GuardDenied', code: 'TOOL_DENIED', toolName }`. `undefined` lets it through. A guard that
 * throws denies the call too (fails closed, like a throwing policy): `TOOL_DENIED` with info
 * `{ name: 'PolicyError', code: 'TOOL_DENIED' }` and the message `Tool "x" could not be checked
 * by policy (guard): <what it threw>`.
 */
export type ToolGuard = (exec: ToolExecution) => string | undefined

/** The draft result post-execute policies inspect. */
export type DraftResult =
  | { readonly isError: false; readonly value: JsonValue; readonly content: readonly ContentBlock[] }
  | {
      readonly isError: true
      readonly error: { readonly message: string; readonly info: ToolErrorInfo }
      readonly content: readonly ContentBlock[]
    }

/**
 * A `tools/post-execute` decision: accept (optionally replacing `content` or `value`, never
 * both, and attaching contexts) or block with model-facing feedback.
 *
 * A block's `feedback` is content blocks (a string is shorthand for one text block): the
 * blocked result's content is exactly that feedback, and its `error.message` is derived from
 * it (text blocks joined with `\n`, any other block as `[<type> content]`). Empty feedback
 * (`''`, `[]`) gives the library message `Tool "x" result was blocked` as `Error: …` content.
 * The result has no `value`; `error.info` is `info` or `{ name: 'PolicyBlocked', code:
 * 'TOOL_BLOCKED', toolName }`.
 */
export type PostDecision =
  | {
      readonly type: 'accept'
      readonly content?: readonly ContentBlock[]
      readonly value?: JsonValue
      readonly contexts?: readonly ResultContext[]
    }
  | { readonly type: 'block'; readonly feedback: string | readonly ContentBlock[]; readonly info?: ToolErrorInfo }

/**
 * One call as the model emitted it (docs/design.md, "The batch and the pipeline"), read at
 * prepare as follows:
 *
 * - `arguments` as JSON text (OpenAI, DeepSeek and most OpenAI-compatible servers): parsed once.
 *   `""` or only whitespace means `{}`; a byte-order mark, zero-width space or word joiner
 *   around the text is removed and noted in `result.meta.repairs`; text over
 *   `maxArgumentBytes`, text that is not JSON, cut-off JSON, and JSON that is not an object
 *   (`null`, an array, a JSON-encoded string) are `INVALID_ARGS`.
 * - `arguments` as an object (Anthropic `tool_use.input`, Gemini `functionCall.args`): used as
 *   given, copied and frozen when the batch is submitted (a later change by the caller does
 *   not reach the call); a value that is not lossless JSON is `INVALID_ARGS`.
 * - `arguments` absent (`undefined`) is `""`, so `{}`; `null` or any other non-object value is
 *   `INVALID_ARGS` (`expected a JSON object, got null`).
 * - `callId` must be a non-empty string and `name` a string; otherwise the entry is malformed
 *   (`INVALID_ARGS`, `Invalid tool call at position <i>: …`, its result's `callId` is
 *   `invalid-call-<i>` when the entry has none). Call ids are carried as given and not checked
 *   for uniqueness: results pair with calls by position. The native executor's provider parsers
 *   give every call of a response a unique id (a repeated one becomes `<id>_2`, `<id>_3`, …;
 *   Gemini's mints a new one), so the next request pairs each call with exactly one result.
 */
export interface RawToolCall {
  readonly callId: string
  readonly name: string
  readonly arguments: string | JsonValue
}
