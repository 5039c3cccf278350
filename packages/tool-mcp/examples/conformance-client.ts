/**
 * A conformance client for the official MCP conformance suite (`@modelcontextprotocol/conformance`,
 * client mode), built on the bridge: the suite starts a scenario server and runs this program with
 * its URL as the last argument and the scenario in `MCP_CONFORMANCE_SCENARIO`. It connects through
 * `createMcpBridge` (Streamable HTTP), lists and registers the tools, calls them through
 * `ctx.tools.execute` (native executor), prints each result, and exits 1 when the server did not
 * become ready or a call failed.
 */
import { Context } from 'cordis'
import { ToolRegistry, type JsonObject } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'
import { createMcpBridge } from '@deepseek-ai/dsh-tool-mcp'

/** Arguments for the tools the client scenarios serve (by server tool name). */
const ARGUMENTS: Readonly<Record<string, JsonObject>> = { add_numbers: { a: 2, b: 3 } }

const url = process.argv.at(-1)
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? 'initialize'
if (url === undefined || !/^https?:\/\//.test(url)) {
  console.error('usage: conformance-client <server-url>')
  process.exit(2)
}

const ctx = new Context()
await ctx.plugin(ToolRegistry)
await ctx.plugin(NativeExecutor, {})
const bridge = await createMcpBridge(ctx, { servers: [{ name: 'scenario', transport: 'http', url }] })
const status = bridge.server('scenario')!
console.log(`scenario ${scenario}: server ${status.state}, tools ${status.tools.join(', ') || '(none)'}`)
let failed = status.state !== 'ready'
if (scenario !== 'initialize' && !failed) {
  const calls = status.tools.map((name, i) => ({ callId: `call_${i + 1}`, name, arguments: ARGUMENTS[name.slice('scenario__'.length)] ?? {} }))
  const results = await ctx.tools.execute({ calls })
  for (const [i, result] of results.entries()) {
    const text = result.content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join(' ')
    console.log(`${calls[i]!.name}: ${result.isError ? `error ${result.error.info.code}` : 'ok'} ${text}`)
    if (result.isError) failed = true
  }
}
await bridge.close()
process.exit(failed ? 1 : 0)
