/**
 * Tool calls leaked into text (emission E19): well-formed DeepSeek DSML, Hermes `<tool_call>`
 * and gpt-oss harmony fragments become runnable calls marked `recovered`; malformed or
 * unparsed markup is `malformed-markup`, never a final answer; streams give the same result
 * at every chunk split.
 */
import { describe, expect, test } from 'vitest'
import fc from 'fast-check'
import { Context } from 'cordis'
import { ToolRegistry, defineRawTool } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '../src'
import {
  markupErrorMessage,
  parseAnthropicMessage,
  parseAnthropicStream,
  parseOpenAIChatMessage,
  parseOpenAIChatStream,
  parseOpenAIResponse,
  parseOpenAIResponsesStream,
  settleParsedCalls,
  toOpenAIChatAssistantMessage,
  toOpenAIChatTools,
  toOpenAIChatToolMessages,
  type ParsedToolCalls,
} from '../src/providers'
import { emissionExamples } from './providers-fixtures'

const chat = (content: string, options = {}) => parseOpenAIChatMessage({ role: 'assistant', content, tool_calls: null }, 'stop', { provider: 'deepseek', ...options })
const callsOf = (parsed: ParsedToolCalls) => parsed.calls.map((c) => [c.callId, c.name, c.arguments])

const DSML = [
  'Let me look.\n',
  '<｜DSML｜function_calls>\n',
  '<｜DSML｜invoke name="read_file">\n',
  '<｜DSML｜parameter name="path" string="true">src/a.ts</｜DSML｜parameter>\n',
  '<｜DSML｜parameter name="limit" string="false">20</｜DSML｜parameter>\n',
  '</｜DSML｜invoke>\n',
  '<｜DSML｜invoke name="list_dir">\n',
  '<｜DSML｜parameter name="path" string="true">./docs</｜DSML｜parameter>\n',
  '<｜DSML｜parameter name="opts" string="false">{"hidden": true, "depth": 2}</｜DSML｜parameter>\n',
  '</｜DSML｜invoke>\n',
  '</｜DSML｜function_calls>',
].join('')
const HERMES = 'I will check both.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>\n<tool_call>\n{"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}\n</tool_call>'
const HARMONY = '<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Tokyo"}<|call|>'

