/**
 * The assistant-turn builder for Chat Completions (also DeepSeek / OpenAI-compatible): the
 * `role: "assistant"` message that goes into the next request's history before the tool
 * messages, rebuilt from a parsed response or a finished stream.
 */
import { argumentsText, turnText } from '../turn'
import type { ParsedToolCalls } from '../types'

/** A tool call in an assistant message, with the id the tool messages use. */
export interface OpenAIChatAssistantToolCall {
  readonly id: string
  readonly type: 'function'
  readonly function: { readonly name: string; readonly arguments: string }
}

/**
 * The assistant message. `content` is `null` when the turn has tool calls and no text;
 * `tool_calls` is absent when it has none; `reasoning_content` only when asked for.
 */
export interface OpenAIChatAssistantMessage {
  readonly role: 'assistant'
  readonly content: string | null
  readonly tool_calls?: OpenAIChatAssistantToolCall[]
  readonly reasoning_content?: string
}

/** Options of {@link toOpenAIChatAssistantMessage}. */
export interface OpenAIChatAssistantOptions {
  /**
   * Send the reasoning back as `reasoning_content`. Default: `true` for `deepseek` and
   * `openai-compatible` parses that have reasoning (DeepSeek's thinking mode requires it within
   * a tool-calling turn), `false` for `openai-chat` (OpenAI does not take it).
   */
  readonly reasoning?: boolean
}

/**
 * Rebuilds the assistant message of `parsed`: its text, and one `tool_calls` entry per call with
 * the provider-side name, the arguments as emitted (an object is serialized) and the id the
 * batch uses — a minted or de-duplicated id, so `toOpenAIChatToolMessages` pairs 1:1. Calls
 * recovered from text become structured calls and the markup is left out of `content`; a cut
 * response keeps its calls, which `truncatedCallResults` answers. The shape is OpenAI Chat
 * Completions' assistant message (`role: 'assistant'`, `content`, `tool_calls[]`). Pure; never
 * throws.
 */
export function toOpenAIChatAssistantMessage(parsed: ParsedToolCalls, options: OpenAIChatAssistantOptions = {}): OpenAIChatAssistantMessage {
  const toolCalls: OpenAIChatAssistantToolCall[] = []
  for (const part of parsed.turn) {
    if (part.type === 'call') toolCalls.push({ id: part.callId, type: 'function', function: { name: part.wireName, arguments: argumentsText(part.arguments) } })
  }
  const text = turnText(parsed)
  const includeReasoning = options.reasoning ?? parsed.provider !== 'openai-chat'
  return {
    role: 'assistant',
    content: text === '' && toolCalls.length > 0 ? null : text,
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    ...(includeReasoning && parsed.reasoning !== '' ? { reasoning_content: parsed.reasoning } : {}),
  }
}
