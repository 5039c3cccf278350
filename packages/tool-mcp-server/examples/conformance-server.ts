/**
 * The server the official MCP conformance suite (`@modelcontextprotocol/conformance`, server mode)
 * tests: the suite's fixture tools (`conformance-fixtures.ts`) registered as ordinary dsh-tools
 * tools with the native executor, served over Streamable HTTP at `http://127.0.0.1:$PORT/mcp`
 * (both protocol lines). Prints `listening <url>` once ready; SIGINT / SIGTERM close it.
 *
 * Run: `PORT=3001 npm run tsx -- packages/tool-mcp-server/examples/conformance-server.ts`, then
 * `npx conformance server --url http://127.0.0.1:3001/mcp --spec-version 2025-11-25`.
 */
import { Context } from 'cordis'
import { ToolRegistry, defineRawTool } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'
import { createMcpToolServer } from '@deepseek-ai/dsh-tool-mcp-server'
import { conformanceTools } from './conformance-fixtures'

const port = Number(process.env.PORT ?? 3001)
const ctx = new Context()
// Progress is delivered unthrottled: the suite counts every notification of a 100 ms call.
await ctx.plugin(ToolRegistry, { progressIntervalMs: 0 })
await ctx.plugin(NativeExecutor, {})
let extra = 0
const tools = conformanceTools(() => {
  const name = `test_added_tool_${++extra}`
  ctx.tools.register(defineRawTool({ name, description: 'Added by test_trigger_tool_change', inputSchema: { type: 'object' }, execute: () => name }))
})
for (const tool of tools) ctx.tools.register(tool)
const server = createMcpToolServer(ctx, { name: 'dsh-tools-conformance', version: '0.1.0' })
const listener = await server.listen({ port })
console.log(`listening ${listener.url}`)
const stop = async (): Promise<void> => {
  await server.close()
  process.exit(0)
}
process.once('SIGINT', () => void stop())
process.once('SIGTERM', () => void stop())
