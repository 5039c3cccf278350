/**
 * `readyCalls()` of each stream accumulator: how many leading calls have arguments that can no
 * longer change, after each event — the rule `executeToolStream` starts calls by.
 */
import { describe, expect, test } from 'vitest'
import type { JsonObject } from '@deepseek-ai/dsh-tools'
import { AnthropicStreamAccumulator, GeminiStreamAccumulator, OpenAIChatStreamAccumulator, OpenAIResponsesStreamAccumulator, type AnthropicStreamEventWire, type GeminiResponseWire, type OpenAIChatChunkWire, type OpenAIResponsesStreamEventWire } from '../src/providers'

/** `readyCalls()` after each pushed event. */
function trace<C>(accumulator: { push(c: C): void; readyCalls(): number }, events: readonly JsonObject[]): number[] {
  return events.map((event) => {
    accumulator.push(event as unknown as C)
    return accumulator.readyCalls()
  })
}

const chat = (toolCalls: JsonObject[] | undefined, finish: string | null = null): JsonObject => ({ choices: [{ index: 0, delta: toolCalls === undefined ? {} : { tool_calls: toolCalls }, finish_reason: finish }] })

describe('readyCalls', () => {
  test('OpenAI Chat: a call is ready once a later call began and its JSON is complete; every call at finish_reason', () => {
    const events = [
      chat([{ index: 0, id: 'a', type: 'function', function: { name: 'f', arguments: '{"x":' } }]),
      chat([{ index: 0, function: { arguments: '1}' } }]),
      chat([{ index: 1, id: 'b', type: 'function', function: { name: 'f', arguments: '{"x":2}' } }]),
      chat([{ index: 2, id: 'c', type: 'function', function: { name: 'f', arguments: '{"x":' } }]),
      chat([{ index: 2, function: { arguments: '3}' } }]),
      chat(undefined, 'tool_calls'),
    ]
    expect(trace<OpenAIChatChunkWire>(new OpenAIChatStreamAccumulator(), events)).toEqual([0, 0, 1, 2, 2, 3])
  })

  test('OpenAI Chat, interleaved fragments: an earlier call whose JSON is still open is not ready although a later one began', () => {
    const events = [
      chat([{ index: 0, id: 'a', type: 'function', function: { name: 'f', arguments: '{"x":' } }]),
      chat([{ index: 1, id: 'b', type: 'function', function: { name: 'f', arguments: '{"y":2}' } }]),
      chat([{ index: 0, function: { arguments: '1}' } }]),
      chat([{ index: 2, id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }]),
    ]
    expect(trace<OpenAIChatChunkWire>(new OpenAIChatStreamAccumulator(), events)).toEqual([0, 0, 1, 2])
  })

  test('OpenAI Responses: ready at function_call_arguments.done or output_item.done, in output order', () => {
    const item = (i: number) => ({ type: 'function_call', id: `fc_${i}`, call_id: `call_${i}`, name: 'f', arguments: '' })
    const events: JsonObject[] = [
      { type: 'response.output_item.added', output_index: 0, item: item(0) },
      { type: 'response.output_item.added', output_index: 1, item: item(1) },
      { type: 'response.function_call_arguments.done', output_index: 1, item_id: 'fc_1', arguments: '{}' },
      { type: 'response.function_call_arguments.delta', output_index: 0, item_id: 'fc_0', delta: '{}' },
      { type: 'response.output_item.done', output_index: 0, item: { ...item(0), arguments: '{}' } },
    ]
    expect(trace<OpenAIResponsesStreamEventWire>(new OpenAIResponsesStreamAccumulator(), events)).toEqual([0, 0, 0, 0, 2])
  })

  test('Anthropic: a tool_use block is ready at its content_block_stop; text blocks do not count', () => {
    const events: JsonObject[] = [
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 't1', name: 'f', input: {} } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{}' } },
      { type: 'content_block_stop', index: 1 },
      { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 't2', name: 'f', input: {} } },
    ]
    expect(trace<AnthropicStreamEventWire>(new AnthropicStreamAccumulator(), events)).toEqual([0, 0, 0, 0, 1, 1])
  })

  test('Gemini: each functionCall part is ready at once; a willContinue chain at its last part', () => {
    const part = (p: JsonObject): JsonObject => ({ candidates: [{ content: { role: 'model', parts: [p] }, index: 0 }] })
    const events = [
      part({ text: 'Let me check.' }),
      part({ functionCall: { name: 'f', args: { x: 1 } } }),
      part({ functionCall: { name: 'g', args: {}, willContinue: true } }),
      part({ functionCall: { name: 'g', partialArgs: [{ jsonPath: '$.y', stringValue: 'a' }], willContinue: false } }),
    ]
    expect(trace<GeminiResponseWire>(new GeminiStreamAccumulator(), events)).toEqual([0, 1, 1, 2])
  })
})
