/**
 * The parts of the OpenAI Responses API the parsers read: output items and streaming events.
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
}

/** A `message` output item. */
export interface OpenAIResponsesMessageWire {
  readonly type: 'message'
  readonly content?: readonly { readonly type?: string; readonly text?: string }[]
}

/** Any output item (others, such as `reasoning`, are skipped). */
export type OpenAIResponsesOutputItemWire = OpenAIResponsesFunctionCallWire | OpenAIResponsesMessageWire | { readonly type: string }

/** A response object (non-streamed, or inside `response.completed`). */
export interface OpenAIResponsesResponseWire {
  readonly status?: string
  readonly incomplete_details?: { readonly reason?: string } | null
  readonly output?: readonly OpenAIResponsesOutputItemWire[]
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
}
