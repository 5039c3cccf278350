/**
 * The OpenAI Chat Completions wire format the parsers take (responses and stream chunks). The
 * fields the parsers read are typed; the other documented fields of the real API (`id`,
 * `object`, `created`, `model`, `usage`, `logprobs`, `refusal`, `annotations`, …) are listed as
 * optional `unknown`, so a real response written as an annotated object literal typechecks.
 * There is deliberately no index signature: the official SDK's types are interfaces, and an
 * interface is not assignable to a type with one, so SDK objects would stop fitting. A field
 * that a server adds beyond the documented ones (an OpenAI-compatible gateway's own) is refused
 * only in a literal; a value held in a variable (parsed JSON, an SDK object) is accepted.
 * Fields are optional because OpenAI-compatible servers omit some of them.
 * Source: OpenAI API reference, "Chat Completions" and "Chat streaming".
 */
import type { JsonValue } from '@deepseek-ai/dsh-tools'

/** One tool call in an assistant message. `arguments` is a JSON string (some servers send an object). */
export interface OpenAIChatToolCallWire {
  readonly id?: string | null
  readonly type?: string
  readonly function?: { readonly name?: string | null; readonly arguments?: string | JsonValue } | null
  /** A custom tool's call (`type: 'custom'`); not read. */
  readonly custom?: unknown
}

/** An assistant message of a completion. */
export interface OpenAIChatMessageWire {
  readonly role?: string
  readonly content?: string | null | readonly { readonly type?: string; readonly text?: string }[]
  readonly tool_calls?: readonly OpenAIChatToolCallWire[] | null
  /** Reasoning text: DeepSeek, vLLM and SGLang send `reasoning_content`; OpenRouter, Ollama and llama.cpp `reasoning`. */
  readonly reasoning_content?: string | null
  readonly reasoning?: string | null
  /** The legacy functions API (one call, no id). */
  readonly function_call?: { readonly name?: string | null; readonly arguments?: string | null } | null
  /** Documented fields the parsers do not read. */
  readonly refusal?: unknown
  readonly annotations?: unknown
  readonly audio?: unknown
}

/** Documented fields of a chat completion and of a streamed chunk that the parsers do not read (typed `unknown`, so a real response written as a literal typechecks). */
export interface OpenAIChatUnreadFieldsWire {
  readonly id?: unknown
  readonly object?: unknown
  readonly created?: unknown
  readonly model?: unknown
  readonly usage?: unknown
  readonly service_tier?: unknown
  readonly system_fingerprint?: unknown
}

/** A complete (non-streamed) chat completion. */
export interface OpenAIChatCompletionWire extends OpenAIChatUnreadFieldsWire {
  readonly choices: readonly {
    readonly index?: number
    readonly finish_reason?: string | null
    readonly message?: OpenAIChatMessageWire | null
    readonly logprobs?: unknown
  }[]
  /** Documented fields the parsers do not read (and those of {@link OpenAIChatUnreadFieldsWire}). */
  readonly metadata?: unknown
  readonly moderation?: unknown
}

/** One fragment of a streamed tool call; `index` identifies the call across chunks. */
export interface OpenAIChatToolCallDeltaWire {
  readonly index?: number
  readonly id?: string | null
  readonly type?: string
  readonly function?: { readonly name?: string | null; readonly arguments?: string | JsonValue | null } | null
  /** A custom tool's call fragment; not read. */
  readonly custom?: unknown
}

/** One streamed chunk (`chat.completion.chunk`). A usage-only chunk has `choices: []`. */
export interface OpenAIChatChunkWire extends OpenAIChatUnreadFieldsWire {
  readonly choices?: readonly {
    readonly index?: number
    readonly finish_reason?: string | null
    readonly delta?: {
      readonly role?: string
      readonly content?: string | null
      readonly reasoning_content?: string | null
      readonly reasoning?: string | null
      readonly tool_calls?: readonly OpenAIChatToolCallDeltaWire[] | null
      /** Documented fields the parsers do not read. */
      readonly refusal?: unknown
      readonly function_call?: unknown
      readonly audio?: unknown
    } | null
    readonly logprobs?: unknown
  }[]
  /** Documented fields the parsers do not read (and those of {@link OpenAIChatUnreadFieldsWire}). */
  readonly obfuscation?: unknown
  readonly moderation?: unknown
}
