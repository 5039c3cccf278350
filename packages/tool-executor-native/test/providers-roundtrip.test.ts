/**
 * One round trip per provider: declare → provider emission (using the declared names) → raw
 * batch (names mapped back) → results → the provider's result messages, all exact objects.
 */
import { describe, expect, test } from 'vitest'
import type { ToolResult, ToolSchema } from '@deepseek-ai/dsh-tools'
import {
  parseAnthropicStream,
  parseGeminiResponse,
  parseOpenAIChatCompletion,
  parseOpenAIChatStream,
  parseOpenAIResponsesStream,
  toAnthropicToolResultMessage,
  toAnthropicTools,
  toDeepSeekTools,
  toGeminiFunctionResponses,
  toGeminiTools,
  toOpenAIChatToolMessages,
  toOpenAIChatTools,
  toOpenAIResponsesOutputs,
  toOpenAIResponsesTools,
} from '../src/providers'

const WEATHER: ToolSchema = {
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } }, required: ['city'], additionalProperties: false },
}
const FACTORIAL: ToolSchema = {
  name: 'math.factorial',
  description: 'n!',
  parameters: { type: 'object', properties: { n: { type: ['integer', 'null'], minimum: 0 } }, required: ['n'] },
}
const description = { tools: [WEATHER, FACTORIAL] }

/** What the pipeline would return for the batch (one frozen result per call, call order). */
function results(ids: readonly [string, string]): ToolResult[] {
  return [
    { callId: ids[0], isError: false, value: { temp: 4 }, content: [{ type: 'text', text: 'Oslo: 4°C' }] },
    { callId: ids[1], isError: true, error: { message: 'n must be at most 20', info: { name: 'ToolError', code: 'INVALID_ARGS' } }, content: [{ type: 'text', text: 'Error: n must be at most 20' }] },
  ]
}

