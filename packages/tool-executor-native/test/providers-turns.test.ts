/**
 * The assistant-turn builders and the duplicate-id policy, provider by provider: a finished
 * stream rebuilds the same turn as the complete response, reasoning is sent back where the
 * provider wants it, ids are unique and pair 1:1 with the results.
 */
import { describe, expect, test } from 'vitest'
import type { ToolResult } from '@deepseek-ai/dsh-tools'
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
  toGeminiFunctionResponses,
  toGeminiModelContent,
  toOpenAIChatAssistantMessage,
  toOpenAIChatToolMessages,
  toOpenAIResponsesAssistantItems,
  toOpenAIResponsesOutputs,
  type ParsedToolCalls,
} from '../src/providers'

const ok = (parsed: ParsedToolCalls): ToolResult[] => parsed.calls.map((c) => ({ callId: c.callId, isError: false, value: c.name, content: [{ type: 'text', text: `ran ${c.callId}` }] }))

describe('OpenAI Chat / DeepSeek', () => {
  const message = {
    role: 'assistant',
    content: 'Checking.',
    reasoning_content: 'Two lookups.',
    tool_calls: [
      { id: 'call_1', type: 'function', function: { name: 'a', arguments: '{"x":1}' } },
      { id: 'call_1', type: 'function', function: { name: 'b', arguments: '' } },
      { type: 'function', function: { name: 'c', arguments: '{}' } },
    ],
  }
  const complete = parseOpenAIChatCompletion({ choices: [{ index: 0, finish_reason: 'tool_calls', message }] }, { provider: 'deepseek' })
  const stream = parseOpenAIChatStream(
    [
      { choices: [{ index: 0, delta: { reasoning_content: 'Two ' } }] },
      { choices: [{ index: 0, delta: { reasoning_content: 'lookups.', content: 'Check' } }] },
      { choices: [{ index: 0, delta: { content: 'ing.', tool_calls: [{ index: 0, id: 'call_1', function: { name: 'a', arguments: '{"x":' } }] } }] },
      { choices: [{ index: 0, delta: { tool_calls: [{ index: 1, id: 'call_1', function: { name: 'b', arguments: '' } }, { index: 0, function: { arguments: '1}' } }] } }] },
      { choices: [{ index: 0, delta: { tool_calls: [{ index: 2, function: { name: 'c', arguments: '{}' } }] } }] },
      { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
    ],
    { provider: 'deepseek' },
  )

  test('the duplicate becomes call_1_2, the missing id is minted past every emitted id; both reported', () => {
    expect(complete.calls.map((c) => c.callId)).toEqual(['call_1', 'call_1_2', 'call_2'])
    expect(complete.callIdChanges).toEqual([
      { index: 1, pointer: '/choices/0/message/tool_calls/1/id', emitted: 'call_1', callId: 'call_1_2', reason: 'duplicate' },
      { index: 2, pointer: '/choices/0/message/tool_calls/2/id', emitted: undefined, callId: 'call_2', reason: 'missing' },
    ])
  })

  test('assistant message: text, reasoning_content for DeepSeek, unique ids; the stream rebuilds the same message', () => {
    const expected = {
      role: 'assistant',
      content: 'Checking.',
      reasoning_content: 'Two lookups.',
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'a', arguments: '{"x":1}' } },
        { id: 'call_1_2', type: 'function', function: { name: 'b', arguments: '' } },
        { id: 'call_2', type: 'function', function: { name: 'c', arguments: '{}' } },
      ],
    }
    expect(toOpenAIChatAssistantMessage(complete)).toEqual(expected)
    expect(toOpenAIChatAssistantMessage(stream)).toEqual(expected)
    const { reasoning_content: _omitted, ...withoutReasoning } = expected
    expect(toOpenAIChatAssistantMessage(complete, { reasoning: false })).toEqual(withoutReasoning)
    expect(toOpenAIChatAssistantMessage({ ...complete, provider: 'openai-chat' })).toEqual(withoutReasoning)
    expect(toOpenAIChatToolMessages(complete.calls, ok(complete)).map((m) => m.role === 'tool' && m.tool_call_id)).toEqual(['call_1', 'call_1_2', 'call_2'])
  })

  test('a final answer is a plain assistant message without tool_calls', () => {
    const answer = parseOpenAIChatCompletion({ choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Done.' } }] })
    expect(toOpenAIChatAssistantMessage(answer)).toEqual({ role: 'assistant', content: 'Done.' })
  })
})

