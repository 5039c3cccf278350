/**
 * Every example of `model-outputs/provider_emissions.json`, each with its expected outcome as
 * far as this layer owns it (what the pipeline or the core's repair decides is named in the
 * test and checked on the raw batch we hand over).
 */
import { describe, expect, test } from 'vitest'
import type { ToolResult } from '@deepseek-ai/dsh-tools'
import {
  classifyArguments,
  parseAnthropicMessage,
  parseAnthropicStream,
  parseGeminiResponse,
  parseOpenAIChatCompletion,
  parseOpenAIChatMessage,
  parseOpenAIChatStream,
  parseOpenAIResponse,
  toAnthropicToolResultMessage,
  toGeminiFunctionResponses,
  toOpenAIChatTools,
  toOpenAIChatToolMessages,
  toOpenAIResponsesOutputs,
  truncatedCallResults,
} from '../src/providers'
import { emissionExamples, toolbenchTraces, type EmissionExample } from './providers-fixtures'

const examples = new Map(emissionExamples().map((e) => [e.id, e]))
const example = (id: string): EmissionExample => {
  const found = examples.get(id)
  if (!found) throw new Error(`example ${id} missing from provider_emissions.json`)
  return found
}
const ok = (callId: string, text: string): ToolResult => ({ callId, isError: false, value: text, content: [{ type: 'text', text }] })
const fail = (callId: string, message: string): ToolResult => ({ callId, isError: true, error: { message, info: { name: 'ToolError', code: 'TOOL_FAILED' } }, content: [{ type: 'text', text: `Error: ${message}` }] })

const COVERED = ['E01', 'E02', 'E03', 'E04', 'E05', 'E06', 'E07', 'E08', 'E09', 'E10', 'E11', 'E12', 'E13', 'E14', 'E15', 'E16', 'E17', 'E18', 'E19', 'E24', 'E25', 'E26']

test('every example in provider_emissions.json is covered below', () => {
  expect([...examples.keys()].sort()).toEqual([...COVERED].sort())
})

test('toolbench_problem_calls.json: every recorded legacy function_call reaches the batch with its name and raw arguments unchanged', () => {
  const traces = toolbenchTraces()
  expect(traces).toHaveLength(17)
  const declared = toOpenAIChatTools({ tools: [{ name: 'search_basic_free_for_streaming_availability', description: '', parameters: { type: 'object', properties: {} } }] })
  for (const trace of traces) {
    const parsed = parseOpenAIChatMessage({ role: 'assistant', content: null, function_call: { name: trace.name, arguments: trace.arguments_raw } }, 'function_call', { nameMap: declared.nameMap })
    expect(parsed.status).toBe('complete')
    expect(parsed.calls).toEqual([{ callId: 'call_0', name: trace.name, arguments: trace.arguments_raw }])
    expect(classifyArguments(trace.arguments_raw)).toBe('complete')
    // unknown names are the pipeline's UNKNOWN_TOOL; this layer only must not rename them
    expect(declared.nameMap.hasWire(trace.name)).toBe(trace.name === 'search_basic_free_for_streaming_availability')
  }
  expect(traces.filter((t) => t.problem === 'unknown-function-name')).toHaveLength(15)
})

