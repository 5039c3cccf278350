/**
 * Shared types of the provider wire formats: conversion reports, parse results and the
 * truncation contract (docs/design.md, "Native executor and provider formats": declarations in
 * the providers' wire shapes, and their emissions turned into a raw batch).
 */
import type { JsonObject, JsonValue, PromptSection, RawToolCall, ToolSchema } from '@deepseek-ai/dsh-tools'
import type { NameMap, NameMapEntry } from './names'

/** The wire formats this module speaks. `deepseek` is OpenAI-compatible chat with DeepSeek's limits. */
export type WireProvider = 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini' | 'deepseek' | 'openai-compatible'

/**
 * What the declaration builders read: an executor description (`describe()`), or any `{ tools }`.
 * The tools-only builders (`toOpenAIChatTools`, …) declare `tools` and report each of `sections`
 * as a `SECTIONS_DROPPED` warning (a PTC executor's SDK belongs in the system prompt); the
 * request helpers (`toOpenAIChatRequest`, …) return them as `system`.
 */
export interface DeclarationInput {
  readonly tools: readonly ToolSchema[]
  /** The executor's prompt sections (`describe().sections`; the PTC executor's SDK). */
  readonly sections?: readonly PromptSection[]
}

/**
 * Options every declaration builder takes.
 */
export interface DeclarationOptions {
  /**
   * The provider names this conversation already used: the previous declaration's `nameMap`, or
   * its persisted `entries` (`nameMap.entries`, plain JSON). Names once given stay: a tool keeps
   * the provider name it had, and a newcomer whose name would clash with one given earlier (even
   * to a tool no longer declared) gets the rewritten form, so the history never points at another
   * tool. The result's `nameMap` holds the given entries first, then the new ones: pass it to the
   * next declaration. Absent: names depend only on the tools declared now. Anything else throws a
   * `TypeError` (`names must be a NameMap (a declaration's nameMap) or its entries array, got …`,
   * `names: entry 0 must be { original, wire } with non-empty strings, got …`); two entries with
   * one original or one wire name throw the `RangeError` of `nameMapFromEntries`.
   */
  readonly names?: NameMap | readonly NameMapEntry[]
}

/**
 * Why a declaration differs from the tool's schema. Each warning is one change.
 *
 * - `NAME_MAPPED`: the name breaks the provider's name rule and was rewritten (the name map turns it back).
 * - `REF_INLINED`: a local `$ref` was replaced by its target.
 * - `REF_RECURSIVE`: a recursive `$ref` could not be inlined; it was kept through `$defs` or degraded.
 * - `REF_UNRESOLVED`: a `$ref` that does not resolve locally was replaced by an unconstrained schema.
 * - `DEFS_REMOVED`: `$defs`/`definitions` removed after inlining.
 * - `ROOT_NORMALIZED`: the root was made a plain `type: "object"` schema (type or properties added, keywords removed).
 * - `ROOT_COMBINATOR_MERGED`: a root `allOf`/`anyOf`/`oneOf` was merged into one object.
 * - `ROOT_COMBINATOR_DROPPED`: a root combinator (or a branch of it) that is not an object was dropped.
 * - `TYPE_ARRAY_REWRITTEN`: a `type` array became `anyOf` branches or a `nullable` flag.
 * - `NULLABLE_REWRITTEN`: a `null` branch or enum member became the provider's nullable form.
 * - `COMBINATOR_REWRITTEN`: a nested `oneOf` became `anyOf`, an `allOf` was merged, or a single branch hoisted.
 * - `ENUM_REWRITTEN`: an enum or `const` the provider cannot carry became a string enum or description text.
 * - `KEYWORD_DROPPED`: a keyword the provider rejects was removed.
 * - `KEYWORD_REWRITTEN`: a keyword was rewritten into a supported one (e.g. `exclusiveMinimum` → `minimum`).
 * - `VALUE_DEGRADED`: a node the provider cannot express was widened (any-value, free-form object, tuple, `false`).
 * - `PROPERTY_DROPPED`: a property whose schema cannot be expressed at all was removed.
 * - `PARAMETERS_OMITTED`: a tool without parameters is declared without a `parameters` field (Gemini).
 * - `STRICT_NULLABLE`: strict mode made an optional property required and nullable (enable null-as-absent repair; bug case B11).
 * - `STRICT_UNAVAILABLE`: strict mode was requested but the schema cannot be strict; sent with `strict: false`.
 * - `DEFER_LOADING_DROPPED`: `deferLoading` is not carried by this provider's declaration.
 * - `SECTIONS_DROPPED`: the input had prompt sections (the PTC executor's SDK) and a tools-only
 *   builder left them out; `tool` is the section id, `pointer` `/sections/<i>`. Use the
 *   provider's request helper (`toOpenAIChatRequest`, …), whose `system` holds them.
 */
