/**
 * Stream accumulators never glue two calls into one and never drop one (issue: an OpenAI Chat
 * delta at an index already in use carrying another call id became one call with arguments
 * `{"q":"a"}{"q":"b"}`, `call_y` vanished and the parse said complete). Every accumulator, every
 * kind: an id change, a name change mid-call, a repeated id, an index or item reused.
 */
import { describe, expect, test } from 'vitest'
import {
  parseAnthropicStream,
  parseGeminiStream,
  parseOpenAIChatStream,
  parseOpenAIResponsesStream,
  toOpenAIChatAssistantMessage,
  type OpenAIChatChunkWire,
} from '../src/providers'

const chunk = (fragments: object[], finish?: string): OpenAIChatChunkWire => ({ choices: [{ index: 0, delta: { tool_calls: fragments }, ...(finish ? { finish_reason: finish } : {}) }] })
const finished: OpenAIChatChunkWire = { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] }

describe('OpenAI Chat (and DeepSeek / OpenAI-compatible) streams', () => {
  test('a new id at an index in use starts a new call, reported; nothing glued or dropped', () => {
    for (const provider of ['openai-chat', 'deepseek', 'openai-compatible'] as const) {
      const parsed = parseOpenAIChatStream(
        [
          chunk([{ index: 0, id: 'call_x', type: 'function', function: { name: 'lookup', arguments: '{"q":"a"}' } }]),
          chunk([{ index: 0, id: 'call_y', type: 'function', function: { name: 'lookup', arguments: '{"q":"b"}' } }]),
          finished,
        ],
        { provider },
      )
      expect(parsed.status).toBe('complete')
      expect(parsed.provider).toBe(provider)
      expect(parsed.calls).toEqual([
        { callId: 'call_x', name: 'lookup', arguments: '{"q":"a"}' },
        { callId: 'call_y', name: 'lookup', arguments: '{"q":"b"}' },
      ])
      expect(parsed.issues).toEqual([{ pointer: '/chunks/1/tool_calls/0', message: 'index 0 already holds call "call_x"; the fragment with id "call_y" starts a new call' }])
      expect(toOpenAIChatAssistantMessage(parsed).tool_calls?.map((c) => [c.id, c.function.arguments])).toEqual([
        ['call_x', '{"q":"a"}'],
        ['call_y', '{"q":"b"}'],
      ])
    }
  })

  test('split arguments after the new id continue the newest call; a fragment repeating the earlier id goes back to it', () => {
    const parsed = parseOpenAIChatStream([
      chunk([{ index: 0, id: 'call_x', function: { name: 'lookup', arguments: '{"q":' } }]),
      chunk([{ index: 0, id: 'call_y', function: { name: 'find', arguments: '{"r":' } }]),
      chunk([{ index: 0, function: { arguments: '"b"}' } }]),
      chunk([{ index: 0, id: 'call_x', function: { arguments: '"a"}' } }]),
      finished,
    ])
    expect(parsed.calls).toEqual([
      { callId: 'call_x', name: 'lookup', arguments: '{"q":"a"}' },
      { callId: 'call_y', name: 'find', arguments: '{"r":"b"}' },
    ])
    expect(parsed.issues).toEqual([{ pointer: '/chunks/1/tool_calls/0', message: 'index 0 already holds call "call_x"; the fragment with id "call_y" starts a new call' }])
  })

  test('a different name after the arguments began starts a new call; the same name repeated in every fragment does not', () => {
    const changed = parseOpenAIChatStream([
      chunk([{ index: 0, id: 'call_x', function: { name: 'lookup', arguments: '{"q":"a"}' } }]),
      chunk([{ index: 0, function: { name: 'search', arguments: '{"q":"b"}' } }]),
      finished,
    ])
    expect(changed.calls).toEqual([
      { callId: 'call_x', name: 'lookup', arguments: '{"q":"a"}' },
      { callId: 'call_1', name: 'search', arguments: '{"q":"b"}' },
    ])
    expect(changed.issues).toEqual([
      { pointer: '/chunks/1/tool_calls/0', message: 'call "call_x" at index 0 is named "lookup", but a fragment names "search" after its arguments began; the fragment starts a new call' },
      { pointer: '/chunks/1/tool_calls/0/id', message: 'missing call id; minted one' },
    ])
    const repeated = parseOpenAIChatStream([
      chunk([{ index: 0, id: 'call_x', function: { name: 'read_file', arguments: '{"p":' } }]),
      chunk([{ index: 0, id: 'call_x', function: { name: 'read_file', arguments: '"a"}' } }]),
      finished,
    ])
    expect(repeated.calls).toEqual([{ callId: 'call_x', name: 'read_file', arguments: '{"p":"a"}' }])
    expect(repeated.issues).toEqual([])
  })

  test('a name sent in pieces before the arguments is joined, a name resent whole replaces the piece; both reported', () => {
    const pieces = parseOpenAIChatStream([
      chunk([{ index: 0, id: 'call_e', function: { name: 'edit_ex' } }]),
      chunk([{ index: 0, function: { name: 'isting_file', arguments: '' } }]),
      chunk([{ index: 0, function: { arguments: '{}' } }]),
      finished,
    ])
    expect(pieces.calls).toEqual([{ callId: 'call_e', name: 'edit_existing_file', arguments: '{}' }])
    expect(pieces.issues).toEqual([{ pointer: '/chunks/1/tool_calls/0', message: 'the name of call "call_e" at index 0 arrived in pieces; joined as "edit_existing_file"' }])
    const cumulative = parseOpenAIChatStream([chunk([{ index: 0, id: 'c', function: { name: 'look' } }]), chunk([{ index: 0, function: { name: 'lookup', arguments: '{}' } }]), finished])
    expect(cumulative.calls).toEqual([{ callId: 'c', name: 'lookup', arguments: '{}' }])
    expect(cumulative.issues).toEqual([{ pointer: '/chunks/1/tool_calls/0', message: 'the name of call "c" at index 0 arrived in pieces; joined as "lookup"' }])
  })

  test('a second JSON value after complete arguments at the same index (id and name repeated, or none sent) is a second call', () => {
    const repeated = parseOpenAIChatStream([
      chunk([{ index: 0, id: 'call_x', function: { name: 'lookup', arguments: '{"q":"a"}' } }]),
      chunk([{ index: 0, id: 'call_x', function: { name: 'lookup', arguments: '{"q":"b"}' } }]),
      finished,
    ])
    expect(repeated.calls).toEqual([
      { callId: 'call_x', name: 'lookup', arguments: '{"q":"a"}' },
      { callId: 'call_x_2', name: 'lookup', arguments: '{"q":"b"}' },
    ])
    expect(repeated.issues).toEqual([
      { pointer: '/chunks/1/tool_calls/0', message: 'call "call_x" at index 0 already has complete arguments; the fragment starting another JSON value starts a new call' },
      { pointer: '/chunks/1/tool_calls/0/id', message: 'duplicate call id "call_x"; this call is "call_x_2" in the batch, its result and the assistant turn' },
    ])
    const anonymous = parseOpenAIChatStream([chunk([{ index: 0, function: { name: 'a', arguments: '{}' } }]), chunk([{ index: 0, function: { arguments: ' {"n":1}' } }]), finished])
    expect(anonymous.calls).toEqual([
      { callId: 'call_0', name: 'a', arguments: '{}' },
      { callId: 'call_1', name: '', arguments: ' {"n":1}' },
    ])
    // A nested object's text continues the call: the text so far is not complete.
    const nested = parseOpenAIChatStream([chunk([{ index: 0, id: 'c', function: { name: 'a', arguments: '{"o":' } }]), chunk([{ index: 0, function: { arguments: '{"n":1}}' } }]), finished])
    expect(nested.calls).toEqual([{ callId: 'c', name: 'a', arguments: '{"o":{"n":1}}' }])
    expect(nested.issues).toEqual([])
  })

  test('the same id at two indices stays two calls (the second renamed), and a cut stream with a reused index withholds both', () => {
    const duplicate = parseOpenAIChatStream([
      chunk([
        { index: 0, id: 'call_d', function: { name: 'a', arguments: '{}' } },
        { index: 1, id: 'call_d', function: { name: 'b', arguments: '{}' } },
      ]),
      finished,
    ])
    expect(duplicate.calls).toEqual([
      { callId: 'call_d', name: 'a', arguments: '{}' },
      { callId: 'call_d_2', name: 'b', arguments: '{}' },
    ])
    expect(duplicate.issues).toEqual([{ pointer: '/tool_calls/1/id', message: 'duplicate call id "call_d"; this call is "call_d_2" in the batch, its result and the assistant turn' }])
    const cut = parseOpenAIChatStream([
      chunk([{ index: 0, id: 'call_x', function: { name: 'lookup', arguments: '{"q":"a"}' } }]),
      chunk([{ index: 0, id: 'call_y', function: { name: 'lookup', arguments: '{"q":' } }]),
    ])
    expect(cut.status).toBe('truncated')
    expect(cut.truncated.map((t) => [t.callId, t.reason])).toEqual([
      ['call_x', 'response-cut'],
      ['call_y', 'arguments-incomplete'],
    ])
  })
})

