/**
 * Round trips through the official `openai` client (Chat Completions) against a local replay
 * server on 127.0.0.1: what the SDK returns (objects and stream chunks, unmodified) goes to our
 * parsers, the batch runs through the registry, and our assistant turn and tool messages go back
 * through `client.chat.completions.create` — the request body the server receives is asserted.
 */
import { describe, expect, test } from 'vitest'
import OpenAI from 'openai'
import type { JsonObject } from '@deepseek-ai/dsh-tools'
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions'
import {
  OpenAIChatStreamAccumulator,
  parseOpenAIChatCompletion,
  settleParsedCalls,
  toDeepSeekTools,
  toOpenAIChatAssistantMessage,
  toOpenAIChatToolMessages,
  toOpenAIChatTools,
  type ParsedToolCalls,
} from '../src/providers'
import { recorded, texts, useToolContext, withReplay } from './sdk-helpers'

const MODEL = 'gpt-4.1'
const USER: ChatCompletionMessageParam = { role: 'user', content: 'Weather in Oslo and Lima, and the time in Oslo?' }
const FINAL = { id: 'chatcmpl-final', object: 'chat.completion', created: 0, model: MODEL, choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Done.' } }] }
const chunk = (delta: JsonObject, finish: string | null = null): JsonObject => ({ id: 'chatcmpl-s', object: 'chat.completion.chunk', created: 0, model: MODEL, choices: [{ index: 0, delta, finish_reason: finish }] })

const toolsOf = useToolContext()

const client = (origin: string) => new OpenAI({ apiKey: 'test-key', baseURL: `${origin}/v1`, maxRetries: 0 })

/** One full step: parse → run → assistant turn + tool messages → the next request, through the SDK. */
async function step(openai: OpenAI, parsed: ParsedToolCalls, declared: ReturnType<typeof toOpenAIChatTools>) {
  const { calls, results } = await toolsOf().settle(parsed)
  const messages: ChatCompletionMessageParam[] = [USER, toOpenAIChatAssistantMessage(parsed), ...toOpenAIChatToolMessages(calls, results)]
  const final = await openai.chat.completions.create({ model: MODEL, messages, tools: declared.tools })
  return { calls, results, messages, final }
}

describe('openai client, Chat Completions', () => {
  test('recorded parallel calls (E02): declarations, three results and the assistant turn reach the server exactly', async () => {
    await withReplay([{ kind: 'json', body: recorded('E02') }, { kind: 'json', body: FINAL }], async (server) => {
      const openai = client(server.origin)
      const declared = toOpenAIChatTools(toolsOf().ctx.tools.describe())
      const completion = await openai.chat.completions.create({ model: MODEL, messages: [USER], tools: declared.tools })
      const parsed = parseOpenAIChatCompletion(completion, { nameMap: declared.nameMap })
      expect(parsed.status).toBe('complete')
      const { results, final } = await step(openai, parsed, declared)
      expect(texts(results)).toEqual(['Oslo: 4°C', 'Lima: 39°F', '12:00 in Europe/Oslo'])
      expect(final.choices[0]?.message.content).toBe('Done.')
      expect(server.requests.map((r) => [r.method, r.path])).toEqual([
        ['POST', '/v1/chat/completions'],
        ['POST', '/v1/chat/completions'],
      ])
      expect(server.requests[0]?.body).toEqual({ model: MODEL, messages: [USER], tools: JSON.parse(JSON.stringify(declared.tools)) })
      expect(declared.tools.map((t) => t.function.name)).toContain('math_factorial')
      expect(server.requests[1]?.body).toEqual({
        model: MODEL,
        tools: JSON.parse(JSON.stringify(declared.tools)),
        messages: [
          USER,
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_p1', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Oslo"}' } },
              { id: 'call_p2', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Lima", "unit": "fahrenheit"}' } },
              { id: 'call_p3', type: 'function', function: { name: 'get_time', arguments: '{"tz": "Europe/Oslo"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_p1', content: 'Oslo: 4°C' },
          { role: 'tool', tool_call_id: 'call_p2', content: 'Lima: 39°F' },
          { role: 'tool', tool_call_id: 'call_p3', content: '12:00 in Europe/Oslo' },
        ],
      })
    })
  })

  test('recorded interleaved stream (E04): SDK chunks, unmodified, assemble by index', async () => {
    await withReplay([{ kind: 'sse', events: recorded('E04'), done: true }, { kind: 'json', body: FINAL }], async (server) => {
      const openai = client(server.origin)
      const declared = toOpenAIChatTools(toolsOf().ctx.tools.describe())
      const stream = await openai.chat.completions.create({ model: MODEL, messages: [USER], tools: declared.tools, stream: true })
      const accumulator = new OpenAIChatStreamAccumulator({ nameMap: declared.nameMap })
      for await (const part of stream) accumulator.push(part)
      const parsed = accumulator.result()
      expect(parsed.calls).toEqual([
        { callId: 'call_i0', name: 'get_weather', arguments: '{"city":"Oslo"}' },
        { callId: 'call_i1', name: 'get_weather', arguments: '{"city":"Lima"}' },
      ])
      await step(openai, parsed, declared)
      expect((server.requests[0]?.body as { stream?: boolean }).stream).toBe(true)
      expect((server.requests[1]?.body as { messages: unknown[] }).messages.slice(1)).toEqual([
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_i0', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
            { id: 'call_i1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lima"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_i0', content: 'Oslo: 4°C' },
        { role: 'tool', tool_call_id: 'call_i1', content: 'Lima: 4°C' },
      ])
    })
  })

  test('empty-string arguments (E12) and a dotted name: the call runs with {}, the turn keeps "" and the provider name', async () => {
    const e12 = recorded('E12')
    const completion = {
      id: 'c',
      object: 'chat.completion',
      created: 0,
      model: MODEL,
      choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: 'Checking.', tool_calls: [...e12.tool_calls, { id: 'call_f', type: 'function', function: { name: 'math_factorial', arguments: '{"n":5}' } }] } }],
    }
    await withReplay([{ kind: 'json', body: completion }, { kind: 'json', body: FINAL }], async (server) => {
      const openai = client(server.origin)
      const declared = toOpenAIChatTools(toolsOf().ctx.tools.describe())
      const parsed = parseOpenAIChatCompletion(await openai.chat.completions.create({ model: MODEL, messages: [USER], tools: declared.tools }), { nameMap: declared.nameMap })
      expect(parsed.calls.map((c) => c.name)).toEqual(['health', 'math.factorial'])
      const { results } = await step(openai, parsed, declared)
      expect(texts(results)).toEqual(['ok', '120'])
      expect((server.requests[1]?.body as { messages: unknown[] }).messages.slice(1)).toEqual([
        {
          role: 'assistant',
          content: 'Checking.',
          tool_calls: [
            { id: 'call_e', type: 'function', function: { name: 'health', arguments: '' } },
            { id: 'call_f', type: 'function', function: { name: 'math_factorial', arguments: '{"n":5}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_e', content: 'ok' },
        { role: 'tool', tool_call_id: 'call_f', content: '120' },
      ])
    })
  })

  test('with declared.nameMap passed to ctx.tools.execute, error texts name tools as the model saw them (math_factorial)', async () => {
    const calls = [
      { id: 'call_ok', type: 'function', function: { name: 'math_factorial', arguments: '{"n":5}' } },
      { id: 'call_big', type: 'function', function: { name: 'math_factorial', arguments: '{"n":25}' } },
      { id: 'call_typo', type: 'function', function: { name: 'math_factoral', arguments: '{"n":5}' } },
    ]
    const completion = { id: 'c', object: 'chat.completion', created: 0, model: MODEL, choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: null, tool_calls: calls } }] }
    await withReplay([{ kind: 'json', body: completion }, { kind: 'json', body: FINAL }], async (server) => {
      const openai = client(server.origin)
      const { ctx } = toolsOf()
      const declared = toOpenAIChatTools(ctx.tools.describe())
      const parsed = parseOpenAIChatCompletion(await openai.chat.completions.create({ model: MODEL, messages: [USER], tools: declared.tools }), { nameMap: declared.nameMap })
      expect(parsed.calls.map((c) => c.name)).toEqual(['math.factorial', 'math.factorial', 'math_factoral'])
      // The run step as the README shows it: the declaration's map goes to execute as it is.
      const settled = await settleParsedCalls(parsed, (batch) => ctx.tools.execute({ calls: batch, nameMap: declared.nameMap }))
      const available = 'get_time, get_weather, health, list_dir, math_factorial, write_file'
      expect(texts(settled.results)).toEqual(['120', 'Error: Invalid arguments for tool "math_factorial": /n: must be <= 20', `Error: Unknown tool "math_factoral". Available tools: ${available}`])
      // Code-facing names stay the registry's.
      expect(settled.results.map((r) => [r.meta?.toolName, r.isError ? r.error.info?.toolName : undefined])).toEqual([['math.factorial', undefined], ['math.factorial', undefined], [undefined, undefined]])
      await openai.chat.completions.create({ model: MODEL, messages: [USER, toOpenAIChatAssistantMessage(parsed), ...toOpenAIChatToolMessages(settled.calls, settled.results)], tools: declared.tools })
      expect((server.requests[1]?.body as { messages: unknown[] }).messages.slice(1)).toEqual([
        { role: 'assistant', content: null, tool_calls: calls },
        { role: 'tool', tool_call_id: 'call_ok', content: '120' },
        { role: 'tool', tool_call_id: 'call_big', content: 'Error: Invalid arguments for tool "math_factorial": /n: must be <= 20' },
        { role: 'tool', tool_call_id: 'call_typo', content: `Error: Unknown tool "math_factoral". Available tools: ${available}` },
      ])
      // Without the map, the same batch names the registry's tools (what the model never saw).
      const plain = await ctx.tools.execute({ calls: parsed.calls })
      expect(texts(plain).slice(1)).toEqual([
        'Error: Invalid arguments for tool "math.factorial": /n: must be <= 20',
        'Error: Unknown tool "math_factoral". Available tools: get_time, get_weather, health, list_dir, math.factorial, write_file',
      ])
    })
  })

  test('a stream cut at the output limit: nothing runs, each call is answered as truncated, the turn keeps the calls', async () => {
    const events = [
      chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_w', type: 'function', function: { name: 'write_file', arguments: '{"path": "notes.md", ' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"content": "line one\\nline tw' } }] }),
      chunk({}, 'length'),
    ]
    await withReplay([{ kind: 'sse', events, done: true }, { kind: 'json', body: FINAL }], async (server) => {
      const openai = client(server.origin)
      const declared = toOpenAIChatTools(toolsOf().ctx.tools.describe())
      const accumulator = new OpenAIChatStreamAccumulator({ nameMap: declared.nameMap })
      for await (const part of await openai.chat.completions.create({ model: MODEL, messages: [USER], tools: declared.tools, stream: true })) accumulator.push(part)
      const parsed = accumulator.result()
      expect(parsed.status).toBe('truncated')
      const { results } = await step(openai, parsed, declared)
      expect(results.map((r) => r.isError && r.error.info?.code)).toEqual(['TRUNCATED_ARGUMENTS'])
      const sent = (server.requests[1]?.body as { messages: { role: string; content: unknown; tool_calls?: unknown }[] }).messages
      expect(sent[1]).toEqual({ role: 'assistant', content: null, tool_calls: [{ id: 'call_w', type: 'function', function: { name: 'write_file', arguments: '{"path": "notes.md", "content": "line one\\nline tw' } }] })
      expect(sent[2]).toEqual({ role: 'tool', tool_call_id: 'call_w', content: texts(results)[0] })
      expect(String(sent[2]?.content).startsWith('Error: arguments were truncated at the model\'s output limit')).toBe(true)
    })
  })

  test('a stream without a finish (connection ended early) is cut too: nothing runs', async () => {
    const events = [chunk({ tool_calls: [{ index: 0, id: 'call_h', type: 'function', function: { name: 'health', arguments: '{}' } }] })]
    await withReplay([{ kind: 'sse', events }], async (server) => {
      const openai = client(server.origin)
      const accumulator = new OpenAIChatStreamAccumulator()
      for await (const part of await openai.chat.completions.create({ model: MODEL, messages: [USER], stream: true })) accumulator.push(part)
      const parsed = accumulator.result()
      expect(parsed.status).toBe('truncated')
      expect(parsed.truncated.map((t) => t.reason)).toEqual(['response-cut'])
    })
  })

  test('duplicate call ids in one response: unique ids in the batch, the assistant turn and the tool messages (1:1)', async () => {
    const completion = {
      ...FINAL,
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_x', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
              { id: 'call_x', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lima"}' } },
            ],
          },
        },
      ],
    }
    await withReplay([{ kind: 'json', body: completion }, { kind: 'json', body: FINAL }], async (server) => {
      const openai = client(server.origin)
      const declared = toOpenAIChatTools(toolsOf().ctx.tools.describe())
      const parsed = parseOpenAIChatCompletion(await openai.chat.completions.create({ model: MODEL, messages: [USER], tools: declared.tools }))
      expect(parsed.callIdChanges).toEqual([{ index: 1, pointer: '/choices/0/message/tool_calls/1/id', emitted: 'call_x', callId: 'call_x_2', reason: 'duplicate' }])
      await step(openai, parsed, declared)
      const sent = (server.requests[1]?.body as { messages: { tool_calls?: { id: string }[]; tool_call_id?: string; content?: unknown }[] }).messages
      expect(sent[1]?.tool_calls?.map((c) => c.id)).toEqual(['call_x', 'call_x_2'])
      expect(sent.slice(2).map((m) => [m.tool_call_id, m.content])).toEqual([
        ['call_x', 'Oslo: 4°C'],
        ['call_x_2', 'Lima: 4°C'],
      ])
    })
  })

  test('DeepSeek: DSML markup in content (E19) is recovered, runs, and goes back as structured calls; reasoning_content is sent back', async () => {
    const e19 = recorded('E19')
    const completion = { id: 'd', object: 'chat.completion', created: 0, model: 'deepseek-chat', choices: [{ ...e19.choices[0], index: 0, message: { ...e19.choices[0].message, reasoning_content: 'List the docs folder.' } }] }
    await withReplay([{ kind: 'json', body: completion }, { kind: 'json', body: FINAL }], async (server) => {
      const openai = client(server.origin)
      const declared = toDeepSeekTools(toolsOf().ctx.tools.describe())
      const parsed = parseOpenAIChatCompletion(await openai.chat.completions.create({ model: 'deepseek-chat', messages: [USER], tools: declared.tools }), { provider: 'deepseek', nameMap: declared.nameMap })
      expect(parsed.status).toBe('recovered')
      await step(openai, parsed, declared)
      expect((server.requests[1]?.body as { messages: unknown[] }).messages.slice(1)).toEqual([
        {
          role: 'assistant',
          content: null,
          reasoning_content: 'List the docs folder.',
          tool_calls: [{ id: 'text_call_0', type: 'function', function: { name: 'list_dir', arguments: '{"path":"./docs"}' } }],
        },
        { role: 'tool', tool_call_id: 'text_call_0', content: 'a.md\nb.md' },
      ])
    })
  })
})
