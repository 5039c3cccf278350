/** Streams and truncation: bug cases B16 and B22 (regressions), B01, chunk-split invariance. */
import { describe, expect, test } from 'vitest'
import fc from 'fast-check'
import {
  classifyArguments,
  GeminiStreamAccumulator,
  OpenAIChatStreamAccumulator,
  parseAnthropicStream,
  parseGeminiStream,
  parseOpenAIChatCompletion,
  parseOpenAIChatStream,
  parseOpenAIResponsesStream,
  parseOpenAIResponse,
  parseAnthropicMessage,
  parseGeminiResponse,
  truncatedCallResults,
  type AnthropicStreamEventWire,
  type OpenAIChatChunkWire,
} from '../src/providers'
import { bugCase } from './providers-fixtures'

const chatToolChunks = (id: string, name: string, fragments: readonly string[], finish: string | null = 'tool_calls'): OpenAIChatChunkWire[] => [
  ...fragments.map((arguments_, i) => ({
    choices: [{ index: 0, delta: { tool_calls: [{ index: 0, ...(i === 0 ? { id, type: 'function', function: { name, arguments: arguments_ } } : { function: { arguments: arguments_ } }) }] } }],
  })),
  ...(finish === null ? [] : [{ choices: [{ index: 0, delta: {}, finish_reason: finish }] }]),
]

const anthropicToolEvents = (id: string, name: string, fragments: readonly string[], stop: string | null = 'tool_use'): AnthropicStreamEventWire[] => [
  { type: 'message_start', message: { stop_reason: null, content: [] } },
  { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id, name, input: {} } },
  ...fragments.map((partial_json) => ({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json } })),
  { type: 'content_block_stop', index: 0 },
  ...(stop === null ? [] : [{ type: 'message_delta', delta: { stop_reason: stop } }, { type: 'message_stop' }]),
]

/** Splits `text` every `size` UTF-16 code units (what the B16 gateway did). */
const chunkCodeUnits = (text: string, size: number): string[] => {
  const out: string[] = []
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size))
  return out
}

describe('B16: emoji split across chunks (surrogate pair halves in separate deltas)', () => {
  const b16 = bugCase('B16')
  const args: string = b16.input.arguments
  const chunks = chunkCodeUnits(args, b16.input.chunkCodeUnits)

  test('B16: the 256-code-unit boundary really splits the surrogate pair in the fixture', () => {
    expect(chunks).toHaveLength(2)
    expect(chunks[0]?.charCodeAt(chunks[0].length - 1)).toBe(0xd83d) // lone high surrogate
    expect(chunks[1]?.charCodeAt(0)).toBe(0xde00) // lone low surrogate
  })

  test('B16: OpenAI chat deltas reassemble to text ending in U+1F600, never U+FFFD', () => {
    const parsed = parseOpenAIChatStream(chatToolChunks('call_e', 'say', chunks))
    expect(parsed.status).toBe('complete')
    expect(parsed.calls[0]?.arguments).toBe(args)
    const text = (JSON.parse(parsed.calls[0]?.arguments as string) as { text: string }).text
    expect(text.endsWith('\u{1F600}')).toBe(true)
    expect(text.includes('\uFFFD')).toBe(false)
  })

  test('B16: SSE data lines JSON-escaping each half (\\ud83d / \\ude00) decode per chunk and still reassemble', () => {
    const lines = chatToolChunks('call_e', 'say', chunks).map((chunk) => JSON.stringify(chunk))
    expect(lines[0]).toContain('\\ud83d') // JSON.stringify escapes a lone surrogate
    const parsed = parseOpenAIChatStream(lines.map((line) => JSON.parse(line) as OpenAIChatChunkWire))
    expect(parsed.calls[0]?.arguments).toBe(args)
  })

  test('B16: Anthropic input_json_delta fragments reassemble the same way', () => {
    const parsed = parseAnthropicStream(anthropicToolEvents('toolu_e', 'say', chunks))
    expect(parsed.calls[0]?.arguments).toBe(args)
    expect(Buffer.from(parsed.calls[0]?.arguments as string, 'utf8').toString('utf8')).toBe(args)
  })

  test('B16: Responses argument deltas reassemble the same way', () => {
    const parsed = parseOpenAIResponsesStream([
      { type: 'response.output_item.added', output_index: 0, item: { type: 'function_call', id: 'fc_1', call_id: 'call_e', name: 'say', arguments: '' } },
      ...chunks.map((delta) => ({ type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 0, delta })),
      { type: 'response.completed', response: { status: 'completed', output: [] } },
    ])
    expect(parsed.calls).toEqual([{ callId: 'call_e', name: 'say', arguments: args }])
  })
})