export type ConversionWarningCode =
  | 'NAME_MAPPED'
  | 'REF_INLINED'
  | 'REF_RECURSIVE'
  | 'REF_UNRESOLVED'
  | 'DEFS_REMOVED'
  | 'ROOT_NORMALIZED'
  | 'ROOT_COMBINATOR_MERGED'
  | 'ROOT_COMBINATOR_DROPPED'
  | 'TYPE_ARRAY_REWRITTEN'
  | 'NULLABLE_REWRITTEN'
  | 'COMBINATOR_REWRITTEN'
  | 'ENUM_REWRITTEN'
  | 'KEYWORD_DROPPED'
  | 'KEYWORD_REWRITTEN'
  | 'VALUE_DEGRADED'
  | 'PROPERTY_DROPPED'
  | 'PARAMETERS_OMITTED'
  | 'STRICT_NULLABLE'
  | 'STRICT_UNAVAILABLE'
  | 'DEFER_LOADING_DROPPED'
  | 'SECTIONS_DROPPED'

/**
 * One change made while converting a tool. `pointer` is an RFC 6901 JSON pointer into the
 * tool's {@link ToolSchema} as given (`/name`, `/parameters/properties/a/type`, …); a change
 * inside an inlined `$ref` target points at the target's own location (`/parameters/$defs/…`).
 */
export interface ConversionWarning {
  readonly tool: string
  readonly pointer: string
  readonly code: ConversionWarningCode
  readonly message: string
}

/**
 * Why a tool was left out of a declaration (only that tool; the rest are still declared).
 *
 * - `NAME_INVALID`: an empty or non-string name.
 * - `NAME_DUPLICATE`: the same name appears twice in the input.
 * - `SCHEMA_UNSUPPORTED`: the parameters cannot describe an object (`false`, `type: "string"`, not JSON, …).
 * - `SCHEMA_TOO_LARGE`: inlining `$ref`s would produce more than {@link MAX_INLINED_NODES} nodes.
 */
export type ConversionErrorCode = 'NAME_INVALID' | 'NAME_DUPLICATE' | 'SCHEMA_UNSUPPORTED' | 'SCHEMA_TOO_LARGE'

/** A tool excluded from a declaration, with the pointer of the offending part. */
export interface ConversionError {
  readonly tool: string
  readonly pointer: string
  readonly code: ConversionErrorCode
  readonly message: string
}

/** Upper bound on schema nodes produced while inlining one tool's `$ref`s. */
export const MAX_INLINED_NODES = 20_000

/**
 * The result of a declaration builder: the provider tools (in input order, excluded tools
 * left out), the reversible name map, every change and every exclusion.
 * The local validator keeps enforcing each tool's original schema: declarations are only
 * what is sent to the provider.
 */
export interface Declarations<T> {
  /**
   * Fresh plain objects, not frozen, so they can be passed to an SDK's `tools` field as they are
   * (`@google/genai` rewrites declaration schemas in place). Each call builds new ones.
   */
  readonly tools: T[]
  readonly nameMap: NameMap
  readonly warnings: readonly ConversionWarning[]
  readonly errors: readonly ConversionError[]
}

/**
 * How the model's turn ended, normalized:
 * `tool-calls` (stopped to call tools), `stop` (final answer or stop sequence), `length` (an output
 * token limit: OpenAI `length`, Responses `incomplete`/`max_output_tokens`, Anthropic `max_tokens`
 * or `model_context_window_exceeded`, Gemini `MAX_TOKENS`), `filtered` (content filter, safety,
 * refusal), `malformed` (the provider itself rejected a malformed call, e.g. Gemini
 * `MALFORMED_FUNCTION_CALL`), `other`, `missing` (a stream ended without one).
 */
export type FinishKind = 'tool-calls' | 'stop' | 'length' | 'filtered' | 'malformed' | 'other' | 'missing'

/** The normalized finish plus the provider's raw value (absent when there was none). */
export interface FinishInfo {
  readonly kind: FinishKind
  readonly raw?: string
}

/**
 * A call that must not run because the response was cut (bug case B22, emissions E10/E11):
 * - `arguments-incomplete`: its JSON arguments end before the value is complete;
 * - `response-cut`: its arguments are complete but the response ended at the output limit (or
 *   without a finish), so the batch is incomplete and no call of it is executed.
 * `arguments` holds what arrived. `message` is the model-facing explanation used by
 * `truncatedCallResults`; it quotes the tool by the name the model emitted (the provider name,
 * `math_factorial`), while `name` is the registry name the parser's `nameMap` gave back.
 */
