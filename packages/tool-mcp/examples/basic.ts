import { Context } from 'cordis'
import { ToolRegistry } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'
import { createMcpBridge, mcpToolInfo } from '@deepseek-ai/dsh-tool-mcp'

const ctx = new Context()
await ctx.plugin(ToolRegistry)
await ctx.plugin(NativeExecutor, {})

const bridge = await createMcpBridge(ctx, {
  servers: [
    // stdio: the child gets only HOME, LOGNAME, PATH, SHELL, TERM, USER plus `env`. In your project:
    // command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'].
    { name: 'fs', command: process.execPath, args: ['node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', '.'], timeoutMs: 30_000 },
    // Streamable HTTP, reconnected with backoff when it fails or goes away (port 1: fetch refuses it).
    { name: 'search', transport: 'http', url: 'http://127.0.0.1:1/mcp', headers: { Authorization: `Bearer ${process.env.SEARCH_TOKEN ?? ''}` }, retry: { initialDelayMs: 500 } },
  ],
})

// One server failing never stops the others: it is reported here, on `mcp/status` and in the log.
for (const s of bridge.status()) console.log(`${s.name}: ${s.state}, ${s.tools.length} tools${s.lastError === undefined ? '' : ` (${s.lastError})`}`)
// fs: ready, 14 tools
// search: reconnecting, 0 tools (could not connect: Version negotiation probe failed: fetch failed (bad port))

// Policies see the server's annotations through the definition.
ctx.on('tools/pre-execute', (exec, next) =>
  mcpToolInfo(exec.definition)?.annotations.destructiveHint === true ? { type: 'ask', reason: `${exec.name} may destroy data` } : next(),
)

const [result] = await ctx.tools.execute({ calls: [{ callId: 'c1', name: 'fs__read_text_file', arguments: '{"path":"package.json","head":2}' }] })
console.log(JSON.stringify(result?.content))
// [{"type":"text","text":"{\n  \"name\": \"dsh-tools-monorepo\","}]

// The servers stay up until the context is disposed: this closes every client, ends every stdio
// child and lets the program exit.
await ctx.fiber.dispose()