describe('B22: a stream that ends mid-arguments', () => {
  const b22 = bugCase('B22')
  const fragments: string[] = b22.input.fragments

  test('B22: incomplete JSON is detected even with stop reason "tool_use"; nothing runs; TRUNCATED_ARGUMENTS, not INVALID_ARGS', () => {
    expect(classifyArguments(fragments.join(''))).toBe('incomplete')
    const parsed = parseAnthropicStream(anthropicToolEvents('toolu_s', 'create_slides', fragments, b22.input.stopReason))
    expect(parsed.status).toBe('truncated')
    expect(parsed.calls).toEqual([])
    expect(parsed.truncated.map((t) => [t.callId, t.name, t.arguments, t.reason])).toEqual([['toolu_s', 'create_slides', fragments.join(''), 'arguments-incomplete']])
    const [result] = truncatedCallResults(parsed.truncated)
    expect(result?.isError).toBe(true)
    expect(result?.content).toEqual([{ type: 'text', text: `Error: ${parsed.truncated[0]?.message}` }])
    expect(result?.isError && result.error.info?.code).toBe('TRUNCATED_ARGUMENTS')
    expect(parsed.truncated[0]?.message).toMatch(/^arguments were truncated at the model's output limit: /)
  })

  test('B22: the same fragments through OpenAI chat with no finish chunk at all (connection dropped)', () => {
    const parsed = parseOpenAIChatStream(chatToolChunks('call_s', 'create_slides', fragments, null))
    expect(parsed.status).toBe('truncated')
    expect(parsed.finish).toEqual({ kind: 'missing' })
    expect(parsed.truncated[0]?.message).toBe(
      'arguments were truncated at the model\'s output limit: the JSON arguments of "create_slides" end before the value is complete (the stream ended without a finish reason), so the call was not executed. Re-issue the call with shorter arguments, for example by splitting large content across several calls.',
    )
  })

  test('B22: malformed JSON is not truncation: it goes to the pipeline (INVALID_ARGS there)', () => {
    const parsed = parseAnthropicStream(anthropicToolEvents('toolu_m', 'create_slides', ['{"file_path_list": ["a", }']))
    expect(parsed.status).toBe('complete')
    expect(parsed.calls[0]?.arguments).toBe('{"file_path_list": ["a", }')
  })

  test('a cut batch withholds its complete calls too (TRUNCATED_RESPONSE), in call order', () => {
    const parsed = parseOpenAIChatStream([
      { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_1', function: { name: 'read', arguments: '{"path":"a"}' } }] } }] },
      { choices: [{ index: 0, delta: { tool_calls: [{ index: 1, id: 'call_2', function: { name: 'write', arguments: '{"path":"b","content":"xy' } }] } }] },
      { choices: [{ index: 0, delta: {}, finish_reason: 'length' }] },
    ])
    expect(parsed.truncated.map((t) => [t.callId, t.reason])).toEqual([
      ['call_1', 'response-cut'],
      ['call_2', 'arguments-incomplete'],
    ])
    const results = truncatedCallResults(parsed.truncated)
    expect(results.map((r) => r.isError && [r.callId, r.error.info?.code, r.error.info?.name])).toEqual([
      ['call_1', 'TRUNCATED_RESPONSE', 'TruncatedResponseError'],
      ['call_2', 'TRUNCATED_ARGUMENTS', 'TruncatedArgumentsError'],
    ])
    expect(parsed.truncated[0]?.message).toBe(
      'the response was cut at the model\'s output limit (finish_reason "length") before the batch of tool calls was complete, so this call to "read" was not executed although its arguments were complete. Re-issue the call.',
    )
    expect(results.every((r) => Object.isFrozen(r) && Object.isFrozen(r.content))).toBe(true)
  })

  test('limits in complete responses: Responses max_output_tokens, Anthropic max_tokens on a last tool_use, Gemini MAX_TOKENS', () => {
    const responses = parseOpenAIResponse({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      output: [{ type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'write', arguments: '{"content":"ab', status: 'incomplete' }],
    })
    expect(responses.status).toBe('truncated')
    expect(responses.finish).toEqual({ kind: 'length', raw: 'incomplete: max_output_tokens' })
    expect(responses.truncated[0]?.reason).toBe('arguments-incomplete')

    const anthropic = parseAnthropicMessage({ content: [{ type: 'text', text: 'Writing.' }, { type: 'tool_use', id: 'toolu_1', name: 'write', input: { path: 'a' } }], stop_reason: 'max_tokens' })
    expect(anthropic.truncated.map((t) => t.reason)).toEqual(['arguments-incomplete'])
    const textLast = parseAnthropicMessage({ content: [{ type: 'tool_use', id: 'toolu_1', name: 'write', input: { path: 'a' } }, { type: 'text', text: 'and then' }], stop_reason: 'max_tokens' })
    expect(textLast.truncated.map((t) => t.reason)).toEqual(['response-cut'])

    const gemini = parseGeminiResponse({ candidates: [{ content: { parts: [{ functionCall: { name: 'write', args: { path: 'a' } } }] }, finishReason: 'MAX_TOKENS' }] })
    expect(gemini.truncated.map((t) => [t.callId, t.reason])).toEqual([['gemini_call_0', 'response-cut']])
    expect(gemini.truncated[0]?.message).toContain('(finishReason "MAX_TOKENS")')
  })
})

describe('B01: empty arguments are a zero-argument call, not truncation', () => {
  test('B01: "" through a finished stream stays "" for the pipeline to read as {}', () => {
    const b01 = bugCase('B01')
    expect(b01.input.rawArguments).toBe('')
    const parsed = parseOpenAIChatStream(chatToolChunks('call_z', 'list', ['']))
    expect(parsed.status).toBe('complete')
    expect(parsed.calls).toEqual([{ callId: 'call_z', name: 'list', arguments: '' }])
  })

  test('B01: "" as the last call of a limit-cut stream is truncated (the arguments never started)', () => {
    const parsed = parseOpenAIChatStream(chatToolChunks('call_z', 'write', [''], 'length'))
    expect(parsed.truncated.map((t) => t.reason)).toEqual(['arguments-incomplete'])
  })
})

describe('chunking never changes the outcome', () => {
  const args = '{"path":"notes/ünïcödé 😀.md","content":"line one\\nline \\"two\\" \\u00e9 𝄞","n":-12.5e3,"ok":true,"none":null,"list":[1,[2],{}]}'

  test('property: any split of the argument text gives the same call for OpenAI, Anthropic and Responses', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: args.length - 1 }), { maxLength: 12 }), (cuts) => {
        const points = [0, ...[...cuts].sort((a, b) => a - b), args.length]
        const pieces = points.slice(1).map((end, i) => args.slice(points[i], end))
        expect(parseOpenAIChatStream(chatToolChunks('c', 'w', pieces)).calls).toEqual([{ callId: 'c', name: 'w', arguments: args }])
        expect(parseAnthropicStream(anthropicToolEvents('c', 'w', pieces)).calls).toEqual([{ callId: 'c', name: 'w', arguments: args }])
        const events = [
          { type: 'response.output_item.added', output_index: 0, item: { type: 'function_call' as const, id: 'fc', call_id: 'c', name: 'w', arguments: '' } },
          ...pieces.map((delta) => ({ type: 'response.function_call_arguments.delta', item_id: 'fc', output_index: 0, delta })),
          { type: 'response.completed', response: { status: 'completed' } },
        ]
        expect(parseOpenAIResponsesStream(events).calls).toEqual([{ callId: 'c', name: 'w', arguments: args }])
      }),
      { numRuns: 150 },
    )
  })

  test('property: every proper prefix of a JSON object is "incomplete", never "malformed"', () => {
    for (let i = 1; i < args.length; i++) expect(classifyArguments(args.slice(0, i))).toBe('incomplete')
    expect(classifyArguments(args)).toBe('complete')
  })

  test('classifyArguments tells truncation from malformed JSON', () => {
    expect(classifyArguments('  ')).toBe('empty')
    expect(classifyArguments('{"a": tru')).toBe('incomplete')
    expect(classifyArguments('{"a": "\\u00')).toBe('incomplete')
    expect(classifyArguments('{"a": 1.')).toBe('incomplete')
    expect(classifyArguments('{"a": 1}}')).toBe('malformed')
    expect(classifyArguments("{'a': 1}")).toBe('malformed')
    expect(classifyArguments('{"a": tx')).toBe('malformed')
    expect(classifyArguments('{"a": "\\x"}')).toBe('malformed')
    expect(classifyArguments('{"a" 1}')).toBe('malformed')
  })
})

