/**
 * A tool-call turn whose batch suspended on an approval, then resumed (`turnResults`), through
 * each official SDK client against the local replay server: the settled result is written at
 * suspension where the provider allows it (OpenAI Chat, DeepSeek, OpenAI Responses) and held where
 * all results go in one message (Anthropic, Gemini); after the resume the rest is written, and
 * the request the server receives has the assistant turn once and every call's result exactly
 * once (no duplicate Responses item ids).
 *
 * The suspended outcome (one result slot per call, `undefined` for the call awaiting approval) is
 * made by running the settled call first and the approved one after, in two batches: the shape
 * the registry's `executeSuspendable` / `resume` give.
 */
import { describe, expect, test } from 'vitest'
import OpenAI from 'openai'
import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI, type Content } from '@google/genai'
import type { JsonObject, RawToolCall, ToolResult } from '@deepseek-ai/dsh-tools'
import {
  parseAnthropicMessage,
  parseGeminiResponse,
  parseOpenAIChatCompletion,
  parseOpenAIResponse,
  ResultPairingError,
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
  turnResults,
  type ParsedToolCalls,
  type ResultDelivery,
} from '../src/providers'
import { useToolContext, withReplay } from './sdk-helpers'

const toolsOf = useToolContext()
const WEATHER = { city: 'Oslo' }
const WRITE = { path: 'a.md', content: 'x' }

/**
 * Runs the turn as a batch that suspends on `write_file` and resumes with an approval: the slots
 * at suspension, the slots after resume, and each stage's `turnResults` for `delivery`.
 */
async function suspendAndResume(parsed: ParsedToolCalls, delivery: ResultDelivery) {
  const calls: readonly RawToolCall[] = parsed.calls
  const execute = (call: RawToolCall) => toolsOf().ctx.tools.execute({ calls: [call] }).then((r) => r[0] as ToolResult)
  const settled = await execute(calls[0] as RawToolCall)
  const atSuspension = turnResults(calls, [settled, undefined], [], delivery)
  const approved = await execute(calls[1] as RawToolCall)
  const afterResume = turnResults(calls, [settled, approved], atSuspension.delivered, delivery)
  return { calls, atSuspension, afterResume }
}