export interface TruncatedCall extends RawToolCall {
  readonly reason: 'arguments-incomplete' | 'response-cut'
  readonly message: string
}

/**
 * Tool-call markup found in assistant text while the response carried no structured calls
 * (emission E19): the text is not a final answer. `marker` names the dialect
 * (`dsml`, `deepseek-v3`, `hermes`, `function-tag`, `xml-invoke`, `json-tool-calls`, `mistral`,
 * `llama-python-tag`, `kimi`, `harmony`); `offset` is the UTF-16 index in `text`.
 */
export interface LeakedMarkup {
  /** The dialect, e.g. `dsml`, `hermes`, `harmony` (see `detectLeakedMarkup`). */
  readonly marker: string
  /** Where it starts in the text, in UTF-16 code units. */
  readonly offset: number
  /** Up to 20 code units before and 80 after `offset`, for logs. */
  readonly excerpt: string
}

/** Something in the emission that was repaired or ignored while parsing (a missing id minted, …). */
export interface ParseIssue {
  readonly pointer: string
  readonly message: string
}

/**
 * How a call's id in the batch differs from what the provider emitted. The batch, the results
 * and the assistant turn all use `callId`, so the next request pairs every call with exactly one
 * result even when the provider repeated an id or sent none.
 *
 * - `missing`: no id was sent; one was minted (`call_0`, `toolu_0`, `gemini_call_0`, …: the
 *   provider's prefix and the call's position, skipping any id present in the response).
 * - `duplicate`: an earlier call of the same response already used `emitted`; this call is
 *   `<emitted>_2` (`_3`, …, skipping ids present in the response). Gemini, whose pairing is by
 *   name and order, mints a `gemini_call_<n>` id instead.
 */
export interface CallIdChange {
  /** The call's position in `calls` (or `truncated`). */
  readonly index: number
  /** JSON pointer of the id field in the emission. */
  readonly pointer: string
  /** The id the provider sent; `undefined` when it sent none (`reason: 'missing'`). */
  readonly emitted: string | undefined
  /** The id the batch, its results and the rebuilt assistant turn use. */
  readonly callId: string
  readonly reason: 'missing' | 'duplicate'
}

/**
 * One piece of the assistant's turn as the provider emitted it, in order, with the ids the
 * batch uses — what the assistant-turn builders (`toOpenAIChatAssistantMessage`, …) rebuild.
 *
 * - `text`: visible text (`signature`: Gemini's `thoughtSignature` on the part);
 * - `reasoning`: reasoning / thinking text (`signature`: Anthropic's thinking signature or
 *   Gemini's `thoughtSignature`);
 * - `opaque`: an item the provider wants back verbatim (Anthropic `redacted_thinking`, a
 *   Responses `reasoning` item);
 * - `call`: a tool call with the provider-side name and the arguments as emitted (`emittedId`:
 *   the id the provider sent, if any; `itemId`: the Responses item id; `signature`: Gemini's
 *   `thoughtSignature`).
 */
export type AssistantPart =
  | { readonly type: 'text'; readonly text: string; readonly signature?: string }
  | { readonly type: 'reasoning'; readonly text: string; readonly signature?: string }
  | { readonly type: 'opaque'; readonly item: JsonObject }
  | {
      readonly type: 'call'
      readonly callId: string
      readonly wireName: string
      readonly arguments: string | JsonValue
      readonly emittedId?: string
      readonly itemId?: string
      readonly signature?: string
    }

/** The markup families whose well-formed calls are recovered from text. */
export type RecoveredMarker = 'dsml' | 'hermes' | 'harmony'

/** Where a recovered call was written in the emitted `text` (UTF-16 offsets, end exclusive). */
export interface RecoveredCall {
  readonly callId: string
  readonly marker: RecoveredMarker
  readonly offset: number
  readonly end: number
}

/**
 * Tool-call markup in the text that could not be turned into calls: a malformed block of a
 * recovered family (`dsml`, `hermes`, `harmony`) or a dialect that is detected but not parsed
 * (see {@link LeakedMarkup}). `message` says what is wrong, for the model.
 */
export interface MarkupError {
  /** The dialect that failed, e.g. `dsml`, `hermes`, `harmony`, or another `detectLeakedMarkup` marker. */
  readonly marker: string
  /** Where it starts in the text, in UTF-16 code units. */
  readonly offset: number
  /** What was wrong, one line; joined into the model-facing text by `markupErrorMessage`. */
  readonly message: string
}

