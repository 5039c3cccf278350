/**
 * Round trips through the official `@anthropic-ai/sdk` client against a local replay server on
 * 127.0.0.1: SDK messages and stream events, unmodified, go to our parsers; the assistant message
 * (thinking blocks with signatures included) and the `tool_result` message go back through
 * `client.messages.create`.
 */
import { afterEach, beforeEach, describe, expect, test, vi, type MockInstance } from 'vitest'
import Anthropic from '@anthropic-ai/sdk'
import type { JsonObject } from '@deepseek-ai/dsh-tools'
import { AnthropicStreamAccumulator, parseAnthropicMessage, toAnthropicAssistantMessage, toAnthropicToolResultMessage, toAnthropicTools, type ParsedToolCalls } from '../src/providers'
import { recorded, texts, useToolContext, withReplay } from './sdk-helpers'

/** A model id the installed SDK does not list as deprecated (it warns on every request for those). */
const MODEL = 'claude-sonnet-5'
const USER = { role: 'user' as const, content: 'Weather in Oslo and Lima?' }
const message = (content: JsonObject[], stop_reason: string): JsonObject => ({ id: 'msg_1', type: 'message', role: 'assistant', model: MODEL, content, stop_reason, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } })
const FINAL = message([{ type: 'text', text: 'Done.' }], 'end_turn')

const toolsOf = useToolContext()

// The SDK prints a console warning per request for a model in its deprecation list: none here.
let warn: MockInstance<typeof console.warn>
beforeEach(() => {
  warn = vi.spyOn(console, 'warn')
})
afterEach(() => {
  const calls = warn.mock.calls
  warn.mockRestore()
  expect(calls).toEqual([])
})

const client = (origin: string) => new Anthropic({ apiKey: 'test-key', baseURL: origin, maxRetries: 0 })

async function step(anthropic: Anthropic, parsed: ParsedToolCalls, declared: ReturnType<typeof toAnthropicTools>) {
  const { calls, results } = await toolsOf().settle(parsed)
  const messages = [USER, toAnthropicAssistantMessage(parsed), toAnthropicToolResultMessage(calls, results)]
  return { results, final: await anthropic.messages.create({ model: MODEL, max_tokens: 1024, messages, tools: declared.tools }) }
}