describe('recovered: well-formed markup becomes calls', () => {
  test('DSML: two invokes, string and JSON parameters, prose kept out of the markup', () => {
    const parsed = chat(DSML)
    expect(parsed.status).toBe('recovered')
    expect(callsOf(parsed)).toEqual([
      ['text_call_0', 'read_file', { path: 'src/a.ts', limit: 20 }],
      ['text_call_1', 'list_dir', { path: './docs', opts: { hidden: true, depth: 2 } }],
    ])
    expect(parsed.status === 'recovered' && parsed.recovered).toEqual([
      { callId: 'text_call_0', marker: 'dsml', offset: 13, end: DSML.length },
      { callId: 'text_call_1', marker: 'dsml', offset: 13, end: DSML.length },
    ])
    expect(parsed.text).toBe(DSML)
    expect(toOpenAIChatAssistantMessage(parsed)).toEqual({
      role: 'assistant',
      content: 'Let me look.',
      tool_calls: [
        { id: 'text_call_0', type: 'function', function: { name: 'read_file', arguments: '{"path":"src/a.ts","limit":20}' } },
        { id: 'text_call_1', type: 'function', function: { name: 'list_dir', arguments: '{"path":"./docs","opts":{"hidden":true,"depth":2}}' } },
      ],
    })
  })

  test('DSML: an invoke whose body is one JSON object, ASCII bars, tool_calls wrapper', () => {
    const parsed = chat('<|DSML|tool_calls><|DSML|invoke name="search">{"q": "x", "n": 3}</|DSML|invoke></|DSML|tool_calls>')
    expect(callsOf(parsed)).toEqual([['text_call_0', 'search', { q: 'x', n: 3 }]])
  })

  test('Hermes: one call per block, arguments as an object or a JSON string', () => {
    const parsed = chat(HERMES)
    expect(parsed.status).toBe('recovered')
    expect(callsOf(parsed)).toEqual([
      ['text_call_0', 'get_weather', { city: 'Oslo' }],
      ['text_call_1', 'get_weather', { city: 'Paris' }],
    ])
    expect(parsed.status === 'recovered' && parsed.recovered.map((r) => [r.marker, HERMES.slice(r.offset, r.end).startsWith('<tool_call>'), HERMES.slice(r.end - 12, r.end)])).toEqual([
      ['hermes', true, '</tool_call>'],
      ['hermes', true, '</tool_call>'],
    ])
    expect(toOpenAIChatAssistantMessage(parsed).content).toBe('I will check both.')
  })

  test('harmony: a commentary call to functions.<name>, with or without special tokens around it', () => {
    expect(callsOf(chat(HARMONY))).toEqual([['text_call_0', 'get_weather', { city: 'Tokyo' }]])
    expect(toOpenAIChatAssistantMessage(chat(HARMONY)).content).toBe('Need the weather.')
    expect(callsOf(chat('commentary to=functions.lookup json<|message|>{"id": 7}'))).toEqual([['text_call_0', 'lookup', { id: 7 }]])
    expect(callsOf(chat('<|start|>assistant to=functions.a<|channel|>commentary json<|message|>{}<|call|><|start|>assistant to=functions.b<|channel|>commentary<|message|>{"k":1}'))).toEqual([
      ['text_call_0', 'a', {}],
      ['text_call_1', 'b', { k: 1 }],
    ])
  })

  test('names map back through the declaration name map', () => {
    const declared = toOpenAIChatTools({ tools: [{ name: 'fs.read', description: '', parameters: { type: 'object', properties: { path: { type: 'string' } } } }] })
    const parsed = chat('<tool_call>{"name": "fs_read", "arguments": {"path": "a"}}</tool_call>', { nameMap: declared.nameMap })
    expect(callsOf(parsed)).toEqual([['text_call_0', 'fs.read', { path: 'a' }]])
    expect(toOpenAIChatAssistantMessage(parsed).tool_calls?.[0]?.function.name).toBe('fs_read')
  })

  test('recovered calls run through the registry and pair with the assistant turn 1:1', async () => {
    const ctx = new Context()
    await ctx.plugin(ToolRegistry, {})
    await ctx.plugin(NativeExecutor, {})
    ctx.tools.register(defineRawTool({ name: 'get_weather', description: '', inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, execute: (args) => `${String(args.city)}: 4°C` }))
    const parsed = chat(HERMES)
    const { calls, results } = await settleParsedCalls(parsed, (batch) => ctx.tools.execute({ calls: batch }))
    expect(toOpenAIChatToolMessages(calls, results)).toEqual([
      { role: 'tool', tool_call_id: 'text_call_0', content: 'Oslo: 4°C' },
      { role: 'tool', tool_call_id: 'text_call_1', content: 'Paris: 4°C' },
    ])
    expect(toOpenAIChatAssistantMessage(parsed).tool_calls?.map((c) => c.id)).toEqual(['text_call_0', 'text_call_1'])
    await ctx.fiber.dispose()
  })

  test('recoverMarkup: false keeps the old report-only behaviour', () => {
    const parsed = chat(HERMES, { recoverMarkup: false })
    expect(parsed.status).toBe('complete')
    expect(parsed.leakedMarkup.map((m) => m.marker)).toEqual(['hermes'])
  })

  test('recovery applies to every provider\'s text (Anthropic, Responses)', () => {
    expect(callsOf(parseAnthropicMessage({ content: [{ type: 'text', text: HERMES }], stop_reason: 'end_turn' }))).toHaveLength(2)
    expect(callsOf(parseOpenAIResponse({ status: 'completed', output: [{ type: 'message', content: [{ type: 'output_text', text: DSML }] }] }))).toHaveLength(2)
  })
})

