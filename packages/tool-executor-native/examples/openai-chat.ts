/**
 * OpenAI Chat Completions, end to end without network: declare the tools, parse a canned
 * completion into a raw batch, run it through the pipeline, rebuild the assistant turn and
 * answer with tool messages.
 *
 * Run: `npm run tsx -- packages/tool-executor-native/examples/openai-chat.ts`
 */
import { Context } from 'cordis'
import { ToolRegistry, defineRawTool } from '@deepseek-ai/dsh-tools'
import {
  NativeExecutor,
  markupErrorMessage,
  parseOpenAIChatCompletion,
  toOpenAIChatAssistantMessage,
  toOpenAIChatToolMessages,
  toOpenAIChatTools,
  settleParsedCalls,
  type OpenAIChatCompletionWire,
} from '@deepseek-ai/dsh-tool-executor-native'

const ctx = new Context()
await ctx.plugin(ToolRegistry, {})
await ctx.plugin(NativeExecutor, {})
ctx.tools.register(
  defineRawTool({
    name: 'math.factorial',
    description: 'The factorial of n.',
    inputSchema: { type: 'object', properties: { n: { type: 'integer', minimum: 0, maximum: 20 } }, required: ['n'] },
    execute: (args) => Array.from({ length: Number(args.n) }, (_, i) => i + 1).reduce((a, b) => a * b, 1),
  }),
)

// 1. Declarations: the request's `tools` field. `math.factorial` is sent as `math_factorial`.
const declared = toOpenAIChatTools(ctx.tools.describe())
for (const warning of declared.warnings) console.log(`note: ${warning.tool} ${warning.pointer}: ${warning.message}`)
const request = {
  model: 'gpt-4.1',
  messages: [{ role: 'user' as const, content: 'What are 5! and 25!?' }],
  tools: declared.tools,
}
console.log(JSON.stringify(request.tools))

// 2. The model's answer (canned here) → the raw batch, names mapped back.
const completion: OpenAIChatCompletionWire = {
  choices: [
    {
      index: 0,
      finish_reason: 'tool_calls',
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'math_factorial', arguments: '{"n": 5}' } },
          { id: 'call_2', type: 'function', function: { name: 'math_factorial', arguments: '{"n": 25}' } },
        ],
      },
    },
  ],
}
const parsed = parseOpenAIChatCompletion(completion, { nameMap: declared.nameMap })
// `complete` without calls is a final answer; `malformed-markup` never is (see below).
if (parsed.status === 'malformed-markup') throw new Error(markupErrorMessage(parsed))

// 3. Run the batch; a response cut at the output limit runs nothing and answers each call as truncated.
//    With the name map, error texts name the tool as the model saw it: 25 is over the maximum, so
//    call_2 is answered `Error: Invalid arguments for tool "math_factorial": /n: must be <= 20`.
const { calls, results } = await settleParsedCalls(parsed, (batch) => ctx.tools.execute({ calls: batch, nameMap: declared.nameMap }))

// 4. The messages for the next request: the assistant turn (the calls with the ids the results
//    use), then one role=tool message per call, in call order.
const messages = [...request.messages, toOpenAIChatAssistantMessage(parsed), ...toOpenAIChatToolMessages(calls, results)]
console.log(JSON.stringify(messages, null, 2))

await ctx.fiber.dispose()
