/** Results → provider messages: pairing, order, error flags, images and contexts. */
import { describe, expect, test } from 'vitest'
import type { RawToolCall, ToolResult } from '@deepseek-ai/dsh-tools'
import {
  ResultPairingError,
  assignWireNames,
  GEMINI_NAME_RULE,
  parseOpenAIChatStream,
  settleParsedCalls,
  toAnthropicToolResultMessage,
  toGeminiFunctionResponses,
  toOpenAIChatToolMessages,
  toOpenAIResponsesOutputs,
} from '../src/providers'

const calls: RawToolCall[] = [
  { callId: 'c1', name: 'read_image', arguments: '{"path":"a.png"}' },
  { callId: 'c2', name: 'math.factorial', arguments: '{"n":5}' },
  { callId: 'c3', name: 'list', arguments: '' },
]
const PNG = 'iVBORw0KGgo='
const results: ToolResult[] = [
  {
    callId: 'c2',
    isError: true,
    error: { message: 'n must be at most 20', info: { name: 'ToolError', code: 'INVALID_ARGS', reason: 'user-facing' } },
    content: [{ type: 'text', text: 'Error: n must be at most 20' }],
  },
  {
    callId: 'c1',
    isError: false,
    value: { ok: true },
    content: [
      { type: 'text', text: 'a.png (2x2)' },
      { type: 'image', data: PNG, mimeType: 'image/png' },
    ],
    contexts: [{ source: 'read_image (c1:code:1)', content: [{ type: 'text', text: 'thumbnail ready' }] }],
  },
  { callId: 'c3', isError: false, value: [], content: [] },
]

describe('pairing', () => {
  test('a missing or extra result is a ResultPairingError naming the call', () => {
    expect(() => toOpenAIChatToolMessages(calls, results.slice(0, 2))).toThrow(new ResultPairingError('no result for call "c3" (list); every call needs exactly one result', 'c3'))
    const extra: ToolResult = { callId: 'zz', isError: false, value: 1, content: [] }
    expect(() => toAnthropicToolResultMessage(calls, [...results, extra])).toThrow('result for call "zz" matches no call in the batch')
    try {
      toGeminiFunctionResponses(calls, results.slice(1))
    } catch (error) {
      expect(error).toBeInstanceOf(ResultPairingError)
      expect((error as ResultPairingError).callId).toBe('c2')
    }
    expect.assertions(4)
  })

  test('repeated call ids pair in order of appearance', () => {
    const twice: RawToolCall[] = [
      { callId: 'd', name: 'a', arguments: '{}' },
      { callId: 'd', name: 'b', arguments: '{}' },
    ]
    const out = toOpenAIResponsesOutputs(twice, [
      { callId: 'd', isError: false, value: 1, content: [{ type: 'text', text: 'first' }] },
      { callId: 'd', isError: false, value: 2, content: [{ type: 'text', text: 'second' }] },
    ])
    expect(out.map((o) => o.output)).toEqual(['first', 'second'])
  })
})

test('OpenAI chat: tool messages in call order, images in one trailing user message, contexts as text', () => {
  expect(toOpenAIChatToolMessages(calls, results)).toEqual([
    {
      role: 'tool',
      tool_call_id: 'c1',
      content: 'a.png (2x2)\n[image 1 (image/png) is attached in the next user message]\n[context from read_image (c1:code:1)]\nthumbnail ready',
    },
    { role: 'tool', tool_call_id: 'c2', content: 'Error: n must be at most 20' },
    { role: 'tool', tool_call_id: 'c3', content: '' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Images returned by the tool calls above:' },
        { type: 'text', text: 'image 1 (tool call c1):' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
      ],
    },
  ])
  // text-only servers (DeepSeek)
  expect(toOpenAIChatToolMessages(calls, results, { images: 'omit' })).toEqual([
    {
      role: 'tool',
      tool_call_id: 'c1',
      content: 'a.png (2x2)\n[image 1 (image/png) omitted: this model input takes text only]\n[context from read_image (c1:code:1)]\nthumbnail ready',
    },
    { role: 'tool', tool_call_id: 'c2', content: 'Error: n must be at most 20' },
    { role: 'tool', tool_call_id: 'c3', content: '' },
  ])
})