describe('OpenAI Responses streams', () => {
  const added = (output_index: number, id: string | undefined, call_id: string, name: string) => ({
    type: 'response.output_item.added',
    output_index,
    item: { type: 'function_call' as const, ...(id ? { id } : {}), call_id, name, arguments: '' },
  })
  const completed = { type: 'response.completed', response: { status: 'completed' } }

  test('a second item at an output_index in use is a second call, reported; its deltas stay its own', () => {
    const parsed = parseOpenAIResponsesStream([
      added(0, 'fc_1', 'call_x', 'lookup'),
      { type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 0, delta: '{"q":"a"}' },
      added(0, 'fc_2', 'call_y', 'lookup'),
      { type: 'response.function_call_arguments.delta', item_id: 'fc_2', output_index: 0, delta: '{"q":"b"}' },
      completed,
    ])
    expect(parsed.status).toBe('complete')
    expect(parsed.calls).toEqual([
      { callId: 'call_x', name: 'lookup', arguments: '{"q":"a"}' },
      { callId: 'call_y', name: 'lookup', arguments: '{"q":"b"}' },
    ])
    expect(parsed.issues).toEqual([{ pointer: '/events/2', message: 'output_index 0 already holds item "fc_1"; item "fc_2" starts a new call' }])
  })

  test('without item ids, a second output_item.added at the same index is a new call; deltas by index go to the newest', () => {
    const parsed = parseOpenAIResponsesStream([
      added(0, undefined, 'call_x', 'lookup'),
      { type: 'response.function_call_arguments.delta', output_index: 0, delta: '{"q":"a"}' },
      added(0, undefined, 'call_y', 'lookup'),
      { type: 'response.function_call_arguments.delta', output_index: 0, delta: '{"q":"b"}' },
      completed,
    ])
    expect(parsed.calls).toEqual([
      { callId: 'call_x', name: 'lookup', arguments: '{"q":"a"}' },
      { callId: 'call_y', name: 'lookup', arguments: '{"q":"b"}' },
    ])
    expect(parsed.issues).toEqual([{ pointer: '/events/2', message: 'output_index 0 already holds a call ("call_x"); the new item starts a new call' }])
  })

  test('a repeated output_item.added is ignored (its arguments are not added twice); a changed call_id or name in .done wins, reported', () => {
    const parsed = parseOpenAIResponsesStream([
      { ...added(0, 'fc_1', 'call_x', 'lookup'), item: { type: 'function_call', id: 'fc_1', call_id: 'call_x', name: 'lookup', arguments: '{"q":' } },
      { ...added(0, 'fc_1', 'call_x', 'lookup'), item: { type: 'function_call', id: 'fc_1', call_id: 'call_x', name: 'lookup', arguments: '{"q":' } },
      { type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 0, delta: '"a"}' },
      { type: 'response.output_item.done', output_index: 0, item: { type: 'function_call', id: 'fc_1', call_id: 'call_z', name: 'search', arguments: '{"q":"a"}' } },
      completed,
    ])
    expect(parsed.calls).toEqual([{ callId: 'call_z', name: 'search', arguments: '{"q":"a"}' }])
    expect(parsed.issues).toEqual([
      { pointer: '/events/1', message: 'item "fc_1" was added twice; the repeat is ignored' },
      { pointer: '/events/3/item/call_id', message: 'item "fc_1": call_id "call_x" became "call_z" in response.output_item.done; the final one is used' },
      { pointer: '/events/3/item/name', message: 'item "fc_1": name "lookup" became "search" in response.output_item.done; the final one is used' },
    ])
  })

  test('the same call_id on two items stays two calls (the second renamed)', () => {
    const parsed = parseOpenAIResponsesStream([
      { type: 'response.output_item.done', output_index: 0, item: { type: 'function_call', id: 'fc_1', call_id: 'call_d', name: 'a', arguments: '{}' } },
      { type: 'response.output_item.done', output_index: 1, item: { type: 'function_call', id: 'fc_2', call_id: 'call_d', name: 'b', arguments: '{}' } },
      completed,
    ])
    expect(parsed.calls).toEqual([
      { callId: 'call_d', name: 'a', arguments: '{}' },
      { callId: 'call_d_2', name: 'b', arguments: '{}' },
    ])
    expect(parsed.issues).toEqual([{ pointer: '/output/1/call_id', message: 'duplicate call_id "call_d"; this call is "call_d_2" in the batch, its result and the assistant turn' }])
  })
})

