/**
 * Eager start from a stream, without network: a Chat Completions stream (here canned chunks
 * that arrive 20 ms apart; in a real loop `await client.chat.completions.create({ …, stream:
 * true })`) is read by `executeToolStream`, which starts each call as soon as its arguments are
 * complete, while the rest of the turn still streams. Results come in call order.
 *
 * Run: `npm run tsx -- packages/tool-executor-native/examples/stream.ts`
 */
import { Context } from 'cordis'
import { ToolRegistry, defineRawTool } from '@deepseek-ai/dsh-tools'
import { NativeExecutor, executeToolStream, toOpenAIChatAssistantMessage, toOpenAIChatToolMessages, toOpenAIChatTools, type OpenAIChatChunkWire } from '@deepseek-ai/dsh-tool-executor-native'

const ctx = new Context()
await ctx.plugin(ToolRegistry, {})
await ctx.plugin(NativeExecutor, {})
ctx.tools.register(
  defineRawTool({
    name: 'get_weather',
    description: 'Current weather for a city.',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    isConcurrencySafe: () => true,
    execute: (args) => `${String(args.city)}: 20°`,
  }),
)
const declared = toOpenAIChatTools(ctx.tools.describe())

// Two calls, each call's arguments in two fragments, then the finish chunk.
const delta = (d: object, finish: string | null = null) => ({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: d, finish_reason: finish }] }) as OpenAIChatChunkWire
async function* stream(): AsyncGenerator<OpenAIChatChunkWire> {
  const chunks = [
    delta({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } }] }),
    delta({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
    delta({ tool_calls: [{ index: 1, id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } }] }),
    delta({ tool_calls: [{ index: 1, function: { arguments: '"Lima"}' } }] }),
    delta({}, 'tool_calls'),
  ]
  for (const chunk of chunks) {
    await new Promise((resolve) => setTimeout(resolve, 20))
    yield chunk
  }
}

const run = executeToolStream(ctx, { provider: 'openai-chat', stream: stream(), nameMap: declared.nameMap })
// Each result as it settles, in call order (call_1 ran while call_2 was still streaming).
for await (const { call, result } of run) console.log(call.callId, result.content)
const { parsed, calls, results, startedEarly } = await run.outcome
console.log(parsed.status, startedEarly) // complete 2
// The history for the next request: the assistant turn, then one tool message per call.
console.log([toOpenAIChatAssistantMessage(parsed), ...toOpenAIChatToolMessages(calls, results)].map((m) => m.role))
await ctx.fiber.dispose()
