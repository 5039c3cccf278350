/**
 * The serving step of the demo: the deployment's own workspace tools served as an MCP server
 * (`@deepseek-ai/dsh-tool-mcp-server`, Streamable HTTP on 127.0.0.1) and called by a second
 * deployment through the bridge — a read, a write the serving side's read-only policy denies,
 * and a bad argument its validation refuses — each answered by the serving pipeline.
 */
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'
import { createMcpBridge } from '@deepseek-ai/dsh-tool-mcp'
import { createMcpToolServer } from '@deepseek-ai/dsh-tool-mcp-server'
import { ToolRegistry } from '@deepseek-ai/dsh-tools'
import { Context } from 'cordis'
import { bootDeployment } from './deployment'
import { paragraph, preview, stepHeader } from './format'

/** Serves the workspace tools over MCP and calls three of them through the bridge; returns each call's id and failure code. */
export async function runMcpServe(root: string): Promise<readonly { callId: string; code: string | undefined }[]> {
  const serving = await bootDeployment(root, (ctx) => ctx.plugin(NativeExecutor, {}))
  const server = createMcpToolServer(serving.ctx, { name: 'demo-workspace', version: '1.0.0' })
  const http = await server.listen()
  const client = new Context()
  await client.plugin(ToolRegistry)
  await client.plugin(NativeExecutor, {})
  const bridge = await createMcpBridge(client, { servers: [{ name: 'ws', transport: 'http', url: http.url, validateArguments: false }] })
  try {
    console.log()
    for (const line of stepHeader('MCP', 'The same tools served as an MCP server, called through the bridge', [`served at ${http.url}; ${bridge.server('ws')?.tools.length ?? 0} tools listed`])) console.log(line)
    const results = await client.tools.execute({
      calls: [
        { callId: 'serve_1', name: 'ws__read_text_file', arguments: '{"path":"docs/policies.md","head":2}' },
        { callId: 'serve_2', name: 'ws__write_file', arguments: '{"path":"docs/x.md","content":"x"}' },
        { callId: 'serve_3', name: 'ws__read_text_file', arguments: '{"head":2}' },
      ],
    })
    for (const r of results) {
      for (const line of paragraph(`${r.callId} ${r.isError ? `failed (${r.error.info.code})` : 'ok'}`, 2)) console.log(line)
      const text = r.content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n')
      for (const line of preview(text, 3, '  ')) console.log(line)
    }
    return results.map((r) => ({ callId: r.callId, code: r.isError ? r.error.info.code : undefined }))
  } finally {
    await bridge.close()
    await server.close()
  }
}
