/**
 * The README's example: a scope's tools served over Streamable HTTP, with a policy that asks
 * before a destructive call, then called by an MCP client (here this repository's bridge,
 * which hands the elicitation to its app's approval service — none here, so it is declined).
 */
import { Context } from 'cordis'
import { ToolRegistry, defineRawTool } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'
import { createMcpToolServer } from '@deepseek-ai/dsh-tool-mcp-server'
import { createMcpBridge } from '@deepseek-ai/dsh-tool-mcp'

const ctx = new Context()
await ctx.plugin(ToolRegistry)
await ctx.plugin(NativeExecutor, {})
ctx.tools.register(
  defineRawTool({
    name: 'word_count',
    description: 'Counts the words of a text',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    outputSchema: { type: 'object', properties: { words: { type: 'integer' } }, required: ['words'] },
    execute: (args) => ({ words: String(args.text).split(/\s+/).filter(Boolean).length }),
  }),
)
ctx.tools.register(defineRawTool({ name: 'delete_file', description: 'Deletes a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } } }, execute: () => 'deleted' }))
ctx.on('tools/pre-execute', (exec, next) => (exec.name === 'delete_file' ? { type: 'ask', reason: 'It cannot be undone.' } : next()))

// Serve: 127.0.0.1, a free port, Host/Origin checks on. Each MCP client session gets its own agent scope.
const server = createMcpToolServer(ctx, { name: 'my-tools', version: '1.0.0' })
const http = await server.listen()

// Any MCP client can connect to http.url; here another context mounts it through the bridge.
const client = new Context()
await client.plugin(ToolRegistry)
await client.plugin(NativeExecutor, {})
const bridge = await createMcpBridge(client, { servers: [{ name: 'mine', transport: 'http', url: http.url }] })
const results = await client.tools.execute({
  calls: [
    { callId: 'a', name: 'mine__word_count', arguments: '{"text":"to be or not to be"}' },
    { callId: 'b', name: 'mine__delete_file', arguments: '{"path":"notes.txt"}' },
  ],
})
for (const r of results) console.log(r.callId, r.isError ? r.error.message : JSON.stringify(r.value))
// a {"words":6}
// b Tool "delete_file" was not approved by the MCP client's user
await bridge.close()
await server.close()
