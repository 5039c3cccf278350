/**
 * The assistant-turn builder for Anthropic Messages: the `role: "assistant"` message that goes
 * into the next request before the `tool_result` message, rebuilt from a parsed message or a
 * finished stream. With extended thinking, the thinking blocks (and their signatures) must be
 * sent back unchanged in a tool-use turn; they are.
 */
import type { JsonObject } from '@deepseek-ai/dsh-tools'
import { argumentsObject } from '../turn'
import type { ParsedToolCalls } from '../types'

/** A content block of the rebuilt assistant message. */
export type AnthropicAssistantBlock =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'thinking'; readonly thinking: string; readonly signature: string }
  | { readonly type: 'tool_use'; readonly id: string; readonly name: string; readonly input: JsonObject }
  | { readonly type: 'redacted_thinking'; readonly data: string }

/** The rebuilt assistant message. */
export interface AnthropicAssistantMessage {
  readonly role: 'assistant'
  readonly content: AnthropicAssistantBlock[]
}

/**
 * Rebuilds the assistant message of `parsed` in block order: `thinking` blocks with their
 * signature (a thinking block without one cannot be sent back and is left out),
 * `redacted_thinking` with its data, text blocks, and one `tool_use` per call with the batch's id
 * (minted or de-duplicated, so `toAnthropicToolResultMessage` pairs 1:1). `input` is the object
 * the model sent; streamed argument text is decoded, and text that is not a complete JSON
 * object (a cut call) becomes `{}`. The shape follows Anthropic's Messages API (an assistant
 * turn with `tool_use` blocks must be sent back unchanged, thinking signatures included). Pure;
 * never throws.
 */
export function toAnthropicAssistantMessage(parsed: ParsedToolCalls): AnthropicAssistantMessage {
  const content: AnthropicAssistantBlock[] = []
  for (const part of parsed.turn) {
    if (part.type === 'text' && part.text !== '') content.push({ type: 'text', text: part.text })
    else if (part.type === 'reasoning' && part.signature !== undefined) content.push({ type: 'thinking', thinking: part.text, signature: part.signature })
    else if (part.type === 'opaque' && typeof part.item.data === 'string') content.push({ type: 'redacted_thinking', data: part.item.data })
    else if (part.type === 'call') content.push({ type: 'tool_use', id: part.callId, name: part.wireName, input: argumentsObject(part.arguments) })
  }
  return { role: 'assistant', content }
}
