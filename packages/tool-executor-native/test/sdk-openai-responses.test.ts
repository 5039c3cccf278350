/**
 * Round trips through the official `openai` client (Responses API) against a local replay
 * server on 127.0.0.1: SDK objects and stream events, unmodified, go to our parsers; the
 * assistant items and `function_call_output` items go back through `client.responses.create`.
 */
import { describe, expect, test } from 'vitest'
import OpenAI from 'openai'
import type { JsonObject } from '@deepseek-ai/dsh-tools'
import { OpenAIResponsesStreamAccumulator, parseOpenAIResponse, toOpenAIResponsesAssistantItems, toOpenAIResponsesOutputs, toOpenAIResponsesTools, type ParsedToolCalls } from '../src/providers'
import { recorded, texts, useToolContext, withReplay } from './sdk-helpers'

const MODEL = 'gpt-5'
const USER = { role: 'user' as const, content: 'Weather in Oslo?' }
const response = (output: JsonObject[], status = 'completed'): JsonObject => ({ id: 'resp_1', object: 'response', created_at: 0, model: MODEL, status, output })
const FINAL = response([{ type: 'message', id: 'msg_f', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Done.', annotations: [] }] }])

const toolsOf = useToolContext()

const client = (origin: string) => new OpenAI({ apiKey: 'test-key', baseURL: `${origin}/v1`, maxRetries: 0 })

async function step(openai: OpenAI, parsed: ParsedToolCalls, declared: ReturnType<typeof toOpenAIResponsesTools>) {
  const { calls, results } = await toolsOf().settle(parsed)
  const input = [USER, ...toOpenAIResponsesAssistantItems(parsed), ...toOpenAIResponsesOutputs(calls, results)]
  return { results, final: await openai.responses.create({ model: MODEL, input, tools: declared.tools }) }
}

describe('openai client, Responses API', () => {
  test('recorded reasoning + function_call output (E05): the reasoning item and the call go back before the output, paired by call_id', async () => {
    await withReplay([{ kind: 'json', body: response(recorded('E05').output) }, { kind: 'json', body: FINAL }], async (server) => {
      const openai = client(server.origin)
      const declared = toOpenAIResponsesTools(toolsOf().ctx.tools.describe())
      const first = await openai.responses.create({ model: MODEL, input: [USER], tools: declared.tools })
      const parsed = parseOpenAIResponse(first, { nameMap: declared.nameMap })
      const { results, final } = await step(openai, parsed, declared)
      expect(texts(results)).toEqual(['Oslo: 4°C'])
      expect(final.output_text).toBe('Done.')
      expect(server.requests.map((r) => r.path)).toEqual(['/v1/responses', '/v1/responses'])
      expect(server.requests[0]?.body).toEqual({ model: MODEL, input: [USER], tools: JSON.parse(JSON.stringify(declared.tools)) })
      expect(server.requests[1]?.body).toEqual({
        model: MODEL,
        tools: JSON.parse(JSON.stringify(declared.tools)),
        input: [
          USER,
          { type: 'reasoning', id: 'rs_1', summary: [] },
          { type: 'function_call', call_id: 'call_r1', name: 'get_weather', arguments: '{"city": "Oslo"}', id: 'fc_1' },
          { type: 'function_call_output', call_id: 'call_r1', output: 'Oslo: 4°C' },
        ],
      })
    })
  })

  test('a stream with two parallel calls and text: events assemble, the turn keeps output order', async () => {
    const events: JsonObject[] = [
      { type: 'response.created', sequence_number: 0, response: response([], 'in_progress') },
      { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: { type: 'message', id: 'msg_1', role: 'assistant', status: 'in_progress', content: [] } },
      { type: 'response.output_text.delta', sequence_number: 2, output_index: 0, item_id: 'msg_1', content_index: 0, delta: 'Checking ', logprobs: [] },
      { type: 'response.output_text.delta', sequence_number: 3, output_index: 0, item_id: 'msg_1', content_index: 0, delta: 'both.', logprobs: [] },
      { type: 'response.output_item.done', sequence_number: 4, output_index: 0, item: { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Checking both.', annotations: [] }] } },
      { type: 'response.output_item.added', sequence_number: 5, output_index: 1, item: { type: 'function_call', id: 'fc_a', call_id: 'call_a', name: 'get_weather', arguments: '', status: 'in_progress' } },
      { type: 'response.output_item.added', sequence_number: 6, output_index: 2, item: { type: 'function_call', id: 'fc_b', call_id: 'call_b', name: 'health', arguments: '', status: 'in_progress' } },
      { type: 'response.function_call_arguments.delta', sequence_number: 7, output_index: 1, item_id: 'fc_a', delta: '{"city":' },
      { type: 'response.function_call_arguments.delta', sequence_number: 8, output_index: 1, item_id: 'fc_a', delta: '"Lima"}' },
      { type: 'response.function_call_arguments.done', sequence_number: 9, output_index: 1, item_id: 'fc_a', arguments: '{"city":"Lima"}' },
      { type: 'response.function_call_arguments.done', sequence_number: 10, output_index: 2, item_id: 'fc_b', arguments: '' },
      { type: 'response.completed', sequence_number: 11, response: response([]) },
    ]
    await withReplay([{ kind: 'sse', events, namedEvents: true }, { kind: 'json', body: FINAL }], async (server) => {
      const openai = client(server.origin)
      const declared = toOpenAIResponsesTools(toolsOf().ctx.tools.describe())
      const accumulator = new OpenAIResponsesStreamAccumulator({ nameMap: declared.nameMap })
      for await (const event of await openai.responses.create({ model: MODEL, input: [USER], tools: declared.tools, stream: true })) accumulator.push(event)
      const parsed = accumulator.result()
      expect(parsed.calls).toEqual([
        { callId: 'call_a', name: 'get_weather', arguments: '{"city":"Lima"}' },
        { callId: 'call_b', name: 'health', arguments: '' },
      ])
      expect(parsed.text).toBe('Checking both.')
      const { results } = await step(openai, parsed, declared)
      expect(texts(results)).toEqual(['Lima: 4°C', 'ok'])
      expect((server.requests[1]?.body as { input: unknown[] }).input.slice(1)).toEqual([
        { type: 'message', role: 'assistant', content: 'Checking both.' },
        { type: 'function_call', call_id: 'call_a', name: 'get_weather', arguments: '{"city":"Lima"}', id: 'fc_a' },
        { type: 'function_call', call_id: 'call_b', name: 'health', arguments: '', id: 'fc_b' },
        { type: 'function_call_output', call_id: 'call_a', output: 'Lima: 4°C' },
        { type: 'function_call_output', call_id: 'call_b', output: 'ok' },
      ])
    })
  })

  test('incomplete at max_output_tokens: nothing runs, the call is answered as truncated', async () => {
    const cut = { ...response([{ type: 'function_call', id: 'fc_w', call_id: 'call_w', name: 'write_file', arguments: '{"path": "a.md", "content": "x', status: 'incomplete' }], 'incomplete'), incomplete_details: { reason: 'max_output_tokens' } }
    await withReplay([{ kind: 'json', body: cut }, { kind: 'json', body: FINAL }], async (server) => {
      const openai = client(server.origin)
      const declared = toOpenAIResponsesTools(toolsOf().ctx.tools.describe())
      const parsed = parseOpenAIResponse(await openai.responses.create({ model: MODEL, input: [USER], tools: declared.tools }))
      expect(parsed.status).toBe('truncated')
      const { results } = await step(openai, parsed, declared)
      expect(results.map((r) => r.isError && r.error.info?.code)).toEqual(['TRUNCATED_ARGUMENTS'])
      const input = (server.requests[1]?.body as { input: { type?: string; call_id?: string }[] }).input
      expect(input.slice(1).map((i) => [i.type, i.call_id])).toEqual([
        ['function_call', 'call_w'],
        ['function_call_output', 'call_w'],
      ])
    })
  })
})
