/**
 * The parts of the OpenAI Chat Completions wire format the parsers read (responses and stream
 * chunks). Fields are optional because OpenAI-compatible servers omit some of them.
 * Source: OpenAI API reference, "Chat Completions" and "Chat streaming".
 */
import type { JsonValue } from '@deepseek-ai/dsh-tools'

/** One tool call in an assistant message. `arguments` is a JSON string (some servers send an object). */
export interface OpenAIChatToolCallWire {
  readonly id?: string | null
  readonly type?: string
  readonly function?: { readonly name?: string | null; readonly arguments?: string | JsonValue } | null
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
}

/** A complete (non-streamed) chat completion. */
export interface OpenAIChatCompletionWire {
  readonly choices: readonly {
    readonly index?: number
    readonly finish_reason?: string | null
    readonly message?: OpenAIChatMessageWire | null
  }[]
}

/** One fragment of a streamed tool call; `index` identifies the call across chunks. */
export interface OpenAIChatToolCallDeltaWire {
  readonly index?: number
  readonly id?: string | null
  readonly type?: string
  readonly function?: { readonly name?: string | null; readonly arguments?: string | JsonValue | null } | null
}

/** One streamed chunk (`chat.completion.chunk`). A usage-only chunk has `choices: []`. */
export interface OpenAIChatChunkWire {
  readonly choices?: readonly {
    readonly index?: number
    readonly finish_reason?: string | null
    readonly delta?: {
      readonly role?: string
      readonly content?: string | null
      readonly reasoning_content?: string | null
      readonly reasoning?: string | null
      readonly tool_calls?: readonly OpenAIChatToolCallDeltaWire[] | null
    } | null
  }[]
}
