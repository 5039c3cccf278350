import type { Context } from 'cordis'
import { McpPlugin } from '@deepseek-ai/dsh-tool-mcp'

export async function mountMemory(agentCtx: Context, file: string): Promise<void> {
  // Tools register in this context's scope (an agent here) as memory__<tool>.
  await agentCtx.plugin(McpPlugin, {
    servers: [{ name: 'memory', command: process.execPath, args: ['node_modules/@modelcontextprotocol/server-memory/dist/index.js'], env: { MEMORY_FILE_PATH: file } }],
    onProgress: (e) => console.log(`${e.tool} ${e.progress}/${e.total ?? '?'} ${e.message ?? ''}`),
    onStatus: (s) => console.log(`MCP server ${s.name}: ${s.state}`),
  })
}
