import type { Context, Fiber } from 'cordis'
import { McpPlugin } from '@deepseek-ai/dsh-tool-mcp'

// `await mountMemory(ctx, file)` settles once the server's first connection attempt has;
// `await fiber.dispose()` on the returned fiber removes its tools and ends the server process.
export function mountMemory(agentCtx: Context, file: string): Fiber {
  // Tools register in this context's scope (an agent here) as memory__<tool>.
  return agentCtx.plugin(McpPlugin, {
    servers: [{ name: 'memory', command: process.execPath, args: ['node_modules/@modelcontextprotocol/server-memory/dist/index.js'], env: { MEMORY_FILE_PATH: file } }],
    onProgress: (e) => console.log(`${e.tool} ${e.progress}/${e.total ?? '?'} ${e.message ?? ''}`),
    onStatus: (s) => console.log(`MCP server ${s.name}: ${s.state}`),
  })
}
