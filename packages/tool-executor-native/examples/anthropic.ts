/**
 * Anthropic Messages, end to end without network: declare the tools, parse a canned event
 * stream (one call cut at `max_tokens`) into a raw batch, and answer every `tool_use` with a
 * `tool_result` in one user message.
 *
 * Run: `npm run tsx -- packages/tool-executor-native/examples/anthropic.ts`
 */
import { Context } from 'cordis'
import { ToolRegistry, defineRawTool } from '@deepseek-ai/dsh-tools'
import {
  AnthropicStreamAccumulator,
  NativeExecutor,
  toAnthropicAssistantMessage,
  toAnthropicToolResultMessage,
  toAnthropicTools,
  settleParsedCalls,
  type AnthropicStreamEventWire,
} from '@deepseek-ai/dsh-tool-executor-native'

const ctx = new Context()
await ctx.plugin(ToolRegistry, {})
await ctx.plugin(NativeExecutor, {})
ctx.tools.register(
  defineRawTool({
    name: 'write_file',
    description: 'Write a text file.',
    inputSchema: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] },
    execute: (args) => `wrote ${String(args.content).length} characters to ${String(args.path)}`,
  }),
)

// 1. Declarations: the request's `tools` field.
const declared = toAnthropicTools(ctx.tools.describe())
const request = { model: 'claude-sonnet-5', max_tokens: 64, messages: [{ role: 'user' as const, content: 'Write notes.md' }], tools: declared.tools }
console.log(JSON.stringify(request.tools))

// 2. The streamed answer (canned here): the arguments are cut by max_tokens.
const events: AnthropicStreamEventWire[] = [
  { type: 'message_start', message: { stop_reason: null, content: [] } },
  { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'write_file', input: {} } },
  { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"path": "notes.md", "content": "line one\\nline tw' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'message_delta', delta: { stop_reason: 'max_tokens' } },
  { type: 'message_stop' },
]
const stream = new AnthropicStreamAccumulator({ nameMap: declared.nameMap })
for (const event of events) stream.push(event)
const parsed = stream.result()
console.log(`status: ${parsed.status}`) // truncated: nothing is executed

// 3. Run the batch; a response cut at the output limit runs nothing and answers each call as truncated.
const { calls, results } = await settleParsedCalls(parsed, (batch) => ctx.tools.execute({ calls: batch, nameMap: declared.nameMap }))

// 4. One user message with a tool_result per tool_use; failures carry is_error.
// The next request's history: the assistant turn (the cut tool_use keeps its id, input {}),
// then one user message answering every tool_use.
console.log(JSON.stringify([toAnthropicAssistantMessage(parsed), toAnthropicToolResultMessage(calls, results)], null, 2))

await ctx.fiber.dispose()
