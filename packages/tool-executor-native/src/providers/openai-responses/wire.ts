/**
 * The OpenAI Responses API as the parsers take it: output items and streaming events. The fields
 * the parsers read are typed; the other documented fields of the real API (`id`, `object`,
 * `model`, `usage`, `sequence_number`, …) are listed as optional `unknown`, so a real response
 * written as an annotated object literal typechecks. There is deliberately no index signature:
 * the official SDK's types are interfaces, and an interface is not assignable to a type with one.
 * Source: OpenAI API reference, "Responses" and "Responses streaming".
 */

/** A `function_call` output item. Results pair by `call_id`, not by the item `id` (emission E05). */
export interface OpenAIResponsesFunctionCallWire {
  readonly type: 'function_call'
  readonly id?: string
  readonly call_id?: string
  readonly name?: string
  readonly arguments?: string
  readonly status?: string
  /** Documented fields the parsers do not read. */
  readonly namespace?: unknown
  readonly caller?: unknown
}

/** A `message` output item. */
export interface OpenAIResponsesMessageWire {
  readonly type: 'message'
  readonly content?: readonly {
    readonly type?: string
    readonly text?: string
    /** Documented fields the parsers do not read (`refusal` on a refusal part). */
    readonly annotations?: unknown
    readonly logprobs?: unknown
    readonly refusal?: unknown
  }[]
  /** Documented fields the parsers do not read. */
  readonly id?: unknown
  readonly role?: unknown
  readonly status?: unknown
  readonly phase?: unknown
}

/** A `reasoning` output item (skipped by the parsers; the assistant-turn builder sends it back). */
export interface OpenAIResponsesReasoningWire {
  readonly type: 'reasoning'
  readonly id?: unknown
  readonly summary?: unknown
  readonly content?: unknown
  readonly encrypted_content?: unknown
  readonly status?: unknown
}

/** Any output item (others than a function call and a message are skipped). */
export type OpenAIResponsesOutputItemWire = OpenAIResponsesFunctionCallWire | OpenAIResponsesMessageWire | OpenAIResponsesReasoningWire | { readonly type: string }

/** A response object (non-streamed, or inside `response.completed`). */
export interface OpenAIResponsesResponseWire {
  readonly status?: string
  readonly incomplete_details?: { readonly reason?: string } | null
  readonly output?: readonly OpenAIResponsesOutputItemWire[]
  /** Documented fields the parsers do not read. */
  readonly id?: unknown
  readonly object?: unknown
  readonly created_at?: unknown
  readonly completed_at?: unknown
  readonly error?: unknown
  readonly instructions?: unknown
  readonly max_output_tokens?: unknown
  readonly max_tool_calls?: unknown
  readonly model?: unknown
  readonly output_text?: unknown
  readonly parallel_tool_calls?: unknown
  readonly previous_response_id?: unknown
  readonly conversation?: unknown
  readonly prompt?: unknown
  readonly prompt_cache_key?: unknown
  readonly prompt_cache_retention?: unknown
  readonly reasoning?: unknown
  readonly safety_identifier?: unknown
  readonly service_tier?: unknown
  readonly store?: unknown
  readonly background?: unknown
  readonly temperature?: unknown
  readonly text?: unknown
  readonly tool_choice?: unknown
  readonly tools?: unknown
  readonly top_logprobs?: unknown
  readonly top_p?: unknown
  readonly truncation?: unknown
  readonly usage?: unknown
  readonly user?: unknown
  readonly metadata?: unknown
}

/** One streaming event (the JSON of one SSE `data:` line). */
export interface OpenAIResponsesStreamEventWire {
  readonly type: string
  readonly output_index?: number
  readonly item_id?: string
  readonly item?: OpenAIResponsesOutputItemWire
  /** A string for text and argument deltas (other event kinds carry other shapes). */
  readonly delta?: unknown
  readonly arguments?: unknown
  readonly response?: OpenAIResponsesResponseWire
  /** Documented fields the parsers do not read. */
  readonly sequence_number?: unknown
  readonly content_index?: unknown
  readonly summary_index?: unknown
  readonly part?: unknown
  readonly text?: unknown
  readonly name?: unknown
  readonly logprobs?: unknown
  readonly obfuscation?: unknown
  readonly code?: unknown
  readonly message?: unknown
  readonly param?: unknown
}