describe('malformed-markup: never a final answer, nothing runs', () => {
  const cases: [string, string, string][] = [
    ['DSML block never closed', '<｜DSML｜function_calls>\n<｜DSML｜invoke name="x">', 'unclosed or stray dsml markup near'],
    ['DSML string="false" value that is not JSON', '<｜DSML｜function_calls><｜DSML｜invoke name="x"><｜DSML｜parameter name="n" string="false">twenty</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>', 'DSML tool-call block: in "x": parameter "n" is marked string="false" but "twenty" is not JSON'],
    ['DSML junk between invokes', '<｜DSML｜function_calls>hello<｜DSML｜invoke name="x"></｜DSML｜invoke></｜DSML｜function_calls>', 'DSML tool-call block: expected an invoke element, found "hello<｜DSML｜invoke name='],
    ['Hermes body cut', '<tool_call>{"name": "get_weather", "arguments": {"city": "Os</tool_call>', '<tool_call> block: the body is not complete JSON (incomplete)'],
    ['Hermes without a name', '<tool_call>{"arguments": {}}</tool_call>', '<tool_call> block: the body has no "name" string'],
    ['Hermes never closed', 'Sure: <tool_call>{"name": "a", "arguments": {}}', 'unclosed or stray hermes markup near'],
    ['harmony message that is not JSON', '<|channel|>commentary to=functions.a<|message|>{"x": <|call|>', 'harmony call to functions.a: the message after <|message|> is not complete JSON (incomplete)'],
    ['an unparsed dialect', '<function=get_weather>{"city": "Oslo"}</function>', 'function-tag tool-call markup near'],
    ['a stray harmony token', 'Done.<|call|>', 'harmony markup near "Done.<|call|>" holds no complete tool call'],
  ]
  for (const [name, content, message] of cases) {
    test(name, () => {
      const parsed = chat(content)
      expect(parsed.status).toBe('malformed-markup')
      expect(parsed.calls).toEqual([])
      if (parsed.status !== 'malformed-markup') return
      expect(parsed.markupErrors[0]?.message.startsWith(message)).toBe(true)
      expect(markupErrorMessage(parsed)).toBe(
        `Your last message wrote tool calls as text, and they could not be run: ${parsed.markupErrors.map((e) => e.message).join('; ')}. Call tools through the function-calling interface (structured tool calls), not as text, and try again.`,
      )
    })
  }

  test('model-written names, parameters and excerpts in markup errors show invisible characters escaped (quoteText), not raw', () => {
    const dsml = chat('<｜DSML｜function_calls><｜DSML｜invoke name="x\u200B"><｜DSML｜parameter name="n\u202E" string="false">tw\uFEFFenty</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>')
    expect(dsml.status === 'malformed-markup' && dsml.markupErrors[0]?.message).toBe(
      'DSML tool-call block: in "x\\u200B": parameter "n\\u202E" is marked string="false" but "tw\\uFEFFenty" is not JSON',
    )
    const stray = chat('Done\u2028.<|call|>')
    expect(stray.status === 'malformed-markup' && stray.markupErrors[0]?.message).toBe('harmony markup near "Done\\u2028.<|call|>" holds no complete tool call')
  })

  test('one well-formed and one malformed block: the whole response is malformed-markup, nothing runs', async () => {
    const parsed = chat(`${HERMES}\n<tool_call>{"name": "x", </tool_call>`)
    expect(parsed.status).toBe('malformed-markup')
    let executed = 0
    const settled = await settleParsedCalls(parsed, async (calls) => {
      executed += calls.length
      return []
    })
    expect(settled).toEqual({ calls: [], results: [] })
    expect(executed).toBe(0)
  })

  test('a cut response with markup is truncated (the cut wins), and plain prose stays complete', () => {
    expect(parseOpenAIChatMessage({ content: '<tool_call>{"name": "a", "argu' }, 'length').status).toBe('truncated')
    expect(chat('The weather in Oslo is 4°C.').status).toBe('complete')
  })
})

describe('streams: the same parse at every chunk split', () => {
  const samples = [DSML, HERMES, HARMONY, '<｜DSML｜function_calls>\n<｜DSML｜invoke name="x">', (emissionExamples().find((e) => e.id === 'E19')?.payload.choices[0].message.content as string)]

  const chatStream = (pieces: string[]) =>
    parseOpenAIChatStream([...pieces.map((content) => ({ choices: [{ index: 0, delta: { content } }] })), { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }], { provider: 'deepseek' })
  const anthropicStream = (pieces: string[]) =>
    parseAnthropicStream([
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      ...pieces.map((text) => ({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })),
      { type: 'message_delta', delta: { stop_reason: 'end_turn' } },
    ])
  const responsesStream = (pieces: string[]) =>
    parseOpenAIResponsesStream([...pieces.map((delta) => ({ type: 'response.output_text.delta', delta })), { type: 'response.completed', response: { status: 'completed' } }])
  const essence = (parsed: ParsedToolCalls) => ({
    status: parsed.status,
    calls: parsed.calls,
    errors: parsed.status === 'malformed-markup' ? parsed.markupErrors : [],
    recovered: parsed.status === 'recovered' ? parsed.recovered : [],
  })

  test('every single split point of every sample, for Chat, Anthropic and Responses streams', () => {
    for (const sample of samples) {
      const whole = essence(chat(sample))
      for (let i = 0; i <= sample.length; i++) {
        const pieces = [sample.slice(0, i), sample.slice(i)]
        expect(essence(chatStream(pieces)), `chat split at ${i}`).toEqual(whole)
        expect(essence(anthropicStream(pieces)).calls, `anthropic split at ${i}`).toEqual(whole.calls)
        expect(essence(responsesStream(pieces)).calls, `responses split at ${i}`).toEqual(whole.calls)
      }
    }
  })

  test('property: any set of split points (chunks of 1 code unit included) gives the whole-text parse', () => {
    fc.assert(
      fc.property(fc.constantFrom(...samples), fc.array(fc.nat(), { maxLength: 12 }), (sample, cuts) => {
        const points = [...new Set(cuts.map((c) => c % (sample.length + 1)))].sort((a, b) => a - b)
        const pieces: string[] = []
        let at = 0
        for (const p of points) {
          pieces.push(sample.slice(at, p))
          at = p
        }
        pieces.push(sample.slice(at))
        expect(essence(chatStream(pieces))).toEqual(essence(chat(sample)))
      }),
      { numRuns: 300 },
    )
    const oneByOne = [...HARMONY].map((ch) => ch)
    expect(essence(chatStream(oneByOne))).toEqual(essence(chat(HARMONY)))
  })
})