const chatTurn = (model: string): JsonObject => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 0,
  model,
  choices: [
    {
      index: 0,
      finish_reason: 'tool_calls',
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_w', type: 'function', function: { name: 'get_weather', arguments: JSON.stringify(WEATHER) } },
          { id: 'call_f', type: 'function', function: { name: 'write_file', arguments: JSON.stringify(WRITE) } },
        ],
      },
    },
  ],
})
const chatFinal = (model: string): JsonObject => ({ id: 'chatcmpl-2', object: 'chat.completion', created: 0, model, choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Done.' } }] })

describe('a suspended turn through the SDK clients: every result exactly once', () => {
  test.each([
    ['OpenAI Chat Completions', 'gpt-4.1', toOpenAIChatTools],
    ['DeepSeek (OpenAI-compatible)', 'deepseek-chat', toDeepSeekTools],
  ] as const)('%s: the settled result at suspension, the approved one after the resume', async (_name, model, declare) => {
    await withReplay([{ kind: 'json', body: chatTurn(model) }, { kind: 'json', body: chatFinal(model) }], async (server) => {
      const openai = new OpenAI({ apiKey: 'test-key', baseURL: `${server.origin}/v1`, maxRetries: 0 })
      const declared = declare(toolsOf().ctx.tools.describe())
      const user = { role: 'user' as const, content: 'Weather, then write a.md' }
      const parsed = parseOpenAIChatCompletion(await openai.chat.completions.create({ model, messages: [user], tools: declared.tools }), { nameMap: declared.nameMap })
      const { atSuspension, afterResume } = await suspendAndResume(parsed, 'incremental')
      expect([atSuspension.delivered, atSuspension.pending, atSuspension.complete]).toEqual([['call_w'], ['call_f'], false])
      // The transcript kept while suspended: the assistant turn and the settled result.
      const transcript = [user, toOpenAIChatAssistantMessage(parsed), ...toOpenAIChatToolMessages(atSuspension.calls, atSuspension.results)]
      expect([afterResume.calls.map((c) => c.callId), afterResume.complete]).toEqual([['call_f'], true])
      transcript.push(...toOpenAIChatToolMessages(afterResume.calls, afterResume.results))
      const final = await openai.chat.completions.create({ model, messages: transcript, tools: declared.tools })
      expect(final.choices[0]?.message.content).toBe('Done.')
      const sent = (server.requests[1]?.body as { messages: { role: string; tool_call_id?: string; tool_calls?: { id: string }[] }[] }).messages
      expect(sent.map((m) => [m.role, m.tool_call_id ?? m.tool_calls?.map((c) => c.id).join(',') ?? null])).toEqual([
        ['user', null],
        ['assistant', 'call_w,call_f'],
        ['tool', 'call_w'],
        ['tool', 'call_f'],
      ])
    })
  })

  test('OpenAI Responses: the function_call items once, each function_call_output once, no duplicate item id', async () => {
    const turn = {
      id: 'resp_1',
      object: 'response',
      created_at: 0,
      model: 'gpt-5',
      status: 'completed',
      output: [
        { type: 'function_call', id: 'fc_w', call_id: 'call_w', name: 'get_weather', arguments: JSON.stringify(WEATHER), status: 'completed' },
        { type: 'function_call', id: 'fc_f', call_id: 'call_f', name: 'write_file', arguments: JSON.stringify(WRITE), status: 'completed' },
      ],
    }
    const final = { ...turn, id: 'resp_2', output: [{ type: 'message', id: 'msg_f', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Done.', annotations: [] }] }] }
    await withReplay([{ kind: 'json', body: turn }, { kind: 'json', body: final }], async (server) => {
      const openai = new OpenAI({ apiKey: 'test-key', baseURL: `${server.origin}/v1`, maxRetries: 0 })
      const declared = toOpenAIResponsesTools(toolsOf().ctx.tools.describe())
      const user = { role: 'user' as const, content: 'Weather, then write a.md' }
      const parsed = parseOpenAIResponse(await openai.responses.create({ model: 'gpt-5', input: [user], tools: declared.tools }), { nameMap: declared.nameMap })
      const { atSuspension, afterResume } = await suspendAndResume(parsed, 'incremental')
      const input = [user, ...toOpenAIResponsesAssistantItems(parsed), ...toOpenAIResponsesOutputs(atSuspension.calls, atSuspension.results)]
      input.push(...toOpenAIResponsesOutputs(afterResume.calls, afterResume.results))
      const answer = await openai.responses.create({ model: 'gpt-5', input, tools: declared.tools })
      expect(answer.output_text).toBe('Done.')
      const sent = (server.requests[1]?.body as { input: { type?: string; id?: string; call_id?: string }[] }).input
      expect(sent.slice(1).map((i) => [i.type, i.id ?? null, i.call_id])).toEqual([
        ['function_call', 'fc_w', 'call_w'],
        ['function_call', 'fc_f', 'call_f'],
        ['function_call_output', null, 'call_w'],
        ['function_call_output', null, 'call_f'],
      ])
    })
  })

  test('Anthropic: nothing is written while a call is pending, then one user message with both tool_result blocks', async () => {
    const model = 'claude-sonnet-5'
    const msg = (content: JsonObject[], stop_reason: string): JsonObject => ({ id: 'msg_1', type: 'message', role: 'assistant', model, content, stop_reason, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } })
    const turn = msg(
      [
        { type: 'tool_use', id: 'toolu_w', name: 'get_weather', input: WEATHER },
        { type: 'tool_use', id: 'toolu_f', name: 'write_file', input: WRITE },
      ],
      'tool_use',
    )
    await withReplay([{ kind: 'json', body: turn }, { kind: 'json', body: msg([{ type: 'text', text: 'Done.' }], 'end_turn') }], async (server) => {
      const anthropic = new Anthropic({ apiKey: 'test-key', baseURL: server.origin, maxRetries: 0 })
      const declared = toAnthropicTools(toolsOf().ctx.tools.describe())
      const user = { role: 'user' as const, content: 'Weather, then write a.md' }
      const parsed = parseAnthropicMessage(await anthropic.messages.create({ model, max_tokens: 1024, messages: [user], tools: declared.tools }), { nameMap: declared.nameMap })
      const { calls, atSuspension, afterResume } = await suspendAndResume(parsed, 'together')
      expect([atSuspension.calls, atSuspension.delivered, atSuspension.pending]).toEqual([[], [], ['toolu_f']])
      expect(afterResume.calls.map((c) => c.callId)).toEqual(['toolu_w', 'toolu_f'])
      // Writing part of a turn's results is refused for this provider.
      expect(() => turnResults(calls, [afterResume.results[0], afterResume.results[1]], ['toolu_w'], 'together')).toThrow(ResultPairingError)
      const messages = [user, toAnthropicAssistantMessage(parsed), toAnthropicToolResultMessage(afterResume.calls, afterResume.results)]
      const final = await anthropic.messages.create({ model, max_tokens: 1024, messages, tools: declared.tools })
      expect(final.content[0]).toMatchObject({ type: 'text', text: 'Done.' })
      const sent = (server.requests[1]?.body as { messages: { role: string; content: { type: string; tool_use_id?: string; id?: string }[] | string }[] }).messages
      expect(sent.map((m) => [m.role, typeof m.content === 'string' ? 'text' : m.content.map((b) => `${b.type}:${b.tool_use_id ?? b.id}`).join(',')])).toEqual([
        ['user', 'text'],
        ['assistant', 'tool_use:toolu_w,tool_use:toolu_f'],
        ['user', 'tool_result:toolu_w,tool_result:toolu_f'],
      ])
    })
  })

  test('Gemini: the function responses in one content after the resume, one per call', async () => {
    const turn: JsonObject = {
      candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: WEATHER } }, { functionCall: { name: 'write_file', args: WRITE } }] }, finishReason: 'STOP', index: 0 }],
    }
    const final: JsonObject = { candidates: [{ content: { role: 'model', parts: [{ text: 'Done.' }] }, finishReason: 'STOP', index: 0 }] }
    await withReplay([{ kind: 'json', body: turn }, { kind: 'json', body: final }], async (server) => {
      const ai = new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: server.origin, apiVersion: 'v1beta' } })
      const declared = toGeminiTools(toolsOf().ctx.tools.describe())
      const user: Content = { role: 'user', parts: [{ text: 'Weather, then write a.md' }] }
      const config = { tools: [{ functionDeclarations: declared.tools }] }
      const parsed = parseGeminiResponse(await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: [user], config }), { nameMap: declared.nameMap })
      const { atSuspension, afterResume } = await suspendAndResume(parsed, 'together')
      expect([atSuspension.calls.length, atSuspension.complete, afterResume.complete]).toEqual([0, false, true])
      const contents = [user, toGeminiModelContent(parsed), toGeminiFunctionResponses(afterResume.calls, afterResume.results, { nameMap: declared.nameMap })]
      const answer = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents, config })
      expect(answer.text).toBe('Done.')
      const sent = (server.requests[1]?.body as { contents: { role: string; parts: { functionCall?: { name: string }; functionResponse?: { name: string } }[] }[] }).contents
      expect(sent.map((c) => [c.role, c.parts.map((p) => (p.functionCall ? `call:${p.functionCall.name}` : p.functionResponse ? `response:${p.functionResponse.name}` : 'text')).join(',')])).toEqual([
        ['user', 'text'],
        ['model', 'call:get_weather,call:write_file'],
        ['user', 'response:get_weather,response:write_file'],
      ])
    })
  })
})

