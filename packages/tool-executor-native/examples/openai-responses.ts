/**
 * OpenAI Responses API, end to end without network: declare the tools (strict mode), parse a
 * canned event stream into a raw batch, run it through the pipeline, answer with
 * `function_call_output` items paired by `call_id`.
 *
 * Run: `npm run tsx -- packages/tool-executor-native/examples/openai-responses.ts`
 */
import { Context } from 'cordis'
import { ToolRegistry, defineRawTool } from '@deepseek-ai/dsh-tools'
import {
  NativeExecutor,
  OpenAIResponsesStreamAccumulator,
  toOpenAIResponsesAssistantItems,
  toOpenAIResponsesOutputs,
  toOpenAIResponsesTools,
  settleParsedCalls,
  type OpenAIResponsesStreamEventWire,
} from '@deepseek-ai/dsh-tool-executor-native'

const ctx = new Context()
// Strict declarations widen optional properties to nullable: let the pipeline read null as absent.
await ctx.plugin(ToolRegistry, { repair: { nullAsAbsent: true } })
await ctx.plugin(NativeExecutor, {})
ctx.tools.register(
  defineRawTool({
    name: 'get_weather',
    description: 'Current weather for a city.',
    inputSchema: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } }, required: ['city'] },
    execute: (args) => `${String(args.city)}: ${args.unit === 'fahrenheit' ? '39°F' : '4°C'}`,
  }),
)

// 1. Declarations. Strict mode makes `unit` required and nullable (a STRICT_NULLABLE warning):
//    the model may then send `"unit": null`, which `repair.nullAsAbsent` above accepts.
const declared = toOpenAIResponsesTools(ctx.tools.describe(), { strict: true })
for (const warning of declared.warnings) console.log(`note: ${warning.tool} ${warning.code} ${warning.pointer}`)
const request = { model: 'gpt-4.1', input: 'Weather in Oslo?', tools: declared.tools }
console.log(JSON.stringify(request.tools))

// 2. The streamed answer (canned here: the JSON of each SSE `data:` line) → the raw batch.
const events: OpenAIResponsesStreamEventWire[] = [
  { type: 'response.output_item.added', output_index: 0, item: { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'get_weather', arguments: '' } },
  { type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 0, delta: '{"city":"Os' },
  { type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 0, delta: 'lo","unit":null}' },
  { type: 'response.completed', response: { status: 'completed' } },
]
const stream = new OpenAIResponsesStreamAccumulator({ nameMap: declared.nameMap })
for (const event of events) stream.push(event)
const parsed = stream.result()

// 3. Run the batch; a response cut at the output limit runs nothing and answers each call as truncated.
const { calls, results } = await settleParsedCalls(parsed, (batch) => ctx.tools.execute({ calls: batch, nameMap: declared.nameMap }))

// 4. The input items for the next request.
// The next request's input (without previous_response_id): the turn's items, then the outputs.
console.log(JSON.stringify([...toOpenAIResponsesAssistantItems(parsed), ...toOpenAIResponsesOutputs(calls, results)], null, 2))

await ctx.fiber.dispose()