describe('OpenAI Chat Completions', () => {
  test('E01: arguments arrive as the JSON string, content null', () => {
    const e = example('E01')
    const parsed = parseOpenAIChatCompletion(e.payload)
    expect(parsed.status).toBe('complete')
    expect(parsed.calls).toEqual([{ callId: 'call_a1', name: 'get_weather', arguments: '{"city": "Oslo", "unit": "celsius"}' }])
    expect(parsed.calls.map((c) => ({ id: c.callId, name: c.name, arguments: JSON.parse(c.arguments as string) }))).toEqual(e.expected.calls)
    expect(parsed.text).toBe('')
    expect(parsed.finish).toEqual({ kind: 'tool-calls', raw: 'tool_calls' })
    expect(parsed.leakedMarkup).toEqual([])
  })

  test('E02: three parallel calls; one role=tool message per call in call order', () => {
    const e = example('E02')
    const parsed = parseOpenAIChatCompletion(e.payload)
    expect(parsed.calls).toHaveLength(e.expected.calls)
    expect(parsed.calls.map((c) => [c.callId, c.name])).toEqual([
      ['call_p1', 'get_weather'],
      ['call_p2', 'get_weather'],
      ['call_p3', 'get_time'],
    ])
    // results delivered out of order still come back in call order
    const results = [ok('call_p3', '10:00'), ok('call_p1', '4°C'), fail('call_p2', 'upstream down')]
    expect(toOpenAIChatToolMessages(parsed.calls, results)).toEqual([
      { role: 'tool', tool_call_id: 'call_p1', content: '4°C' },
      { role: 'tool', tool_call_id: 'call_p2', content: 'Error: upstream down' },
      { role: 'tool', tool_call_id: 'call_p3', content: '10:00' },
    ])
  })

  test('E03: fragments split inside keys and values assemble by index; parsed only after finish_reason', () => {
    const e = example('E03')
    const parsed = parseOpenAIChatStream(e.payload)
    expect(parsed.status).toBe('complete')
    expect(parsed.calls).toEqual([{ callId: 'call_s1', name: 'get_weather', arguments: '{"city": "Oslo"}' }])
    expect(parsed.calls.map((c) => ({ id: c.callId, name: c.name, arguments: JSON.parse(c.arguments as string) }))).toEqual(e.expected.calls)
    // without the final chunk the stream is incomplete: nothing runs
    const cut = parseOpenAIChatStream(e.payload.slice(0, 3))
    expect(cut.status).toBe('truncated')
    expect(cut.truncated.map((t) => t.reason)).toEqual(['arguments-incomplete'])
  })

  test('E04: interleaved parallel fragments go to their own index, never to "the last open call"', () => {
    const e = example('E04')
    const parsed = parseOpenAIChatStream(e.payload, { provider: 'openai-compatible' })
    expect(parsed.provider).toBe('openai-compatible')
    expect(parsed.calls).toEqual([
      { callId: 'call_i0', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      { callId: 'call_i1', name: 'get_weather', arguments: '{"city":"Lima"}' },
    ])
    expect(parsed.calls.map((c) => ({ id: c.callId, arguments: JSON.parse(c.arguments as string) }))).toEqual(e.expected.calls)
  })

  test('E11: finish_reason "length" with incomplete arguments is truncated, never executed', () => {
    const e = example('E11')
    const chunks = [
      { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_w', type: 'function', function: { name: 'write_file', arguments: e.payload.arguments } }] } }] },
      { choices: [{ index: 0, delta: {}, finish_reason: e.payload.final_finish_reason }] },
    ]
    const parsed = parseOpenAIChatStream(chunks)
    expect(parsed.status).toBe('truncated')
    expect(parsed.calls).toEqual([])
    expect(parsed.truncated).toEqual([
      {
        callId: 'call_w',
        name: 'write_file',
        arguments: '{"path":"a.txt","content":"abc',
        reason: 'arguments-incomplete',
        message:
          'arguments were truncated at the model\'s output limit: the JSON arguments of "write_file" end before the value is complete (finish_reason "length"), so the call was not executed. Re-issue the call with shorter arguments, for example by splitting large content across several calls.',
      },
    ])
  })

  test('E11: a translator relabelling "length" as "tool_use" is not trusted: the JSON is checked', () => {
    const e = example('E11')
    const parsed = parseAnthropicStream([
      { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_w', name: 'write_file', input: {} } },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: e.payload.arguments } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: e.payload.translated_stop_reason } },
    ])
    expect(parsed.status).toBe('truncated')
    expect(parsed.finish).toEqual({ kind: 'tool-calls', raw: 'tool_use' })
    expect(parsed.truncated[0]?.reason).toBe('arguments-incomplete')
    expect(parsed.truncated[0]?.message).toContain('(stop_reason "tool_use", but the JSON is incomplete)')
  })

  test('E12: empty-string arguments pass through as "" (the pipeline maps "" to {} and validates: B01)', () => {
    const e = example('E12')
    const parsed = parseOpenAIChatMessage(e.payload, 'tool_calls')
    expect(parsed.status).toBe('complete')
    expect(parsed.calls).toEqual([{ callId: 'call_e', name: 'health', arguments: '' }])
    expect(classifyArguments('')).toBe('empty')
    expect(e.expected.arguments).toEqual({})
  })

  test('E13: double-encoded arguments are handed over byte-exact; deciding strict vs lenient is the core repair', () => {
    const e = example('E13')
    const parsed = parseOpenAIChatMessage(e.payload, 'tool_calls')
    expect(parsed.status).toBe('complete')
    const raw = parsed.calls[0]?.arguments as string
    expect(raw).toBe('"{\\"city\\": \\"Oslo\\"}"')
    expect(classifyArguments(raw)).toBe('complete')
    expect(typeof JSON.parse(raw)).toBe('string') // strict: "arguments decode to a string, not an object"
    expect(JSON.parse(JSON.parse(raw) as string)).toEqual(e.expected.lenient)
  })

  test('E14: string-encoded nested values are handed over byte-exact (repair decides, never this layer)', () => {
    const e = example('E14')
    const parsed = parseOpenAIChatMessage(e.payload, 'tool_calls')
    expect(parsed.status).toBe('complete')
    expect(parsed.calls[0]?.arguments).toBe(e.payload.tool_calls[0].function.arguments)
    const decoded = JSON.parse(parsed.calls[0]?.arguments as string) as { todos: unknown; note: string }
    expect(typeof decoded.todos).toBe('string') // strict: "error at /todos: expected array, got string"
    expect({ ...decoded, todos: JSON.parse(decoded.todos as string) }).toEqual(e.expected.lenient)
  })

  test('E15: trailing prose after the JSON is malformed, not truncated: it still goes to the pipeline', () => {
    const e = example('E15')
    const parsed = parseOpenAIChatMessage(e.payload, 'tool_calls')
    expect(parsed.status).toBe('complete')
    expect(parsed.calls).toEqual([{ callId: 'call_t', name: 'search', arguments: '{"query": "todo", "limit": 10}\n\nNow I will search for the items.' }])
    expect(classifyArguments(parsed.calls[0]?.arguments as string)).toBe('malformed')
    expect(JSON.parse('{"query": "todo", "limit": 10}')).toEqual(e.expected.lenient)
  })

  test('E19: DSML tool-call markup in content without tool_calls is recovered into the call the example lists, not a final answer', () => {
    const e = example('E19')
    const parsed = parseOpenAIChatCompletion(e.payload, { provider: 'deepseek' })
    expect(parsed.status).toBe('recovered')
    expect(parsed.calls.map(({ name, arguments: args }) => ({ name, arguments: args }))).toEqual(e.expected.parsed_if_supported)
    expect(parsed.calls.map((c) => c.callId)).toEqual(['text_call_0'])
    expect(parsed.finish).toEqual({ kind: 'stop', raw: 'stop' })
    expect(parsed.leakedMarkup).toEqual([{ marker: 'dsml', offset: 0, excerpt: e.payload.choices[0].message.content.slice(0, 80) }])
    // the marker variants the note names: ASCII | and U+2016
    for (const bar of ['|', '\u2016']) {
      const content = (e.payload.choices[0].message.content as string).replaceAll('\uFF5C', bar)
      const variant = parseOpenAIChatMessage({ role: 'assistant', content, tool_calls: null }, 'stop')
      expect(variant.leakedMarkup.map((m) => m.marker)).toEqual(['dsml'])
      expect(variant.status === 'recovered' && variant.calls.map((c) => [c.name, c.arguments])).toEqual([['list_dir', { path: './docs' }]])
    }
  })

  test('E19: markup split across stream chunks is found once the text is assembled', () => {
    const content = example('E19').payload.choices[0].message.content as string
    const pieces = [content.slice(0, 3), content.slice(3, 9), content.slice(9)]
    const parsed = parseOpenAIChatStream([
      ...pieces.map((piece) => ({ choices: [{ index: 0, delta: { content: piece } }] })),
      { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
    ])
    expect(parsed.text).toBe(content)
    expect(parsed.leakedMarkup.map((m) => [m.marker, m.offset])).toEqual([['dsml', 0]])
    expect(parsed.status).toBe('recovered')
  })

  test('E24: a dotted name is sent sanitized and the model\'s call maps back to it', () => {
    const e = example('E24')
    const declared = toOpenAIChatTools({ tools: [{ name: e.payload.declared_name, description: 'Call an Uber ride', parameters: { type: 'object', properties: {} } }] })
    expect(declared.tools[0]?.function.name).toBe(e.payload.name_sent_to_provider)
    expect(declared.warnings).toEqual([
      { tool: 'uber.ride', pointer: '/name', code: 'NAME_MAPPED', message: 'name "uber.ride" breaks the provider rule ^[a-zA-Z0-9_-]{1,64}$; sent as "uber_ride"' },
    ])
    const parsed = parseOpenAIChatMessage(
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_u', type: 'function', function: { name: e.payload.model_called, arguments: e.payload.arguments } }] },
      'tool_calls',
      { nameMap: declared.nameMap },
    )
    expect(parsed.calls).toEqual([{ callId: 'call_u', name: 'uber.ride', arguments: e.payload.arguments }])
  })

  test('E25: an unknown name passes through unchanged so the pipeline answers UNKNOWN_TOOL with the valid names', () => {
    const e = example('E25')
    const declared = toOpenAIChatTools({ tools: e.payload.available.map((name: string) => ({ name, description: '', parameters: { type: 'object', properties: {} } })) })
    const parsed = parseOpenAIChatCompletion(
      { choices: [{ index: 0, finish_reason: 'function_call', message: { role: 'assistant', content: null, function_call: e.payload.function_call } }] },
      { nameMap: declared.nameMap },
    )
    expect(parsed.status).toBe('complete')
    expect(parsed.calls).toEqual([{ callId: 'call_0', name: 'authenticate_authentication_system', arguments: '{}' }])
    expect(declared.nameMap.hasWire('authenticate_authentication_system')).toBe(false)
    expect(parsed.issues).toEqual([{ pointer: '/choices/0/message/function_call', message: 'legacy function_call (no call id); minted one' }])
  })
})

describe('OpenAI Responses', () => {
  test('E05: calls pair by call_id, not by the item id; the result item is function_call_output', () => {
    const e = example('E05')
    const parsed = parseOpenAIResponse(e.payload)
    expect(parsed.calls).toEqual([{ callId: 'call_r1', name: 'get_weather', arguments: '{"city": "Oslo"}' }])
    expect(parsed.calls.map((c) => ({ id: c.callId, name: c.name, arguments: JSON.parse(c.arguments as string) }))).toEqual(e.expected.calls)
    const [item] = toOpenAIResponsesOutputs(parsed.calls, [ok('call_r1', '4°C')])
    expect(item).toEqual({ type: 'function_call_output', call_id: 'call_r1', output: '4°C' })
    expect(Object.keys(item ?? {})).toEqual(Object.keys(e.expected.result_item))
  })
})

describe('Anthropic Messages', () => {
  test('E06: input is already an object; text before the call is kept', () => {
    const e = example('E06')
    const parsed = parseAnthropicMessage(e.payload)
    expect(parsed.calls).toEqual([{ callId: 'toolu_01', name: 'get_weather', arguments: { city: 'Oslo' } }])
    expect(parsed.calls.map((c) => ({ id: c.callId, name: c.name, arguments: c.arguments }))).toEqual(e.expected.calls)
    expect(parsed.text).toBe(e.expected.text_before_call)
    expect(parsed.finish).toEqual({ kind: 'tool-calls', raw: 'tool_use' })
  })

  test('E07: every tool_use gets a tool_result in one user message; failures carry is_error', () => {
    const e = example('E07')
    const parsed = parseAnthropicMessage(e.payload)
    const message = toAnthropicToolResultMessage(parsed.calls, [ok('toolu_a', '4°C'), fail('toolu_b', 'station offline')])
    expect(message).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_a', content: '4°C' },
        { type: 'tool_result', tool_use_id: 'toolu_b', content: 'Error: station offline', is_error: true },
      ],
    })
    const expected = e.expected.next_user_message
    expect(message.role).toBe(expected.role)
    expect(message.content.map((b) => [b.type, b.tool_use_id, b.is_error ?? false])).toEqual(
      expected.content.map((b: { type: string; tool_use_id: string; is_error?: boolean }) => [b.type, b.tool_use_id, b.is_error ?? false]),
    )
  })

  test('E08: the input {} placeholder is replaced by the concatenated partial_json', () => {
    const e = example('E08')
    const parsed = parseAnthropicStream(e.payload)
    expect(parsed.calls).toEqual([{ callId: 'toolu_s1', name: 'get_weather', arguments: '{"city": "Oslo"}' }])
    expect(parsed.calls.map((c) => ({ id: c.callId, arguments: JSON.parse(c.arguments as string) }))).toEqual(e.expected.calls)
  })

  test('E09: a zero-argument tool with no input_json_delta gets {} (never a parse error)', () => {
    const e = example('E09')
    const parsed = parseAnthropicStream(e.payload)
    expect(parsed.status).toBe('complete')
    expect(parsed.calls).toEqual([{ callId: 'toolu_z', name: 'list_allowed_directories', arguments: {} }])
    expect(parsed.calls.map((c) => ({ id: c.callId, arguments: c.arguments }))).toEqual(e.expected.calls)
    // only empty partial_json fragments: the same
    const withEmpty = parseAnthropicStream([e.payload[0], { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '' } }, ...e.payload.slice(1)])
    expect(withEmpty.calls).toEqual(parsed.calls)
  })

  test('E10: cut by max_tokens → not executed; the helper answers TRUNCATED_ARGUMENTS', () => {
    const e = example('E10')
    expect(e.expected.execute).toBe(false)
    const parsed = parseAnthropicStream(e.payload)
    expect(parsed.status).toBe('truncated')
    expect(parsed.calls).toEqual([])
    expect(parsed.finish).toEqual({ kind: 'length', raw: 'max_tokens' })
    const message =
      'arguments were truncated at the model\'s output limit: the JSON arguments of "write_file" end before the value is complete (stop_reason "max_tokens"), so the call was not executed. Re-issue the call with shorter arguments, for example by splitting large content across several calls.'
    expect(parsed.truncated).toEqual([{ callId: 'toolu_t', name: 'write_file', arguments: '{"path": "notes.md", "content": "line one\\nline tw', reason: 'arguments-incomplete', message }])
    expect(truncatedCallResults(parsed.truncated)).toEqual([
      {
        callId: 'toolu_t',
        isError: true,
        error: {
          message,
          info: {
            name: 'TruncatedArgumentsError',
            code: 'TRUNCATED_ARGUMENTS',
            reason: 'the model reached its output token limit while writing tool calls; raise the output budget (max_tokens) or ask for smaller calls, then retry',
          },
        },
        content: [{ type: 'text', text: `Error: ${message}` }],
        meta: { toolName: 'write_file' },
      },
    ])
    expect(toAnthropicToolResultMessage(parsed.truncated, truncatedCallResults(parsed.truncated))).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_t', content: `Error: ${message}`, is_error: true }],
    })
  })
})

