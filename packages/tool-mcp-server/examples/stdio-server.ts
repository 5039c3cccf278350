/**
 * A scope's tools served over stdio: an MCP client starts this program and talks JSON-RPC on its
 * stdin/stdout (2025-11-25 or 2026-07-28, whichever the client opens with). Logs go to stderr.
 *
 * Run from a client, e.g. the MCP Inspector CLI:
 * `npx @modelcontextprotocol/inspector-cli npx tsx packages/tool-mcp-server/examples/stdio-server.ts --method tools/list`.
 */
import { Context } from 'cordis'
import { ToolRegistry, defineRawTool } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'
import { createMcpToolServer } from '@deepseek-ai/dsh-tool-mcp-server'

const ctx = new Context()
await ctx.plugin(ToolRegistry)
await ctx.plugin(NativeExecutor, {})
ctx.tools.register(
  defineRawTool({
    name: 'add',
    description: 'Adds two numbers',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'], additionalProperties: false },
    outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
    execute: (args) => ({ sum: Number(args.a) + Number(args.b) }),
    render: (args, value) => [{ type: 'text', text: `${String(args.a)} + ${String(args.b)} = ${String((value as { sum: number }).sum)}` }],
  }),
)
const server = createMcpToolServer(ctx, { name: 'stdio-example', version: '1.0.0' })
const stdio = server.serveStdio()
process.stdin.once('end', () => void stdio.close().then(() => process.exit(0)))