interface ParsedBase {
  readonly provider: WireProvider
  /** Assistant text as emitted, in order (reasoning/thinking excluded; markup included). */
  readonly text: string
  /** Reasoning / thinking text as emitted, in order (`reasoning_content`, thinking blocks, thought parts, reasoning summaries). */
  readonly reasoning: string
  readonly finish: FinishInfo
  /** Tool-call markup in `text` when there are no structured calls; empty otherwise. */
  readonly leakedMarkup: readonly LeakedMarkup[]
  readonly issues: readonly ParseIssue[]
  /**
   * Every call whose id differs from the emitted one (minted or made unique), in call order;
   * empty when every id was sent and unique. Log or show it; the assistant-turn builders
   * (`toOpenAIChatAssistantMessage`, …) already write the new ids, so history and results agree.
   */
  readonly callIdChanges: readonly CallIdChange[]
  /** The assistant turn as emitted, with the batch's ids: input of the assistant-turn builders. */
  readonly turn: readonly AssistantPart[]
}

/**
 * Every call is complete: pass `calls` to `ctx.tools.execute({ calls })`. No calls and
 * `finish.kind` `stop` is a final answer.
 */
export interface CompleteToolCalls extends ParsedBase {
  readonly status: 'complete'
  /** The raw batch in model order; names mapped back through the name map. */
  readonly calls: readonly RawToolCall[]
  readonly truncated: readonly []
}

/**
 * The response had no structured calls, but its text carried well-formed tool-call markup of a
 * recovered family (DeepSeek DSML invoke blocks, Hermes `<tool_call>{…}</tool_call>`, gpt-oss
 * harmony `to=functions.<name> … <|message|>{…}`): `calls` are those calls, runnable like a
 * complete batch; `recovered` says where each was written. The assistant turn rebuilds them
 * as structured calls (the markup is left out of its text).
 */
export interface RecoveredToolCalls extends ParsedBase {
  readonly status: 'recovered'
  readonly calls: readonly RawToolCall[]
  readonly truncated: readonly []
  readonly recovered: readonly RecoveredCall[]
}

/**
 * The text carried tool-call markup that could not be turned into calls (malformed, or a
 * dialect that is not parsed): NOT a final answer, and nothing runs. Answer the model with
 * {@link markupErrorMessage} (e.g. as a user message after the assistant turn) and ask again.
 */
export interface MalformedMarkupToolCalls extends ParsedBase {
  readonly status: 'malformed-markup'
  readonly calls: readonly []
  readonly truncated: readonly []
  readonly markupErrors: readonly MarkupError[]
}

/**
 * The response was cut (output limit, a stream without a finish, or incomplete argument JSON):
 * nothing may run; answer each call with `truncatedCallResults`. A cut response without tool
 * calls has an empty `truncated` list (its text was cut).
 */
export interface TruncatedToolCalls extends ParsedBase {
  readonly status: 'truncated'
  readonly calls: readonly []
  /** Every emitted call in model order, each with why it was not executed. */
  readonly truncated: readonly TruncatedCall[]
}

/**
 * A parsed provider emission, discriminated by `status`: `complete`, `recovered` (calls found
 * in the text), `malformed-markup` (markup in the text that is not a call and not an answer),
 * `truncated`. Only `complete` without calls can be a final answer.
 */
export type ParsedToolCalls = CompleteToolCalls | RecoveredToolCalls | MalformedMarkupToolCalls | TruncatedToolCalls

/** Options shared by the emission parsers. */
export interface ParseOptions {
  /** Maps provider-side names back to tool names (from the declaration). Unknown names pass through. */
  readonly nameMap?: NameMap
  /**
   * What to do with tool-call markup in the text of a response without structured calls:
   * `true` (default) recovers well-formed calls (`recovered`) and reports the rest
   * (`malformed-markup`); `false` only lists it in `leakedMarkup` and keeps `complete`.
   */
  readonly recoverMarkup?: boolean
}

/** Thrown when an emission is not the provider's shape at all (not for model mistakes). */
export class ProviderFormatError extends TypeError {
  override readonly name = 'ProviderFormatError'
  /** JSON pointer into the emission. */
  readonly pointer: string
  constructor(provider: WireProvider, pointer: string, expected: string, got: unknown) {
    super(`${provider}: ${pointer || '/'}: expected ${expected}, got ${describeValue(got)}`)
    this.pointer = pointer
  }
}

/** Thrown by the result-message builders when calls and results do not pair up one to one. */
export class ResultPairingError extends Error {
  override readonly name = 'ResultPairingError'
  readonly callId: string
  constructor(message: string, callId: string) {
    super(message)
    this.callId = callId
  }
}

function describeValue(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object') {
    const error = (value as { error?: { message?: unknown } }).error
    if (error && typeof error.message === 'string') return `an object (an error response? error.message: ${JSON.stringify(error.message)})`
    return 'an object'
  }
  return typeof value === 'string' ? `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}` : String(value)
}

/** A provider tool-schema object after sanitizing (plain JSON). */
export type SanitizedSchema = JsonObject