describe('turnResults', () => {
  const call = (callId: string): RawToolCall => ({ callId, name: 't', arguments: '{}' })
  const result = (callId: string): ToolResult => ({ callId, isError: false, value: 1, content: [{ type: 'text', text: '1' }] }) as unknown as ToolResult

  test('writes each settled result once across suspensions, in call order', () => {
    const calls = [call('a'), call('b'), call('c')]
    const first = turnResults(calls, [undefined, result('b'), undefined], [], 'incremental')
    expect([first.calls.map((c) => c.callId), first.delivered, first.pending]).toEqual([['b'], ['b'], ['a', 'c']])
    const second = turnResults(calls, [result('a'), result('b'), undefined], first.delivered, 'incremental')
    expect([second.calls.map((c) => c.callId), second.delivered, second.complete]).toEqual([['a'], ['b', 'a'], false])
    const third = turnResults(calls, [result('a'), result('b'), result('c')], second.delivered, 'incremental')
    expect([third.calls.map((c) => c.callId), third.complete]).toEqual([['c'], true])
    expect(turnResults(calls, [result('a'), result('b'), result('c')], third.delivered, 'incremental').calls).toEqual([])
  })

  test('refuses slots that do not match the calls and deliveries that are not the turn\'s', () => {
    const calls = [call('a'), call('b')]
    expect(() => turnResults(calls, [result('a')], [], 'incremental')).toThrow(new ResultPairingError('a turn of 2 calls needs one result slot per call, got 1', 'b'))
    expect(() => turnResults(calls, [result('b'), undefined], [], 'incremental')).toThrow(new ResultPairingError('result slot 0 is for call "b", not "a"', 'b'))
    expect(() => turnResults(calls, [undefined, undefined], ['z'], 'incremental')).toThrow(new ResultPairingError('delivered call "z" matches no call of the turn', 'z'))
    expect(() => turnResults(calls, [undefined, undefined], ['a', 'a'], 'incremental')).toThrow(new ResultPairingError('delivered call "a" appears twice', 'a'))
    expect(() => turnResults([call('a'), call('a')], [undefined, undefined], [], 'incremental')).toThrow(new ResultPairingError('call id "a" appears twice in the turn', 'a'))
  })
})