describe('stream assembly details', () => {
  test('OpenAI: ids and names only in the first fragment; usage-only chunk and other choices ignored; incremental result', () => {
    const acc = new OpenAIChatStreamAccumulator()
    acc.push({ choices: [{ index: 0, delta: { role: 'assistant', content: 'Checking ' } }] })
    acc.push({ choices: [{ index: 1, delta: { content: 'other choice' } }] })
    acc.push({ choices: [{ index: 0, delta: { content: 'both.', tool_calls: [{ index: 1, id: 'call_b', function: { name: 'b', arguments: '{}' } }] } }] })
    acc.push({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_a', function: { name: 'a', arguments: '{"x":' } }] } }] })
    expect(acc.result().status).toBe('truncated')
    acc.push({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '1}' } }] } }] })
    acc.push({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] })
    acc.push({ choices: [] })
    const parsed = acc.result()
    expect(parsed.text).toBe('Checking both.')
    expect(parsed.calls).toEqual([
      { callId: 'call_a', name: 'a', arguments: '{"x":1}' },
      { callId: 'call_b', name: 'b', arguments: '{}' },
    ])
    expect(acc.result()).toEqual(parsed)
  })

  test('OpenAI: a server that omits ids gets minted ones, reported as issues', () => {
    const parsed = parseOpenAIChatStream([
      { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { name: 'a', arguments: '{}' } }] } }] },
      { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
    ])
    expect(parsed.calls).toEqual([{ callId: 'call_0', name: 'a', arguments: '{}' }])
    expect(parsed.issues).toEqual([{ pointer: '/tool_calls/0/id', message: 'missing call id; minted one' }])
  })

  test('complete responses: a missing id is minted past taken ones, a repeated id is kept; both reported with the provider field name', () => {
    const chat = parseOpenAIChatCompletion({
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: {
            tool_calls: [
              { id: 'call_1', function: { name: 'a', arguments: '{}' } },
              { function: { name: 'b', arguments: '{}' } },
              { id: 'call_1', function: { name: 'c', arguments: '{}' } },
            ],
          },
        },
      ],
    })
    expect(chat.calls.map((c) => c.callId)).toEqual(['call_1', 'call_2', 'call_1_2'])
    expect(chat.issues).toEqual([
      { pointer: '/choices/0/message/tool_calls/1/id', message: 'missing call id; minted one' },
      { pointer: '/choices/0/message/tool_calls/2/id', message: 'duplicate call id "call_1"; this call is "call_1_2" in the batch, its result and the assistant turn' },
    ])
    const anthropic = parseAnthropicMessage({
      stop_reason: 'tool_use',
      content: [
        { type: 'tool_use', name: 'a', input: {} },
        { type: 'tool_use', id: 't', name: 'b', input: {} },
        { type: 'tool_use', id: 't', name: 'c', input: {} },
      ],
    })
    expect(anthropic.calls.map((c) => c.callId)).toEqual(['toolu_0', 't', 't_2'])
    expect(anthropic.issues).toEqual([
      { pointer: '/content/0/id', message: 'missing tool_use id; minted one' },
      { pointer: '/content/2/id', message: 'duplicate tool_use id "t"; this call is "t_2" in the batch, its result and the assistant turn' },
    ])
    const responses = parseOpenAIResponse({
      status: 'completed',
      output: [
        { type: 'function_call', name: 'a', arguments: '{}' },
        { type: 'function_call', call_id: 'c', name: 'b', arguments: '{}' },
        { type: 'function_call', call_id: 'c', name: 'c', arguments: '{}' },
      ],
    })
    expect(responses.calls.map((c) => c.callId)).toEqual(['call_0', 'c', 'c_2'])
    expect(responses.issues).toEqual([
      { pointer: '/output/0/call_id', message: 'missing call_id; minted one' },
      { pointer: '/output/2/call_id', message: 'duplicate call_id "c"; this call is "c_2" in the batch, its result and the assistant turn' },
    ])
  })

  test('model-written ids and names in issues and truncation messages show invisible characters escaped (quoteText), not raw', () => {
    const chat = parseOpenAIChatCompletion({
      choices: [
        {
          finish_reason: 'length',
          message: {
            tool_calls: [
              { id: 'c\u200B', function: { name: 'a', arguments: '{}' } },
              { id: 'c\u200B', function: { name: 'wri\u2060te\u0085', arguments: '{"path": "x' } },
            ],
          },
        },
      ],
    })
    expect(chat.issues).toEqual([
      { pointer: '/choices/0/message/tool_calls/1/id', message: 'duplicate call id "c\\u200B"; this call is "c\\u200B_2" in the batch, its result and the assistant turn' },
    ])
    expect(chat.truncated.map((t) => t.message)).toEqual([
      'the response was cut at the model\'s output limit (finish_reason "length") before the batch of tool calls was complete, so this call to "a" was not executed although its arguments were complete. Re-issue the call.',
      'arguments were truncated at the model\'s output limit: the JSON arguments of "wri\\u2060te\\u0085" end before the value is complete (finish_reason "length"), so the call was not executed. Re-issue the call with shorter arguments, for example by splitting large content across several calls.',
    ])
  })

  test('Responses: a .done arguments value wins over the deltas; text deltas collected', () => {
    const parsed = parseOpenAIResponsesStream([
      { type: 'response.output_text.delta', delta: 'Sure.' },
      { type: 'response.output_item.added', output_index: 1, item: { type: 'function_call', id: 'fc_9', call_id: 'call_9', name: 'w', arguments: '' } },
      { type: 'response.function_call_arguments.delta', item_id: 'fc_9', output_index: 1, delta: '{"a":' },
      { type: 'response.function_call_arguments.done', item_id: 'fc_9', output_index: 1, arguments: '{"a":1}' },
      { type: 'response.completed', response: { status: 'completed' } },
    ])
    expect(parsed.text).toBe('Sure.')
    expect(parsed.calls).toEqual([{ callId: 'call_9', name: 'w', arguments: '{"a":1}' }])
    expect(parsed.finish).toEqual({ kind: 'tool-calls', raw: 'completed' })
  })

  test('Gemini: parts accumulate across chunks, thoughts are not text, a missing finishReason is a cut, a sent id is kept', () => {
    const chunks = [
      { candidates: [{ content: { role: 'model', parts: [{ text: 'thinking…', thought: true }, { text: 'Let me ' }] } }] },
      { candidates: [{ content: { role: 'model', parts: [{ text: 'look.' }, { functionCall: { name: 'get', args: { k: 1 } } }] } }] },
      { candidates: [{ content: { role: 'model', parts: [{ functionCall: { id: 'fc-abc', name: 'put' } }] }, finishReason: 'STOP' }] },
    ]
    const parsed = parseGeminiStream(chunks, { idPrefix: 'turn3_' })
    expect(parsed.text).toBe('Let me look.')
    expect(parsed.calls).toEqual([
      { callId: 'turn3_0', name: 'get', arguments: { k: 1 } },
      { callId: 'fc-abc', name: 'put', arguments: {} },
    ])
    const acc = new GeminiStreamAccumulator()
    acc.push(chunks[0] as never)
    acc.push(chunks[1] as never)
    expect(acc.result().status).toBe('truncated')
  })

  test('Gemini: MALFORMED_FUNCTION_CALL is reported with its message; a blocked prompt is filtered', () => {
    const malformed = parseGeminiResponse({ candidates: [{ content: { parts: [] }, finishReason: 'MALFORMED_FUNCTION_CALL', finishMessage: 'Malformed function call: print(x' }] })
    expect(malformed.finish).toEqual({ kind: 'malformed', raw: 'MALFORMED_FUNCTION_CALL' })
    expect(malformed.issues).toEqual([{ pointer: '/candidates/0/finishMessage', message: 'Malformed function call: print(x' }])
    expect(parseGeminiResponse({ promptFeedback: { blockReason: 'SAFETY' } }).finish).toEqual({ kind: 'filtered', raw: 'SAFETY' })
  })

  test('leaked markup dialects are recognised', () => {
    const cases: [string, string][] = [
      ['<tool_call>{"name": "ls", "arguments": {}}</tool_call>', 'hermes'],
      ['<function=list_dir><parameter=path>.</parameter></function>', 'function-tag'],
      ['{"tool_calls": [{"name": "ls"}]}', 'json-tool-calls'],
      ['[TOOL_CALLS][{"name": "ls"}]', 'mistral'],
      ['<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>ls', 'deepseek-v3'],
      ['<|python_tag|>ls()', 'llama-python-tag'],
      ['<|tool_calls_section_begin|>', 'kimi'],
      ['<function_calls><invoke name="ls"></invoke></function_calls>', 'xml-invoke'],
    ]
    for (const [text, marker] of cases) {
      const parsed = parseAnthropicMessage({ content: [{ type: 'text', text }], stop_reason: 'end_turn' })
      expect(parsed.leakedMarkup.map((m) => m.marker)).toEqual([marker])
    }
    expect(parseAnthropicMessage({ content: [{ type: 'text', text: 'The weather in Oslo is 4°C.' }], stop_reason: 'end_turn' }).leakedMarkup).toEqual([])
  })
})
