/**
 * DeepSeek (OpenAI-compatible Chat Completions), end to end without network: declare portable
 * schemas, parse a canned stream whose parallel calls interleave, run the batch, answer with
 * text-only tool messages. Also shows the leaked-markup check (emission E19).
 *
 * Run: `npm run tsx -- packages/tool-executor-native/examples/deepseek.ts`
 */
import { Context } from 'cordis'
import { ToolRegistry, defineRawTool } from '@deepseek-ai/dsh-tools'
import {
  NativeExecutor,
  OpenAIChatStreamAccumulator,
  markupErrorMessage,
  parseOpenAIChatMessage,
  toDeepSeekTools,
  toOpenAIChatToolMessages,
  settleParsedCalls,
  type OpenAIChatChunkWire,
} from '@deepseek-ai/dsh-tool-executor-native'

const ctx = new Context()
await ctx.plugin(ToolRegistry, {})
await ctx.plugin(NativeExecutor, {})
ctx.tools.register(
  defineRawTool({
    name: 'list_dir',
    description: 'List a directory.',
    inputSchema: { type: 'object', properties: { path: { type: 'string' }, depth: { type: ['integer', 'null'] } }, required: ['path'] },
    execute: (args) => [`${String(args.path)}/README.md`, `${String(args.path)}/src`],
    isConcurrencySafe: () => true,
  }),
)

// 1. Declarations: `type: ["integer", "null"]` is sent as anyOf (a TYPE_ARRAY_REWRITTEN warning).
const declared = toDeepSeekTools(ctx.tools.describe())
const request = { model: 'deepseek-chat', stream: true, messages: [{ role: 'user' as const, content: 'List docs and src' }], tools: declared.tools }
console.log(JSON.stringify(request.tools))

// 2. The stream (canned here): fragments of two calls interleave; they are keyed by index.
const chunks: OpenAIChatChunkWire[] = [
  { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_0', type: 'function', function: { name: 'list_dir', arguments: '{"path":' } }] } }] },
  { choices: [{ index: 0, delta: { tool_calls: [{ index: 1, id: 'call_1', type: 'function', function: { name: 'list_dir', arguments: '{"path":"src"}' } }] } }] },
  { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '"docs"}' } }] } }] },
  { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
]
const stream = new OpenAIChatStreamAccumulator({ nameMap: declared.nameMap, provider: 'deepseek' })
for (const chunk of chunks) stream.push(chunk)
const parsed = stream.result()

// 3. Run the batch; a response cut at the output limit runs nothing and answers each call as truncated.
const { calls, results } = await settleParsedCalls(parsed, (batch) => ctx.tools.execute({ calls: batch, nameMap: declared.nameMap }))

// 4. Tool messages; DeepSeek takes text only, so images would become placeholders.
console.log(JSON.stringify(toOpenAIChatToolMessages(calls, results, { images: 'omit' }), null, 2))

// A reply that writes DSML tool-call markup into `content` instead of `tool_calls` is not a final
// answer: well-formed markup is recovered into calls (status `recovered`), broken markup is
// `malformed-markup` with a message for the model.
const dsml = '<｜DSML｜tool_calls>\n<｜DSML｜invoke name="list_dir">\n<｜DSML｜parameter name="path" string="true">docs</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>'
const recovered = parseOpenAIChatMessage({ role: 'assistant', content: dsml, tool_calls: null }, 'stop', { provider: 'deepseek', nameMap: declared.nameMap })
console.log(recovered.status, recovered.calls) // recovered [{ callId: 'text_call_0', name: 'list_dir', arguments: { path: 'docs' } }]
const broken = parseOpenAIChatMessage({ role: 'assistant', content: '<｜DSML｜tool_calls>\n<｜DSML｜invoke name="list_dir">', tool_calls: null }, 'stop', { provider: 'deepseek' })
if (broken.status === 'malformed-markup') console.log(markupErrorMessage(broken))

await ctx.fiber.dispose()