describe('Anthropic streams', () => {
  const start = (index: number, id: string, name: string) => ({ type: 'content_block_start', index, content_block: { type: 'tool_use', id, name, input: {} } })
  const json = (index: number, partial_json: string) => ({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } })
  const stop = [{ type: 'message_delta', delta: { stop_reason: 'tool_use' } }, { type: 'message_stop' }]

  test('a content_block_start at an index in use keeps both blocks, reported; deltas after it go to the new block', () => {
    const parsed = parseAnthropicStream([
      { type: 'message_start', message: { content: [] } },
      start(0, 'toolu_a', 'lookup'),
      json(0, '{"q":"a"}'),
      start(0, 'toolu_b', 'lookup'),
      json(0, '{"q":"b"}'),
      ...stop,
    ])
    expect(parsed.status).toBe('complete')
    expect(parsed.calls).toEqual([
      { callId: 'toolu_a', name: 'lookup', arguments: '{"q":"a"}' },
      { callId: 'toolu_b', name: 'lookup', arguments: '{"q":"b"}' },
    ])
    expect(parsed.issues).toEqual([
      { pointer: '/events/3', message: 'content_block_start at index 0, which already holds tool_use block "toolu_a"; both are kept, later deltas at index 0 go to the new block' },
    ])
  })

  test('input_json_delta for a text block is ignored, reported; a repeated tool_use id stays two calls', () => {
    const parsed = parseAnthropicStream([
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      json(0, '{"stray":1}'),
      start(1, 'toolu_d', 'a'),
      json(1, '{}'),
      start(2, 'toolu_d', 'b'),
      json(2, '{}'),
      ...stop,
    ])
    expect(parsed.calls).toEqual([
      { callId: 'toolu_d', name: 'a', arguments: '{}' },
      { callId: 'toolu_d_2', name: 'b', arguments: '{}' },
    ])
    expect(parsed.issues).toEqual([
      { pointer: '/events/1', message: 'input_json_delta for the text block at index 0; ignored' },
      { pointer: '/content/2/id', message: 'duplicate tool_use id "toolu_d"; this call is "toolu_d_2" in the batch, its result and the assistant turn' },
    ])
  })
})