describe('provider-neutral argument quirks (E16–E18): this layer passes arguments through untouched', () => {
  for (const id of ['E16', 'E17', 'E18']) {
    test(`${id}: object arguments reach the batch unchanged from Anthropic and Gemini, and byte-exact from OpenAI`, () => {
      const e = example(id)
      const args = e.payload.arguments
      const anthropic = parseAnthropicMessage({ content: [{ type: 'tool_use', id: 'toolu_q', name: 'tool', input: args }], stop_reason: 'tool_use' })
      expect(anthropic.calls).toEqual([{ callId: 'toolu_q', name: 'tool', arguments: args }])
      const gemini = parseGeminiResponse({ candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'tool', args } }] }, finishReason: 'STOP' }] })
      expect(gemini.calls).toEqual([{ callId: 'gemini_call_0', name: 'tool', arguments: args }])
      const text = JSON.stringify(args)
      const openai = parseOpenAIChatMessage({ role: 'assistant', tool_calls: [{ id: 'call_q', type: 'function', function: { name: 'tool', arguments: text } }] }, 'tool_calls')
      expect(openai.calls).toEqual([{ callId: 'call_q', name: 'tool', arguments: text }])
    })
  }

  test('E16: string numbers stay strings here (coercion is the core repair: expected.coerce)', () => {
    const e = example('E16')
    const parsed = parseAnthropicMessage({ content: [{ type: 'tool_use', id: 'toolu_c', name: 'read', input: e.payload.arguments }], stop_reason: 'tool_use' })
    expect(parsed.calls[0]?.arguments).toEqual({ path: '/var/data/x.txt', offset: '500', insert_line: '12' })
    expect(e.expected.coerce).toEqual({ path: '/var/data/x.txt', offset: 500, insert_line: 12 })
  })

  test('E17: nulls stay nulls here (null-as-absent is the core repair: expected.lenient)', () => {
    const e = example('E17')
    const parsed = parseAnthropicMessage({ content: [{ type: 'tool_use', id: 'toolu_n', name: 'search', input: e.payload.arguments }], stop_reason: 'tool_use' })
    expect(parsed.calls[0]?.arguments).toEqual({ query: 'cats', limit: null, tag: null })
  })

  test('E18: placeholder and decorated values are schema-valid and are not touched', () => {
    const e = example('E18')
    expect(e.expected.schema_valid).toBe(true)
    const parsed = parseGeminiResponse({ candidates: [{ content: { parts: [{ functionCall: { name: 'grep', args: e.payload.arguments } }] }, finishReason: 'STOP' }] })
    expect(parsed.calls[0]?.arguments).toEqual({ path: '`src/app.ts`', pattern: '', include: [], options: {}, start_line: 10 })
  })
})

describe('Gemini', () => {
  test('E26: args objects; ids minted in order; functionResponse parts answer in the same order', () => {
    const e = example('E26')
    const parsed = parseGeminiResponse(e.payload)
    expect(parsed.calls).toHaveLength(e.expected.calls)
    expect(parsed.calls).toEqual([
      { callId: 'gemini_call_0', name: 'get_weather', arguments: { city: 'Oslo' } },
      { callId: 'gemini_call_1', name: 'get_weather', arguments: { city: 'Lima' } },
    ])
    expect(parsed.finish).toEqual({ kind: 'tool-calls', raw: 'STOP' })
    expect(toGeminiFunctionResponses(parsed.calls, [ok('gemini_call_1', '20°C'), ok('gemini_call_0', '4°C')])).toEqual({
      role: 'user',
      parts: [
        { functionResponse: { name: 'get_weather', response: { output: '4°C' } } },
        { functionResponse: { name: 'get_weather', response: { output: '20°C' } } },
      ],
    })
  })
})