test('OpenAI Responses: function_call_output per call; multimodal output as input_text/input_image parts', () => {
  expect(toOpenAIResponsesOutputs(calls, results)).toEqual([
    {
      type: 'function_call_output',
      call_id: 'c1',
      output: [
        { type: 'input_text', text: 'a.png (2x2)' },
        { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' },
        { type: 'input_text', text: '[context from read_image (c1:code:1)]' },
        { type: 'input_text', text: 'thumbnail ready' },
      ],
    },
    { type: 'function_call_output', call_id: 'c2', output: 'Error: n must be at most 20' },
    { type: 'function_call_output', call_id: 'c3', output: '' },
  ])
})

test('Anthropic: one user message; is_error only on failures; image blocks; empty content omitted', () => {
  expect(toAnthropicToolResultMessage(calls, results)).toEqual({
    role: 'user',
    content: [
      {
        type: 'tool_result',
        tool_use_id: 'c1',
        content: [
          { type: 'text', text: 'a.png (2x2)' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
          { type: 'text', text: '[context from read_image (c1:code:1)]' },
          { type: 'text', text: 'thumbnail ready' },
        ],
      },
      { type: 'tool_result', tool_use_id: 'c2', content: 'Error: n must be at most 20', is_error: true },
      { type: 'tool_result', tool_use_id: 'c3' },
    ],
  })
})

test('Gemini: functionResponse per call with the declared name; error key on failures; provider ids echoed, minted ones not', () => {
  const nameMap = assignWireNames(['read_image', 'math.factorial', 'list'], GEMINI_NAME_RULE)
  const geminiCalls: RawToolCall[] = [{ ...calls[0], callId: 'gemini_call_0' } as RawToolCall, { ...calls[1], callId: 'fc-77' } as RawToolCall, { ...calls[2], callId: 'gemini_call_2' } as RawToolCall]
  const geminiResults = results.map((r, i) => ({ ...r, callId: ['fc-77', 'gemini_call_0', 'gemini_call_2'][i] as string }))
  expect(toGeminiFunctionResponses(geminiCalls, geminiResults, { nameMap })).toEqual({
    role: 'user',
    parts: [
      {
        functionResponse: {
          name: 'read_image',
          response: { output: 'a.png (2x2)\n[image 1 (image/png) is attached after the function responses]\n[context from read_image (c1:code:1)]\nthumbnail ready' },
        },
      },
      { functionResponse: { id: 'fc-77', name: 'math.factorial', response: { error: 'Error: n must be at most 20' } } },
      { functionResponse: { name: 'list', response: { output: '' } } },
      { text: 'image 1 (read_image call gemini_call_0):' },
      { inlineData: { mimeType: 'image/png', data: PNG } },
    ],
  })
  // a sanitized name goes back under its Gemini name
  const underscored = assignWireNames(['3d.render'], GEMINI_NAME_RULE)
  const out = toGeminiFunctionResponses([{ callId: 'gemini_call_0', name: '3d.render', arguments: {} }], [{ callId: 'gemini_call_0', isError: false, value: 1, content: [{ type: 'text', text: 'ok' }] }], {
    nameMap: underscored,
    images: 'omit',
  })
  expect(out.parts).toEqual([{ functionResponse: { name: '_3d.render', response: { output: 'ok' } } }])
})

describe('settleParsedCalls', () => {
  test('a complete batch runs once through execute; a cut one never runs and gets truncation failures', async () => {
    const seen: (readonly RawToolCall[])[] = []
    const execute = async (batch: readonly RawToolCall[]) => {
      seen.push(batch)
      return batch.map((c): ToolResult => ({ callId: c.callId, isError: false, value: 1, content: [{ type: 'text', text: `ran ${c.name}` }] }))
    }
    const complete = parseOpenAIChatStream([
      { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'a', function: { name: 'x', arguments: '{}' } }] } }] },
      { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
    ])
    const settled = await settleParsedCalls(complete, execute)
    expect(settled.calls).toEqual([{ callId: 'a', name: 'x', arguments: '{}' }])
    expect(settled.results.map((r) => r.content)).toEqual([[{ type: 'text', text: 'ran x' }]])

    const cut = parseOpenAIChatStream([{ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'b', function: { name: 'x', arguments: '{"a":' } }] } }] }])
    const withheld = await settleParsedCalls(cut, execute)
    expect(withheld.calls.map((c) => c.callId)).toEqual(['b'])
    expect(withheld.results.map((r) => r.isError && r.error.info?.code)).toEqual(['TRUNCATED_ARGUMENTS'])

    const none = await settleParsedCalls(parseOpenAIChatStream([{ choices: [{ index: 0, delta: { content: 'Done.' }, finish_reason: 'stop' }] }]), execute)
    expect(none).toEqual({ calls: [], results: [] })
    expect(seen).toHaveLength(1)
  })
})
