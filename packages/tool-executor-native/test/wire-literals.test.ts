/**
 * Real provider responses, written as object literals annotated with our wire types, typecheck
 * (the root `tsc` checks this file): every documented field of the real APIs is accepted, not
 * only the ones the parsers read. The shapes are the official API references' examples (OpenAI
 * Chat Completions and its streaming chunk, OpenAI Responses, Anthropic Messages and its
 * `message_start` event, Gemini `generateContent`) with the fields the recorded emissions E01,
 * E03, E05, E06, E08 and E26 (`fixtures/real/model-outputs/provider_emissions.json`) carry. The
 * fields the parsers read stay typed: the `@ts-expect-error` lines fail the typecheck if they
 * stop being refused. At run time each literal parses into the exact calls.
 */
import { expect, test } from 'vitest'
import {
  AnthropicStreamAccumulator,
  OpenAIChatStreamAccumulator,
  parseAnthropicMessage,
  parseGeminiResponse,
  parseOpenAIChatCompletion,
  parseOpenAIResponse,
  type AnthropicMessageWire,
  type AnthropicStreamEventWire,
  type GeminiResponseWire,
  type OpenAIChatChunkWire,
  type OpenAIChatCompletionWire,
  type OpenAIResponsesResponseWire,
  type OpenAIResponsesStreamEventWire,
} from '../src/providers'

const openaiCompletion: OpenAIChatCompletionWire = {
  id: 'chatcmpl-001',
  object: 'chat.completion',
  created: 1741569952,
  model: 'gpt-4.1-2025-04-14',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: null,
        refusal: null,
        annotations: [],
        tool_calls: [{ id: 'call_a1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
      },
      logprobs: null,
      finish_reason: 'tool_calls',
    },
  ],
  usage: {
    prompt_tokens: 82,
    completion_tokens: 17,
    total_tokens: 99,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  },
  service_tier: 'default',
  system_fingerprint: 'fp_b3f1157249',
}

const openaiChunk: OpenAIChatChunkWire = {
  id: 'chatcmpl-002',
  object: 'chat.completion.chunk',
  created: 1741569952,
  model: 'gpt-4.1-2025-04-14',
  service_tier: 'default',
  system_fingerprint: 'fp_b3f1157249',
  choices: [
    {
      index: 0,
      delta: { role: 'assistant', content: null, refusal: null, tool_calls: [{ index: 0, id: 'call_s1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lima"}' } }] },
      logprobs: null,
      finish_reason: 'tool_calls',
    },
  ],
  usage: null,
  obfuscation: 'xY3',
}

const openaiResponse: OpenAIResponsesResponseWire = {
  id: 'resp_67ccd2bed1ec8190b14f964abc054267',
  object: 'response',
  created_at: 1741476542,
  status: 'completed',
  error: null,
  incomplete_details: null,
  instructions: null,
  max_output_tokens: null,
  model: 'gpt-4.1-2025-04-14',
  output: [
    { type: 'reasoning', id: 'rs_1', summary: [] },
    { type: 'function_call', id: 'fc_1', call_id: 'call_r1', name: 'get_weather', arguments: '{"city":"Oslo"}', status: 'completed' },
    { type: 'message', id: 'msg_1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Checking.', annotations: [], logprobs: [] }] },
  ],
  parallel_tool_calls: true,
  previous_response_id: null,
  reasoning: { effort: null, summary: null },
  store: true,
  temperature: 1,
  text: { format: { type: 'text' } },
  tool_choice: 'auto',
  tools: [],
  top_p: 1,
  truncation: 'disabled',
  usage: { input_tokens: 36, input_tokens_details: { cached_tokens: 0 }, output_tokens: 87, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 123 },
  user: null,
  metadata: {},
}

const openaiResponseEvent: OpenAIResponsesStreamEventWire = {
  type: 'response.function_call_arguments.delta',
  sequence_number: 4,
  item_id: 'fc_1',
  output_index: 1,
  delta: '{"city":',
  obfuscation: 'a1b2',
}

const anthropicMessage: AnthropicMessageWire = {
  id: 'msg_01',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-5',
  content: [
    { type: 'text', text: 'Let me check.', citations: null },
    { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Oslo' } },
  ],
  stop_reason: 'tool_use',
  stop_sequence: null,
  usage: { input_tokens: 472, output_tokens: 59, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, service_tier: 'standard' },
}

const anthropicEvents: AnthropicStreamEventWire[] = [
  {
    type: 'message_start',
    message: { id: 'msg_02', type: 'message', role: 'assistant', model: 'claude-sonnet-5', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 472, output_tokens: 2 } },
  },
  { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_02', name: 'get_weather', input: {} } },
  { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"city":"Lima"}' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 89 } },
  { type: 'message_stop' },
]

const geminiResponse: GeminiResponseWire = {
  candidates: [
    {
      content: { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Oslo' } }, thoughtSignature: 'c2ln' }] },
      finishReason: 'STOP',
      avgLogprobs: -0.0123,
      safetyRatings: [{ category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'NEGLIGIBLE' }],
      index: 0,
    },
  ],
  usageMetadata: { promptTokenCount: 33, candidatesTokenCount: 7, totalTokenCount: 40, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 33 }] },
  modelVersion: 'gemini-2.5-flash',
  responseId: 'aBcDeFgHiJk',
}

// The fields the parsers read keep their types.
// @ts-expect-error finish_reason is a string
const badFinish: OpenAIChatCompletionWire = { choices: [{ finish_reason: 1 }] }
// @ts-expect-error content blocks are objects with a type
const badBlock: AnthropicMessageWire = { content: ['text'] }
// @ts-expect-error functionCall.name is a string
const badCall: GeminiResponseWire = { candidates: [{ content: { parts: [{ functionCall: { name: 7 } }] } }] }
void [badFinish, badBlock, badCall]

test('real responses written as annotated literals parse into the exact calls', () => {
  expect(parseOpenAIChatCompletion(openaiCompletion).calls).toEqual([{ callId: 'call_a1', name: 'get_weather', arguments: '{"city":"Oslo"}' }])
  const chat = new OpenAIChatStreamAccumulator()
  chat.push(openaiChunk)
  expect(chat.result().calls).toEqual([{ callId: 'call_s1', name: 'get_weather', arguments: '{"city":"Lima"}' }])
  expect(parseOpenAIResponse(openaiResponse).calls).toEqual([{ callId: 'call_r1', name: 'get_weather', arguments: '{"city":"Oslo"}' }])
  expect(openaiResponseEvent.delta).toBe('{"city":')
  expect(parseAnthropicMessage(anthropicMessage).calls).toEqual([{ callId: 'toolu_01', name: 'get_weather', arguments: { city: 'Oslo' } }])
  const anthropic = new AnthropicStreamAccumulator()
  for (const event of anthropicEvents) anthropic.push(event)
  expect(anthropic.result().calls).toEqual([{ callId: 'toolu_02', name: 'get_weather', arguments: '{"city":"Lima"}' }])
  expect(parseGeminiResponse(geminiResponse).calls).toEqual([{ callId: 'gemini_call_0', name: 'get_weather', arguments: { city: 'Oslo' } }])
})
