/**
 * Round trips through the official `@google/genai` client against a local replay server on
 * 127.0.0.1: SDK responses and stream chunks, unmodified, go to our parsers; the model content
 * (with every `thoughtSignature`) and the function responses go back through
 * `ai.models.generateContent`.
 */
import { describe, expect, test } from 'vitest'
import { GoogleGenAI, type Content } from '@google/genai'
import type { JsonObject } from '@deepseek-ai/dsh-tools'
import { GeminiStreamAccumulator, parseGeminiResponse, toGeminiFunctionResponses, toGeminiModelContent, toGeminiTools, type ParsedToolCalls } from '../src/providers'
import { recorded, texts, useToolContext, withReplay } from './sdk-helpers'

const MODEL = 'gemini-2.5-flash'
const USER: Content = { role: 'user', parts: [{ text: 'Weather in Oslo and Lima, and 5!?' }] }
const FINAL: JsonObject = { candidates: [{ content: { role: 'model', parts: [{ text: 'Done.' }] }, finishReason: 'STOP', index: 0 }] }

const toolsOf = useToolContext()

const client = (origin: string) => new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: origin, apiVersion: 'v1beta' } })

async function step(ai: GoogleGenAI, parsed: ParsedToolCalls, declared: ReturnType<typeof toGeminiTools>) {
  const { calls, results } = await toolsOf().settle(parsed)
  const contents = [USER, toGeminiModelContent(parsed), toGeminiFunctionResponses(calls, results, { nameMap: declared.nameMap })]
  return { results, final: await ai.models.generateContent({ model: MODEL, contents, config: { tools: [{ functionDeclarations: declared.tools }] } }) }
}

describe('@google/genai client, generateContent', () => {
  test('recorded parallel calls without ids (E26): minted ids stay local, responses pair by name and order', async () => {
    await withReplay([{ kind: 'json', body: recorded('E26') }, { kind: 'json', body: FINAL }], async (server) => {
      const ai = client(server.origin)
      const declared = toGeminiTools(toolsOf().ctx.tools.describe())
      const first = await ai.models.generateContent({ model: MODEL, contents: [USER], config: { tools: [{ functionDeclarations: declared.tools }] } })
      const parsed = parseGeminiResponse(first, { nameMap: declared.nameMap })
      expect(parsed.calls.map((c) => [c.callId, c.name, c.arguments])).toEqual([
        ['gemini_call_0', 'get_weather', { city: 'Oslo' }],
        ['gemini_call_1', 'get_weather', { city: 'Lima' }],
      ])
      const { results, final } = await step(ai, parsed, declared)
      expect(texts(results)).toEqual(['Oslo: 4°C', 'Lima: 4°C'])
      expect(final.text).toBe('Done.')
      expect(server.requests.map((r) => r.path)).toEqual([`/v1beta/models/${MODEL}:generateContent`, `/v1beta/models/${MODEL}:generateContent`])
      const body = server.requests[1]?.body as { contents: unknown; tools: unknown }
      expect(body.tools).toEqual([{ functionDeclarations: JSON.parse(JSON.stringify(declared.tools)) }])
      expect(body.contents).toEqual([
        USER,
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Oslo' } } }, { functionCall: { name: 'get_weather', args: { city: 'Lima' } } }] },
        {
          role: 'user',
          parts: [{ functionResponse: { name: 'get_weather', response: { output: 'Oslo: 4°C' } } }, { functionResponse: { name: 'get_weather', response: { output: 'Lima: 4°C' } } }],
        },
      ])
    })
  })

  test('a stream with a thought, text fragments and a signed call with an id: each signature stays on the part it came with, the id goes back', async () => {
    const chunks: JsonObject[] = [
      { candidates: [{ index: 0, content: { role: 'model', parts: [{ text: 'Need 5!.', thought: true }] } }] },
      { candidates: [{ index: 0, content: { role: 'model', parts: [{ text: 'Computing', thoughtSignature: 'c2lnLTE=' }] } }] },
      { candidates: [{ index: 0, content: { role: 'model', parts: [{ text: ' now.' }] } }] },
      { candidates: [{ index: 0, content: { role: 'model', parts: [{ functionCall: { id: 'fc-7', name: 'math.factorial', args: { n: 5 } }, thoughtSignature: 'c2lnLTI=' }] }, finishReason: 'STOP' }] },
    ]
    await withReplay([{ kind: 'sse', events: chunks }, { kind: 'json', body: FINAL }], async (server) => {
      const ai = client(server.origin)
      const declared = toGeminiTools(toolsOf().ctx.tools.describe())
      const accumulator = new GeminiStreamAccumulator({ nameMap: declared.nameMap })
      for await (const chunk of await ai.models.generateContentStream({ model: MODEL, contents: [USER], config: { tools: [{ functionDeclarations: declared.tools }] } })) accumulator.push(chunk)
      const parsed = accumulator.result()
      expect(parsed.calls).toEqual([{ callId: 'fc-7', name: 'math.factorial', arguments: { n: 5 } }])
      expect([parsed.text, parsed.reasoning]).toEqual(['Computing now.', 'Need 5!.'])
      const { results } = await step(ai, parsed, declared)
      expect(texts(results)).toEqual(['120'])
      expect(server.requests[0]?.path).toBe(`/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`)
      expect((server.requests[1]?.body as { contents: unknown[] }).contents.slice(1)).toEqual([
        {
          role: 'model',
          parts: [
            { text: 'Need 5!.', thought: true },
            { text: 'Computing', thoughtSignature: 'c2lnLTE=' },
            { text: ' now.' },
            { functionCall: { id: 'fc-7', name: 'math.factorial', args: { n: 5 } }, thoughtSignature: 'c2lnLTI=' },
          ],
        },
        { role: 'user', parts: [{ functionResponse: { id: 'fc-7', name: 'math.factorial', response: { output: '120' } } }] },
      ])
    })
  })

  test('MAX_TOKENS: nothing runs, each call is answered with an error response', async () => {
    const cut: JsonObject = { candidates: [{ index: 0, content: { role: 'model', parts: [{ functionCall: { name: 'health', args: {} } }] }, finishReason: 'MAX_TOKENS' }] }
    await withReplay([{ kind: 'json', body: cut }, { kind: 'json', body: FINAL }], async (server) => {
      const ai = client(server.origin)
      const declared = toGeminiTools(toolsOf().ctx.tools.describe())
      const parsed = parseGeminiResponse(await ai.models.generateContent({ model: MODEL, contents: [USER], config: { tools: [{ functionDeclarations: declared.tools }] } }))
      expect(parsed.status).toBe('truncated')
      await step(ai, parsed, declared)
      const sent = (server.requests[1]?.body as { contents: { parts: { functionResponse?: { name: string; response: { error?: string } } }[] }[] }).contents
      expect(sent[2]?.parts.map((p) => [p.functionResponse?.name, p.functionResponse?.response.error?.startsWith('Error: the response was cut')])).toEqual([['health', true]])
    })
  })
})
