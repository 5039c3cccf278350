import { Context } from 'cordis'
import { ToolRegistry } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'
import { createMcpBridge, mcpToolInfo } from '@deepseek-ai/dsh-tool-mcp'

const ctx = new Context()
await ctx.plugin(ToolRegistry)
await ctx.plugin(NativeExecutor, {})

const bridge = await createMcpBridge(ctx, {
  servers: [
    // stdio: the child gets only HOME, LOGNAME, PATH, SHELL, TERM, USER plus `env`.
    { name: 'fs', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv/workspace'], timeoutMs: 30_000 },
    // Streamable HTTP, reconnected with backoff when it fails or goes away.
    { name: 'search', transport: 'http', url: 'http://127.0.0.1:3001/mcp', headers: { Authorization: 'Bearer …' }, retry: { initialDelayMs: 500 } },
  ],
})

// One server failing never stops the others: it is reported here, on `mcp/status` and in the log.
for (const s of bridge.status()) console.log(s.name, s.state, s.tools.length, s.lastError ?? '')

// Policies see the server's annotations through the definition.
ctx.on('tools/pre-execute', (exec, next) =>
  mcpToolInfo(exec.definition)?.annotations.destructiveHint === true ? { type: 'ask', reason: `${exec.name} may destroy data` } : next(),
)

const [result] = await ctx.tools.execute({ calls: [{ callId: 'c1', name: 'fs__read_text_file', arguments: '{"path":"README.md","head":5}' }] })
console.log(result?.content)
await bridge.close() // also runs when ctx's fiber is disposed
