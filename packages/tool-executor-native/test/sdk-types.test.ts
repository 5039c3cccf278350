/**
 * Our declaration, assistant-turn and result types are assignable to the official SDKs' own
 * request types, and the SDKs' response and stream-event types are accepted by our parsers —
 * checked by the root typecheck (`tsc`), with no cast. The runtime part checks the same values
 * survive a JSON round trip unchanged (what the SDK puts on the wire).
 */
import { expect, test } from 'vitest'
import type OpenAI from 'openai'
import type Anthropic from '@anthropic-ai/sdk'
import type * as Gemini from '@google/genai'
import type { ToolResult, ToolSchema } from '@deepseek-ai/dsh-tools'
import {
  parseAnthropicMessage,
  parseAnthropicStream,
  parseGeminiResponse,
  parseGeminiStream,
  parseOpenAIChatCompletion,
  parseOpenAIChatStream,
  parseOpenAIResponse,
  parseOpenAIResponsesStream,
  toAnthropicAssistantMessage,
  toAnthropicToolResultMessage,
  toAnthropicTools,
  toDeepSeekTools,
  toGeminiFunctionResponses,
  toGeminiModelContent,
  toGeminiTools,
  toOpenAIChatAssistantMessage,
  toOpenAIChatToolMessages,
  toOpenAIChatTools,
  toOpenAIResponsesAssistantItems,
  toOpenAIResponsesOutputs,
  toOpenAIResponsesTools,
  type ParsedToolCalls,
} from '../src/providers'

const TOOLS: ToolSchema[] = [{ name: 'get.weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }]
const RESULTS: ToolResult[] = [{ callId: 'c1', isError: false, value: 'ok', content: [{ type: 'text', text: 'ok' }] }]
const CALLS = [{ callId: 'c1', name: 'get.weather', arguments: '{"city":"Oslo"}' }]

/** Each SDK's request-side types, filled from our builders with no cast. */
function requestSide(parsed: ParsedToolCalls) {
  const chatTools: OpenAI.Chat.ChatCompletionTool[] = toOpenAIChatTools({ tools: TOOLS }).tools
  const deepseekTools: OpenAI.Chat.ChatCompletionTool[] = toDeepSeekTools({ tools: TOOLS }).tools
  const chatMessages: OpenAI.Chat.ChatCompletionMessageParam[] = [toOpenAIChatAssistantMessage(parsed), ...toOpenAIChatToolMessages(CALLS, RESULTS)]
  const responsesTools: OpenAI.Responses.Tool[] = toOpenAIResponsesTools({ tools: TOOLS }).tools
  const responsesInput: OpenAI.Responses.ResponseInputItem[] = [...toOpenAIResponsesAssistantItems(parsed), ...toOpenAIResponsesOutputs(CALLS, RESULTS)]
  const anthropicTools: Anthropic.Messages.ToolUnion[] = toAnthropicTools({ tools: TOOLS }).tools
  const anthropicMessages: Anthropic.Messages.MessageParam[] = [toAnthropicAssistantMessage(parsed), toAnthropicToolResultMessage(CALLS, RESULTS)]
  const geminiDeclarations: Gemini.FunctionDeclaration[] = toGeminiTools({ tools: TOOLS }).tools
  const geminiContents: Gemini.Content[] = [toGeminiModelContent(parsed), toGeminiFunctionResponses(CALLS, RESULTS)]
  return { chatTools, deepseekTools, chatMessages, responsesTools, responsesInput, anthropicTools, anthropicMessages, geminiDeclarations, geminiContents }
}

/** Each SDK's response-side types go into our parsers unchanged, with no cast. */
export function responseSide(
  completion: OpenAI.Chat.ChatCompletion,
  chunks: OpenAI.Chat.ChatCompletionChunk[],
  response: OpenAI.Responses.Response,
  events: OpenAI.Responses.ResponseStreamEvent[],
  message: Anthropic.Messages.Message,
  anthropicEvents: Anthropic.Messages.RawMessageStreamEvent[],
  gemini: Gemini.GenerateContentResponse,
  geminiChunks: Gemini.GenerateContentResponse[],
): ParsedToolCalls[] {
  return [
    parseOpenAIChatCompletion(completion),
    parseOpenAIChatStream(chunks),
    parseOpenAIResponse(response),
    parseOpenAIResponsesStream(events),
    parseAnthropicMessage(message),
    parseAnthropicStream(anthropicEvents),
    parseGeminiResponse(gemini),
    parseGeminiStream(geminiChunks),
  ]
}

test('SDK-typed request values are our builders\' output, unchanged through JSON', () => {
  const parsed = parseOpenAIChatCompletion({ choices: [{ finish_reason: 'tool_calls', message: { tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] } }] })
  const side = requestSide(parsed)
  expect(JSON.parse(JSON.stringify(side))).toEqual(side)
  expect(side.chatMessages[0]).toEqual({ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] })
  expect(side.anthropicTools).toEqual([{ name: 'get_weather', description: 'Weather', input_schema: TOOLS[0]?.parameters }])
})
