/**
 * Gemini, end to end without network: declare the tools (the OpenAPI subset), parse a canned
 * `generateContent` response (calls without ids: ids are minted in order) into a raw batch,
 * run it, and answer with `functionResponse` parts in call order.
 *
 * Run: `npm run tsx -- packages/tool-executor-native/examples/gemini.ts`
 */
import { Context } from 'cordis'
import { ToolRegistry, defineRawTool } from '@deepseek-ai/dsh-tools'
import {
  NativeExecutor,
  parseGeminiResponse,
  toGeminiFunctionResponses,
  toGeminiModelContent,
  toGeminiTools,
  settleParsedCalls,
  type GeminiResponseWire,
} from '@deepseek-ai/dsh-tool-executor-native'

const ctx = new Context()
await ctx.plugin(ToolRegistry, {})
await ctx.plugin(NativeExecutor, {})
ctx.tools.register(
  defineRawTool({
    name: 'get_weather',
    description: 'Current weather for a city.',
    // `unit` is a null union: Gemini gets `nullable: true` instead (a TYPE_ARRAY_REWRITTEN warning).
    inputSchema: { type: 'object', properties: { city: { type: 'string' }, unit: { type: ['string', 'null'], enum: ['celsius', 'fahrenheit', null] } }, required: ['city'] },
    execute: (args) => `${String(args.city)}: 4°C`,
  }),
)

// 1. Declarations: Gemini takes them as `tools: [{ functionDeclarations }]`.
const declared = toGeminiTools(ctx.tools.describe())
for (const warning of declared.warnings) console.log(`note: ${warning.tool} ${warning.code} ${warning.pointer}`)
const request = { contents: [{ role: 'user', parts: [{ text: 'Weather in Oslo and Lima?' }] }], tools: [{ functionDeclarations: declared.tools }] }
console.log(JSON.stringify(request.tools))

// 2. The answer (canned here) → the raw batch: gemini_call_0, gemini_call_1.
const response: GeminiResponseWire = {
  candidates: [
    {
      content: { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Oslo' } } }, { functionCall: { name: 'get_weather', args: { city: 'Lima' } } }] },
      finishReason: 'STOP',
    },
  ],
}
const parsed = parseGeminiResponse(response, { nameMap: declared.nameMap })

// 3. Run the batch; a response cut at the output limit runs nothing and answers each call as truncated.
const { calls, results } = await settleParsedCalls(parsed, (batch) => ctx.tools.execute({ calls: batch, nameMap: declared.nameMap }))

// 4. The `user` content for the next request: functionResponse parts in call order.
// The next request's contents: the model turn (every thoughtSignature kept), then the responses.
console.log(JSON.stringify([toGeminiModelContent(parsed), toGeminiFunctionResponses(calls, results, { nameMap: declared.nameMap })], null, 2))

await ctx.fiber.dispose()