describe('@anthropic-ai/sdk client, Messages', () => {
  test('recorded parallel tool_use (E07): both results in one user message, the assistant turn exact', async () => {
    const e07 = recorded('E07')
    await withReplay([{ kind: 'json', body: message(e07.content, e07.stop_reason) }, { kind: 'json', body: FINAL }], async (server) => {
      const anthropic = client(server.origin)
      const declared = toAnthropicTools(toolsOf().ctx.tools.describe())
      const parsed = parseAnthropicMessage(await anthropic.messages.create({ model: MODEL, max_tokens: 1024, messages: [USER], tools: declared.tools }), { nameMap: declared.nameMap })
      const { results, final } = await step(anthropic, parsed, declared)
      expect(texts(results)).toEqual(['Oslo: 4°C', 'Lima: 4°C'])
      expect(final.content).toEqual([{ type: 'text', text: 'Done.' }])
      expect(server.requests.map((r) => r.path)).toEqual(['/v1/messages', '/v1/messages'])
      expect(server.requests[0]?.body).toEqual({ model: MODEL, max_tokens: 1024, messages: [USER], tools: JSON.parse(JSON.stringify(declared.tools)) })
      expect(server.requests[1]?.body).toEqual({
        model: MODEL,
        max_tokens: 1024,
        tools: JSON.parse(JSON.stringify(declared.tools)),
        messages: [
          USER,
          {
            role: 'assistant',
            content: [
              { type: 'tool_use', id: 'toolu_a', name: 'get_weather', input: { city: 'Oslo' } },
              { type: 'tool_use', id: 'toolu_b', name: 'get_weather', input: { city: 'Lima' } },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_a', content: 'Oslo: 4°C' },
              { type: 'tool_result', tool_use_id: 'toolu_b', content: 'Lima: 4°C' },
            ],
          },
        ],
      })
    })
  })

  test('a stream with a signed thinking block and a tool_use (E08 shape): the thinking goes back with its signature', async () => {
    const events: JsonObject[] = [
      { type: 'message_start', message: message([], null as unknown as string) },
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Need the weather.' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig-abc' } },
      { type: 'content_block_stop', index: 0 },
      ...(recorded('E08') as JsonObject[]).filter((e) => e.type !== 'message_start').map((e) => (typeof e.index === 'number' ? { ...e, index: e.index + 1 } : e)),
    ]
    await withReplay([{ kind: 'sse', events, namedEvents: true }, { kind: 'json', body: FINAL }], async (server) => {
      const anthropic = client(server.origin)
      const declared = toAnthropicTools(toolsOf().ctx.tools.describe())
      const accumulator = new AnthropicStreamAccumulator({ nameMap: declared.nameMap })
      for await (const event of await anthropic.messages.create({ model: MODEL, max_tokens: 1024, messages: [USER], tools: declared.tools, stream: true })) accumulator.push(event)
      const parsed = accumulator.result()
      expect(parsed.calls).toEqual([{ callId: 'toolu_s1', name: 'get_weather', arguments: '{"city": "Oslo"}' }])
      expect(parsed.reasoning).toBe('Need the weather.')
      await step(anthropic, parsed, declared)
      expect((server.requests[1]?.body as { messages: unknown[] }).messages.slice(1)).toEqual([
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Need the weather.', signature: 'sig-abc' },
            { type: 'tool_use', id: 'toolu_s1', name: 'get_weather', input: { city: 'Oslo' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_s1', content: 'Oslo: 4°C' }] },
      ])
    })
  })

  test('recorded stream cut by max_tokens (E10): nothing runs; the tool_use goes back with {} and an is_error result', async () => {
    await withReplay([{ kind: 'sse', events: recorded('E10'), namedEvents: true }, { kind: 'json', body: FINAL }], async (server) => {
      const anthropic = client(server.origin)
      const declared = toAnthropicTools(toolsOf().ctx.tools.describe())
      const accumulator = new AnthropicStreamAccumulator()
      for await (const event of await anthropic.messages.create({ model: MODEL, max_tokens: 1024, messages: [USER], tools: declared.tools, stream: true })) accumulator.push(event)
      const parsed = accumulator.result()
      expect(parsed.status).toBe('truncated')
      const { results } = await step(anthropic, parsed, declared)
      const sent = (server.requests[1]?.body as { messages: { content: { type: string; is_error?: boolean; input?: unknown; content?: unknown }[] }[] }).messages
      expect(sent[1]?.content).toEqual([{ type: 'tool_use', id: 'toolu_t', name: 'write_file', input: {} }])
      expect(sent[2]?.content).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_t', content: texts(results)[0], is_error: true }])
    })
  })

  test('duplicate tool_use ids: the second becomes <id>_2 in the assistant turn and its tool_result (1:1)', async () => {
    const body = message(
      [
        { type: 'tool_use', id: 'toolu_d', name: 'get_weather', input: { city: 'Oslo' } },
        { type: 'tool_use', id: 'toolu_d', name: 'get_time', input: { tz: 'UTC' } },
      ],
      'tool_use',
    )
    await withReplay([{ kind: 'json', body }, { kind: 'json', body: FINAL }], async (server) => {
      const anthropic = client(server.origin)
      const declared = toAnthropicTools(toolsOf().ctx.tools.describe())
      const parsed = parseAnthropicMessage(await anthropic.messages.create({ model: MODEL, max_tokens: 1024, messages: [USER], tools: declared.tools }))
      expect(parsed.calls.map((c) => c.callId)).toEqual(['toolu_d', 'toolu_d_2'])
      await step(anthropic, parsed, declared)
      const sent = (server.requests[1]?.body as { messages: { content: { id?: string; tool_use_id?: string; content?: unknown }[] }[] }).messages
      expect(sent[1]?.content.map((b) => b.id)).toEqual(['toolu_d', 'toolu_d_2'])
      expect(sent[2]?.content.map((b) => [b.tool_use_id, b.content])).toEqual([
        ['toolu_d', 'Oslo: 4°C'],
        ['toolu_d_2', '12:00 in UTC'],
      ])
    })
  })
})
