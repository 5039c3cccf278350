/**
 * The assistant-turn builder for the Responses API: the output items that go back into the next
 * request's `input` before the `function_call_output` items (when `previous_response_id` is
 * not used), rebuilt from a parsed response or a finished stream.
 */
import type { JsonObject } from '@deepseek-ai/dsh-tools'
import { argumentsText } from '../turn'
import type { ParsedToolCalls } from '../types'

/** An assistant text message as input (`EasyInputMessage`). */
export interface OpenAIResponsesAssistantMessageInput {
  readonly type: 'message'
  readonly role: 'assistant'
  readonly content: string
}

/** A `function_call` input item, with the `call_id` the outputs use. */
export interface OpenAIResponsesFunctionCallInput {
  readonly type: 'function_call'
  readonly call_id: string
  readonly name: string
  readonly arguments: string
  /** The item id (`fc_…`) when the response had one. */
  readonly id?: string
}

/** A `reasoning` item sent back: its id, summary and (when it was requested) `encrypted_content`. */
export interface OpenAIResponsesReasoningInput {
  readonly type: 'reasoning'
  readonly id: string
  readonly summary: { readonly type: 'summary_text'; readonly text: string }[]
  readonly encrypted_content?: string
}

/** One item of the rebuilt turn. */
export type OpenAIResponsesAssistantItem = OpenAIResponsesAssistantMessageInput | OpenAIResponsesFunctionCallInput | OpenAIResponsesReasoningInput

/**
 * Rebuilds the turn of `parsed` as input items in output order: `reasoning` items (id,
 * summary, and `encrypted_content` when it was requested), text as an assistant message, and one
 * `function_call` per call with the batch's `call_id` (minted or de-duplicated ids included,
 * so `toOpenAIResponsesOutputs` pairs 1:1). The shapes are the OpenAI Responses API input
 * items; send them before the `function_call_output` items. Pure; never throws.
 */
export function toOpenAIResponsesAssistantItems(parsed: ParsedToolCalls): OpenAIResponsesAssistantItem[] {
  return parsed.turn.map((part): OpenAIResponsesAssistantItem => {
    if (part.type === 'opaque') return reasoningInput(part.item)
    if (part.type === 'call') {
      return { type: 'function_call', call_id: part.callId, name: part.wireName, arguments: argumentsText(part.arguments), ...(part.itemId !== undefined ? { id: part.itemId } : {}) }
    }
    return { type: 'message', role: 'assistant', content: part.text }
  }).filter((item) => !(item.type === 'message' && item.content === ''))
}

function reasoningInput(item: JsonObject): OpenAIResponsesReasoningInput {
  const summary = Array.isArray(item.summary) ? item.summary : []
  return {
    type: 'reasoning',
    id: typeof item.id === 'string' ? item.id : '',
    summary: summary.flatMap((s) => (typeof s === 'object' && s !== null && !Array.isArray(s) && typeof s.text === 'string' ? [{ type: 'summary_text' as const, text: s.text }] : [])),
    ...(typeof item.encrypted_content === 'string' ? { encrypted_content: item.encrypted_content } : {}),
  }
}
