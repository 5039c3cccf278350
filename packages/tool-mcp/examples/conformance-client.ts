/**
 * A conformance client for the official MCP conformance suite (`@modelcontextprotocol/conformance`,
 * client mode), built on the bridge: the suite starts a scenario server and runs this program with
 * its URL as the last argument, the scenario in `MCP_CONFORMANCE_SCENARIO`, scenario data in
 * `MCP_CONFORMANCE_CONTEXT` (JSON) and the revision under test in
 * `MCP_CONFORMANCE_PROTOCOL_VERSION`. It connects through `createMcpBridge` (Streamable HTTP,
 * `protocol: 'auto'`), lists and registers the tools, calls them through `ctx.tools.execute`
 * (native executor) and prints each result; it exits 1 when the server did not become ready.
 *
 * - Server requests (elicitation, `input_required`) go to an approval service that accepts with
 *   `{ confirmed: true }` for the request-state scenario and `{}` otherwise (the client fills in
 *   the schema's defaults).
 * - Authorization scenarios (`auth/*`): `servers[].auth` with a headless consent handler — it
 *   requests the authorization URL and reads `code` and `iss` from the redirect, as a browser
 *   would deliver them to the redirect URI — a client ID metadata document URL, and the
 *   pre-registered client from the context when the scenario gives one.
 * - The header and request-state scenarios' mock servers answer neither `server/discover` nor a
 *   2026-07-28 `initialize`; as in the SDK's own conformance client, this program answers the
 *   connect-time `server/discover` locally (a custom transport with a `fetch` shim) and lets every
 *   other request reach the mock.
 */
import { Context } from 'cordis'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { ToolRegistry, type JsonObject } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'
import { createMcpBridge, type McpElicitationApprovalRequest, type McpOAuthConfig, type McpServerConfig } from '@deepseek-ai/dsh-tool-mcp'

const url = process.argv.at(-1)
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? 'initialize'
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as { toolCalls?: { name: string; arguments: JsonObject }[]; client_id?: string; client_secret?: string }
if (url === undefined || !/^https?:\/\//.test(url)) {
  console.error('usage: conformance-client <server-url>')
  process.exit(2)
}

/** Arguments for the tools the client scenarios serve (by server tool name). */
const ARGUMENTS: Readonly<Record<string, JsonObject>> = { add_numbers: { a: 2, b: 3 } }
/** Scenarios whose mock answers neither `server/discover` nor a 2026-07-28 `initialize`. */
const NO_DISCOVER = new Set(['http-standard-headers', 'http-custom-headers', 'http-invalid-tool-headers', 'sep-2322-client-request-state'])
/** Scenarios that only list (their mock serves no `tools/call`). */
const LIST_ONLY = new Set(['initialize', 'json-schema-ref-no-deref', 'request-metadata'])

/** Headless consent: the authorization server redirects at once; read `code` and `iss` off the redirect. */
async function consent(authorizationUrl: URL): Promise<{ code: string; iss?: string }> {
  const response = await fetch(authorizationUrl, { redirect: 'manual' })
  const location = response.headers.get('location')
  if (location === null) throw new Error(`no redirect from the authorization endpoint (HTTP ${response.status})`)
  const redirect = new URL(location)
  const code = redirect.searchParams.get('code')
  if (code === null) throw new Error(`the redirect carries no code (error: ${redirect.searchParams.get('error') ?? 'none'})`)
  const iss = redirect.searchParams.get('iss')
  return iss === null ? { code } : { code, iss }
}

/** A `fetch` that answers `server/discover` for a 2026-07-28 mock without it (see the module comment). */
const discoverShim: typeof fetch = async (input, init) => {
  if (typeof init?.body === 'string' && init.body.includes('"server/discover"')) {
    const message = JSON.parse(init.body) as { id?: unknown }
    const result = { supportedVersions: ['2026-07-28'], capabilities: { tools: { listChanged: false }, resources: {}, prompts: {} }, _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'conformance-mock', version: '1.0.0' } } }
    return Response.json({ jsonrpc: '2.0', id: message.id, result })
  }
  return fetch(input, init)
}

function serverConfig(endpoint: string): McpServerConfig {
  // validateArguments: false — the header scenarios send arguments their schemas refuse (a null for a boolean), to see what the client mirrors.
  if (NO_DISCOVER.has(scenario)) return { name: 'scenario', transport: 'custom', validateArguments: false, create: () => new StreamableHTTPClientTransport(new URL(endpoint), { fetch: discoverShim }) }
  if (!scenario.startsWith('auth/')) return { name: 'scenario', transport: 'http', url: endpoint }
  const auth: McpOAuthConfig = {
    authorize: consent,
    redirectUrl: 'http://localhost:3000/callback',
    clientMetadataUrl: 'https://conformance-test.local/client-metadata.json',
    ...(context.client_id === undefined ? {} : { clientId: context.client_id }),
    ...(context.client_secret === undefined ? {} : { clientSecret: context.client_secret }),
  }
  return { name: 'scenario', transport: 'http', url: endpoint, auth }
}

const ctx = new Context()
await ctx.plugin(ToolRegistry)
await ctx.plugin(NativeExecutor, {})
ctx.tools.approval({
  async request(request) {
    const asked = (request as McpElicitationApprovalRequest).mcpElicitation
    if (asked === undefined) return { type: 'approve' }
    return { type: 'approve', content: scenario === 'sep-2322-client-request-state' ? { confirmed: true } : {} } as { type: 'approve' }
  },
})
const bridge = await createMcpBridge(ctx, { servers: [serverConfig(url)], clientInfo: { name: 'dsh-conformance-client', version: '1.0.0' } })
const status = bridge.server('scenario')!
console.log(`scenario ${scenario}: server ${status.state} (${status.protocolVersion ?? 'no protocol'}), tools ${status.tools.join(', ') || '(none)'}${status.lastError === undefined ? '' : `; ${status.lastError}`}`)
let failed = status.state !== 'ready'
if (!failed && !LIST_ONLY.has(scenario)) {
  const prefix = 'scenario__'
  const wanted = context.toolCalls ?? status.tools.map((name) => ({ name: name.slice(prefix.length), arguments: ARGUMENTS[name.slice(prefix.length)] ?? {} }))
  const calls = wanted.filter((c) => status.tools.includes(prefix + c.name)).map((c, i) => ({ callId: `call_${i + 1}`, name: prefix + c.name, arguments: c.arguments }))
  // One call after another: the request-state scenario checks that an unrelated call carries no state of another.
  for (const call of calls) {
    const [result] = await ctx.tools.execute({ calls: [call] })
    const text = result!.content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join(' ')
    console.log(`${call.name}: ${result!.isError ? `error ${result!.error.info.code}` : 'ok'} ${text}`)
  }
}
await bridge.close()
process.exit(failed ? 1 : 0)