describe('OpenAI Responses', () => {
  const output = [
    { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Plan.' }], encrypted_content: 'enc' },
    { type: 'message', id: 'msg_1', role: 'assistant', content: [{ type: 'output_text', text: 'Sure.' }] },
    { type: 'function_call', id: 'fc_1', call_id: 'c', name: 'a', arguments: '{}' },
    { type: 'function_call', id: 'fc_2', call_id: 'c', name: 'b', arguments: '{"y":2}' },
  ]
  const complete = parseOpenAIResponse({ status: 'completed', output })
  const stream = parseOpenAIResponsesStream([
    { type: 'response.output_item.done', output_index: 0, item: output[0] as never },
    { type: 'response.output_text.delta', output_index: 1, delta: 'Sure.' },
    { type: 'response.output_item.done', output_index: 1, item: output[1] as never },
    { type: 'response.output_item.added', output_index: 2, item: { ...output[2], arguments: '' } as never },
    { type: 'response.function_call_arguments.delta', output_index: 2, item_id: 'fc_1', delta: '{}' },
    { type: 'response.output_item.added', output_index: 3, item: { ...output[3], arguments: '' } as never },
    { type: 'response.function_call_arguments.done', output_index: 3, item_id: 'fc_2', arguments: '{"y":2}' },
    { type: 'response.completed', response: { status: 'completed' } },
  ])

  test('reasoning item, message and calls in output order, with the de-duplicated call_id; the stream gives the same items', () => {
    const expected = [
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Plan.' }], encrypted_content: 'enc' },
      { type: 'message', role: 'assistant', content: 'Sure.' },
      { type: 'function_call', call_id: 'c', name: 'a', arguments: '{}', id: 'fc_1' },
      { type: 'function_call', call_id: 'c_2', name: 'b', arguments: '{"y":2}', id: 'fc_2' },
    ]
    expect(toOpenAIResponsesAssistantItems(complete)).toEqual(expected)
    expect(toOpenAIResponsesAssistantItems(stream)).toEqual(expected)
    expect(complete.reasoning).toBe('Plan.')
    expect(toOpenAIResponsesOutputs(complete.calls, ok(complete)).map((o) => o.call_id)).toEqual(['c', 'c_2'])
  })
})

describe('Anthropic', () => {
  const content = [
    { type: 'thinking', thinking: 'Hmm.', signature: 'sig' },
    { type: 'redacted_thinking', data: 'opaque' },
    { type: 'text', text: 'Let me check.' },
    { type: 'tool_use', id: 't', name: 'a', input: { q: 1 } },
    { type: 'tool_use', id: 't', name: 'b', input: {} },
  ]
  const complete = parseAnthropicMessage({ content, stop_reason: 'tool_use' })
  const stream = parseAnthropicStream([
    { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Hmm.' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig' } },
    { type: 'content_block_start', index: 1, content_block: { type: 'redacted_thinking', data: 'opaque' } },
    { type: 'content_block_start', index: 2, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 2, delta: { type: 'text_delta', text: 'Let me check.' } },
    { type: 'content_block_start', index: 3, content_block: { type: 'tool_use', id: 't', name: 'a', input: {} } },
    { type: 'content_block_delta', index: 3, delta: { type: 'input_json_delta', partial_json: '{"q":' } },
    { type: 'content_block_delta', index: 3, delta: { type: 'input_json_delta', partial_json: '1}' } },
    { type: 'content_block_start', index: 4, content_block: { type: 'tool_use', id: 't', name: 'b', input: {} } },
    { type: 'message_delta', delta: { stop_reason: 'tool_use' } },
  ])

  test('thinking with its signature, redacted thinking, text, tool_use with unique ids and decoded input; stream = complete', () => {
    const expected = {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Hmm.', signature: 'sig' },
        { type: 'redacted_thinking', data: 'opaque' },
        { type: 'text', text: 'Let me check.' },
        { type: 'tool_use', id: 't', name: 'a', input: { q: 1 } },
        { type: 'tool_use', id: 't_2', name: 'b', input: {} },
      ],
    }
    expect(toAnthropicAssistantMessage(complete)).toEqual(expected)
    expect(toAnthropicAssistantMessage(stream)).toEqual(expected)
    expect(toAnthropicToolResultMessage(complete.calls, ok(complete)).content.map((b) => b.tool_use_id)).toEqual(['t', 't_2'])
  })
})

describe('Gemini', () => {
  const parts = [
    { text: 'Plan.', thought: true, thoughtSignature: 's0' },
    { functionCall: { id: 'g1', name: 'a', args: { k: 1 } }, thoughtSignature: 's1' },
    { functionCall: { id: 'g1', name: 'b', args: {} } },
  ]
  const complete = parseGeminiResponse({ candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP' }] })
  const stream = parseGeminiStream(parts.map((part, i) => ({ candidates: [{ content: { role: 'model', parts: [part] }, ...(i === parts.length - 1 ? { finishReason: 'STOP' } : {}) }] })))

  test('a repeated Gemini id is replaced by a minted one that is not echoed; signatures stay on their parts; stream = complete', () => {
    expect(complete.calls.map((c) => c.callId)).toEqual(['g1', 'gemini_call_1'])
    const expected = {
      role: 'model',
      parts: [
        { text: 'Plan.', thought: true, thoughtSignature: 's0' },
        { functionCall: { id: 'g1', name: 'a', args: { k: 1 } }, thoughtSignature: 's1' },
        { functionCall: { name: 'b', args: {} } },
      ],
    }
    expect(toGeminiModelContent(complete)).toEqual(expected)
    expect(toGeminiModelContent(stream)).toEqual(expected)
    expect(toGeminiFunctionResponses(complete.calls, ok(complete)).parts).toEqual([
      { functionResponse: { id: 'g1', name: 'a', response: { output: 'ran g1' } } },
      { functionResponse: { name: 'b', response: { output: 'ran gemini_call_1' } } },
    ])
  })

  test('calls recovered from text: no id in the model content nor in the function responses', () => {
    const parsed = parseGeminiResponse({ candidates: [{ content: { role: 'model', parts: [{ text: '<tool_call>{"name": "a", "arguments": {}}</tool_call>' }] }, finishReason: 'STOP' }] })
    expect(parsed.status).toBe('recovered')
    expect(toGeminiModelContent(parsed)).toEqual({ role: 'model', parts: [{ functionCall: { name: 'a', args: {} } }] })
    expect(toGeminiFunctionResponses(parsed.calls, ok(parsed)).parts).toEqual([{ functionResponse: { name: 'a', response: { output: 'ran text_call_0' } } }])
  })
})