describe('round trips', () => {
  test('OpenAI Chat Completions (complete response)', () => {
    const declared = toOpenAIChatTools(description)
    expect(declared.tools).toEqual([
      { type: 'function', function: { name: 'get_weather', description: 'Current weather for a city', parameters: WEATHER.parameters } },
      { type: 'function', function: { name: 'math_factorial', description: 'n!', parameters: FACTORIAL.parameters } },
    ])
    expect(declared.warnings.map((w) => w.code)).toEqual(['NAME_MAPPED'])
    const parsed = parseOpenAIChatCompletion(
      {
        choices: [
          {
            index: 0,
            finish_reason: 'tool_calls',
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [
                { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
                { id: 'call_2', type: 'function', function: { name: 'math_factorial', arguments: '{"n":25}' } },
              ],
            },
          },
        ],
      },
      { nameMap: declared.nameMap },
    )
    expect(parsed.status).toBe('complete')
    expect(parsed.calls).toEqual([
      { callId: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      { callId: 'call_2', name: 'math.factorial', arguments: '{"n":25}' },
    ])
    expect(toOpenAIChatToolMessages(parsed.calls, results(['call_1', 'call_2']))).toEqual([
      { role: 'tool', tool_call_id: 'call_1', content: 'Oslo: 4°C' },
      { role: 'tool', tool_call_id: 'call_2', content: 'Error: n must be at most 20' },
    ])
  })

  test('OpenAI Responses (stream, strict)', () => {
    const declared = toOpenAIResponsesTools(description, { strict: true })
    expect(declared.tools).toEqual([
      {
        type: 'function',
        name: 'get_weather',
        description: 'Current weather for a city',
        parameters: {
          type: 'object',
          properties: { city: { type: 'string' }, unit: { type: ['string', 'null'], enum: ['celsius', 'fahrenheit', null] } },
          required: ['city', 'unit'],
          additionalProperties: false,
        },
        strict: true,
      },
      {
        type: 'function',
        name: 'math_factorial',
        description: 'n!',
        parameters: { type: 'object', properties: { n: { type: ['integer', 'null'], minimum: 0 } }, required: ['n'], additionalProperties: false },
        strict: true,
      },
    ])
    expect(declared.warnings.map((w) => `${w.tool} ${w.code} ${w.pointer}`)).toEqual([
      'get_weather STRICT_NULLABLE /parameters/properties/unit',
      'math.factorial NAME_MAPPED /name',
      'math.factorial KEYWORD_REWRITTEN /parameters/additionalProperties',
    ])
    const parsed = parseOpenAIResponsesStream(
      [
        { type: 'response.output_item.added', output_index: 0, item: { type: 'function_call', id: 'fc_a', call_id: 'call_a', name: 'get_weather', arguments: '' } },
        { type: 'response.function_call_arguments.delta', item_id: 'fc_a', output_index: 0, delta: '{"city":"Oslo",' },
        { type: 'response.output_item.added', output_index: 1, item: { type: 'function_call', id: 'fc_b', call_id: 'call_b', name: 'math_factorial', arguments: '' } },
        { type: 'response.function_call_arguments.delta', item_id: 'fc_a', output_index: 0, delta: '"unit":null}' },
        { type: 'response.function_call_arguments.delta', item_id: 'fc_b', output_index: 1, delta: '{"n":25}' },
        { type: 'response.completed', response: { status: 'completed' } },
      ],
      { nameMap: declared.nameMap },
    )
    expect(parsed.calls).toEqual([
      { callId: 'call_a', name: 'get_weather', arguments: '{"city":"Oslo","unit":null}' },
      { callId: 'call_b', name: 'math.factorial', arguments: '{"n":25}' },
    ])
    expect(toOpenAIResponsesOutputs(parsed.calls, results(['call_a', 'call_b']))).toEqual([
      { type: 'function_call_output', call_id: 'call_a', output: 'Oslo: 4°C' },
      { type: 'function_call_output', call_id: 'call_b', output: 'Error: n must be at most 20' },
    ])
  })

  test('Anthropic Messages (stream)', () => {
    const declared = toAnthropicTools(description)
    expect(declared.tools).toEqual([
      { name: 'get_weather', description: 'Current weather for a city', input_schema: WEATHER.parameters },
      { name: 'math_factorial', description: 'n!', input_schema: FACTORIAL.parameters },
    ])
    const parsed = parseAnthropicStream(
      [
        { type: 'message_start', message: { stop_reason: null, content: [] } },
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Checking.' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} } },
        { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"city": "Os' } },
        { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: 'lo"}' } },
        { type: 'content_block_stop', index: 1 },
        { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'toolu_2', name: 'math_factorial', input: {} } },
        { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"n": 25}' } },
        { type: 'content_block_stop', index: 2 },
        { type: 'message_delta', delta: { stop_reason: 'tool_use' } },
        { type: 'message_stop' },
      ],
      { nameMap: declared.nameMap },
    )
    expect(parsed.text).toBe('Checking.')
    expect(parsed.calls).toEqual([
      { callId: 'toolu_1', name: 'get_weather', arguments: '{"city": "Oslo"}' },
      { callId: 'toolu_2', name: 'math.factorial', arguments: '{"n": 25}' },
    ])
    expect(toAnthropicToolResultMessage(parsed.calls, results(['toolu_1', 'toolu_2']))).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: 'Oslo: 4°C' },
        { type: 'tool_result', tool_use_id: 'toolu_2', content: 'Error: n must be at most 20', is_error: true },
      ],
    })
  })

  test('Gemini (complete response; dotted names are legal there)', () => {
    const declared = toGeminiTools(description)
    expect(declared.tools).toEqual([
      {
        name: 'get_weather',
        description: 'Current weather for a city',
        parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } }, required: ['city'] },
      },
      { name: 'math.factorial', description: 'n!', parameters: { type: 'object', properties: { n: { type: 'integer', minimum: 0, nullable: true } }, required: ['n'] } },
    ])
    expect(declared.warnings.map((w) => `${w.tool} ${w.code} ${w.pointer}`)).toEqual([
      'get_weather KEYWORD_DROPPED /parameters/additionalProperties',
      'math.factorial TYPE_ARRAY_REWRITTEN /parameters/properties/n/type',
    ])
    const parsed = parseGeminiResponse(
      {
        candidates: [
          {
            content: { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Oslo' } } }, { functionCall: { name: 'math.factorial', args: { n: 25 } } }] },
            finishReason: 'STOP',
          },
        ],
      },
      { nameMap: declared.nameMap },
    )
    expect(parsed.calls).toEqual([
      { callId: 'gemini_call_0', name: 'get_weather', arguments: { city: 'Oslo' } },
      { callId: 'gemini_call_1', name: 'math.factorial', arguments: { n: 25 } },
    ])
    expect(toGeminiFunctionResponses(parsed.calls, results(['gemini_call_0', 'gemini_call_1']), { nameMap: declared.nameMap })).toEqual({
      role: 'user',
      parts: [
        { functionResponse: { name: 'get_weather', response: { output: 'Oslo: 4°C' } } },
        { functionResponse: { name: 'math.factorial', response: { error: 'Error: n must be at most 20' } } },
      ],
    })
  })

  test('DeepSeek / OpenAI-compatible (stream, interleaved)', () => {
    const declared = toDeepSeekTools(description)
    expect(declared.tools[1]).toEqual({
      type: 'function',
      function: { name: 'math_factorial', description: 'n!', parameters: { type: 'object', properties: { n: { anyOf: [{ type: 'integer', minimum: 0 }, { type: 'null' }] } }, required: ['n'] } },
    })
    const parsed = parseOpenAIChatStream(
      [
        { choices: [{ index: 0, delta: { role: 'assistant', content: '' } }] },
        { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_0', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } }] } }] },
        { choices: [{ index: 0, delta: { tool_calls: [{ index: 1, id: 'call_1', type: 'function', function: { name: 'math_factorial', arguments: '{"n":' } }] } }] },
        { choices: [{ index: 0, delta: { tool_calls: [{ index: 1, function: { arguments: '25}' } }] } }] },
        { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] } }] },
        { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
      ],
      { nameMap: declared.nameMap, provider: 'deepseek' },
    )
    expect(parsed.calls).toEqual([
      { callId: 'call_0', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      { callId: 'call_1', name: 'math.factorial', arguments: '{"n":25}' },
    ])
    expect(toOpenAIChatToolMessages(parsed.calls, results(['call_0', 'call_1']), { images: 'omit' })).toEqual([
      { role: 'tool', tool_call_id: 'call_0', content: 'Oslo: 4°C' },
      { role: 'tool', tool_call_id: 'call_1', content: 'Error: n must be at most 20' },
    ])
  })
})