describe('Gemini streams', () => {
  const chunk = (parts: object[], finishReason?: string) => ({ candidates: [{ content: { role: 'model', parts }, ...(finishReason ? { finishReason } : {}) }] })

  test('a call streamed in parts (willContinue, partialArgs) is one call with its arguments assembled', () => {
    const parsed = parseGeminiStream([
      chunk([{ functionCall: { name: 'get_weather', willContinue: true } }]),
      chunk([{ functionCall: { partialArgs: [{ jsonPath: '$.location', stringValue: 'Bos', willContinue: true }], willContinue: true } }]),
      chunk([{ functionCall: { partialArgs: [{ jsonPath: '$.location', stringValue: 'ton' }, { jsonPath: '$.days[0]', numberValue: 2 }, { jsonPath: "$['units']", nullValue: 'NULL_VALUE' }], willContinue: true } }]),
      chunk([{ functionCall: {} }], 'STOP'),
    ])
    expect(parsed.status).toBe('complete')
    expect(parsed.calls).toEqual([{ callId: 'gemini_call_0', name: 'get_weather', arguments: { location: 'Boston', days: [2], units: null } }])
    expect(parsed.issues).toEqual([])
  })

  test('partial argument paths: __proto__ is a key, never a prototype; a hole in an array or an unreadable path is left out, reported', () => {
    const parsed = parseGeminiStream([
      chunk([{ functionCall: { name: 'f', willContinue: true } }]),
      chunk([
        {
          functionCall: {
            partialArgs: [
              { jsonPath: '$.__proto__.polluted', boolValue: true },
              { jsonPath: '$.list[5]', numberValue: 1 },
              { jsonPath: '$..deep', stringValue: 'x' },
            ],
          },
        },
      ], 'STOP'),
    ])
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined()
    expect(JSON.stringify(parsed.calls[0]?.arguments)).toBe('{"__proto__":{"polluted":true}}')
    expect(parsed.issues).toEqual([
      { pointer: '/parts/1/functionCall/partialArgs/1/jsonPath', message: 'partial argument path "$.list[5]" skips array positions; its value is left out' },
      { pointer: '/parts/1/functionCall/partialArgs/2/jsonPath', message: 'partial argument path "$..deep" is not a plain JSON path ($.name, $.a[0].b); its value is left out' },
    ])
  })

  test('a continuation naming another function starts a new call and the announced one is incomplete; parts that never come are a cut', () => {
    const clash = parseGeminiStream([
      chunk([{ functionCall: { name: 'get_weather', willContinue: true, partialArgs: [{ jsonPath: '$.location', stringValue: 'Bos', willContinue: true }] } }]),
      chunk([{ functionCall: { name: 'get_time', args: { zone: 'UTC' } } }], 'STOP'),
    ])
    expect(clash.status).toBe('truncated')
    expect(clash.truncated.map((t) => [t.callId, t.name, t.arguments, t.reason])).toEqual([
      ['gemini_call_0', 'get_weather', { location: 'Bos' }, 'arguments-incomplete'],
      ['gemini_call_1', 'get_time', { zone: 'UTC' }, 'response-cut'],
    ])
    expect(clash.issues).toEqual([
      { pointer: '/parts/1/functionCall', message: 'functionCall "get_weather" announced more parts (willContinue), but the next one is "get_time"; it starts a new call and the earlier one is incomplete' },
    ])
    const unfinished = parseGeminiStream([chunk([{ functionCall: { name: 'get_weather', willContinue: true } }], 'STOP')])
    expect(unfinished.status).toBe('truncated')
    expect(unfinished.issues).toEqual([{ pointer: '/parts/0/functionCall', message: 'functionCall "get_weather" announced more parts (willContinue) that never came; it is incomplete' }])
  })

  test('whole calls in separate chunks stay separate; a repeated id gets a minted one, reported', () => {
    const parsed = parseGeminiStream([chunk([{ functionCall: { id: 'g1', name: 'a', args: {} } }]), chunk([{ functionCall: { id: 'g1', name: 'b', args: { x: 1 } } }], 'STOP')])
    expect(parsed.calls).toEqual([
      { callId: 'g1', name: 'a', arguments: {} },
      { callId: 'gemini_call_1', name: 'b', arguments: { x: 1 } },
    ])
    expect(parsed.issues).toEqual([{ pointer: '/parts/1/functionCall/id', message: 'duplicate functionCall id "g1"; this call is "gemini_call_1" in the batch, its result and the assistant turn' }])
  })
})
