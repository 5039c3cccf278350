/**
 * The reference server `@modelcontextprotocol/server-everything`, started by the test over stdio
 * and over Streamable HTTP on 127.0.0.1: every tool registers and projects, calls run through
 * the full pipeline, progress surfaces, cancellation (abort and a timeoutMs deadline) reaches the
 * server, structured output validates, and disposal leaves no process behind.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { JSONRPCMessage, Tool } from '@modelcontextprotocol/sdk/types.js'
import type { ToolResult } from '@deepseek-ai/dsh-tools'
import { TimeoutPolicy } from '@deepseek-ai/dsh-tool-call-timeout-policy'
import { call, createHarness, type Harness } from '@deepseek-ai/dsh-tool-testkit'
import { createMcpBridge, type McpElicitationApprovalRequest, McpPlugin, type McpProgressEvent, type McpServerConfig } from '@deepseek-ai/dsh-tool-mcp'
import { alive, serverEntry, startEverythingHttp, type HttpServer } from './servers'

const ENTRY = serverEntry('@modelcontextprotocol/server-everything')
const LONG = 'ev__trigger-long-running-operation'

let http: HttpServer
beforeAll(async () => {
  http = await startEverythingHttp()
})
afterAll(async () => {
  await http?.stop()
})

let h: Harness
afterEach(async () => {
  await h?.dispose()
})

type Kind = 'stdio' | 'http'

/** Every JSON-RPC message of the connection, in order. */
class Trace {
  readonly messages: { readonly direction: 'send' | 'receive'; readonly message: JSONRPCMessage }[] = []
  private waiters: { test: (m: JSONRPCMessage) => boolean; resolve: () => void }[] = []
  readonly record = (direction: 'send' | 'receive', message: JSONRPCMessage): void => {
    this.messages.push({ direction, message })
    if (direction === 'receive') this.waiters = this.waiters.filter((w) => (w.test(message) ? (w.resolve(), false) : true))
  }
  /** Resolves when a received message satisfies `test`. */
  received(test: (m: JSONRPCMessage) => boolean): Promise<void> {
    if (this.messages.some((m) => m.direction === 'receive' && test(m.message))) return Promise.resolve()
    return new Promise((resolve) => this.waiters.push({ test, resolve }))
  }
  /** The id of the sent `tools/call` request for `tool`. */
  callId(tool: string): string | number {
    const sent = this.messages.find((m) => m.direction === 'send' && 'method' in m.message && m.message.method === 'tools/call' && (m.message.params as { name?: string }).name === tool)
    return (sent!.message as { id: string | number }).id
  }
  cancellations(): unknown[] {
    return this.messages.filter((m) => m.direction === 'send' && 'method' in m.message && m.message.method === 'notifications/cancelled').map((m) => (m.message as { params: unknown }).params)
  }
  responsesTo(id: string | number): number {
    return this.messages.filter((m) => m.direction === 'receive' && 'id' in m.message && !('method' in m.message) && m.message.id === id).length
  }
}

function server(kind: Kind, trace?: Trace, extra: Partial<McpServerConfig> = {}): McpServerConfig {
  const common = { name: 'ev', ...(trace === undefined ? {} : { trace: trace.record }), ...extra }
  return kind === 'stdio' ? ({ ...common, command: process.execPath, args: [ENTRY, 'stdio'] } as McpServerConfig) : ({ ...common, transport: 'http', url: http.url } as McpServerConfig)
}

/** The tools a bare SDK client sees on the same server and transport. */
async function bareList(kind: Kind): Promise<Tool[]> {
  // The bridge declares form elicitation (its server requests go to the approval service); the bare client does too, so both see the same tools.
  const client = new Client({ name: 'bare', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } })
  await client.connect(kind === 'stdio' ? new StdioClientTransport({ command: process.execPath, args: [ENTRY, 'stdio'], stderr: 'ignore' }) : new StreamableHTTPClientTransport(new URL(http.url)))
  try {
    await client.ping()
    return (await client.listTools()).tools
  } finally {
    await client.close()
  }
}

function outcome(r: ToolResult | undefined): string {
  if (r === undefined) return 'missing'
  return r.isError ? `${r.error.info?.code}: ${r.error.message}` : `ok: ${JSON.stringify(r.value)}`
}

/**
 * The server saw the cancellation: its operation ran to the end (its last progress notification
 * arrived) and it sent no response for the request, while a later call on the same connection
 * was answered.
 */
async function expectServerDropped(trace: Trace, id: string | number, steps: number): Promise<void> {
  expect(trace.cancellations()).toEqual([{ requestId: id, reason: expect.any(String) }])
  await trace.received((m) => 'method' in m && m.method === 'notifications/progress' && (m.params as { progressToken?: unknown; progress?: unknown }).progressToken === id && (m.params as { progress: number }).progress === steps)
  expect(outcome((await h.execute([call('ev__echo', { message: 'after' })]))[0])).toBe('ok: "Echo: after"')
  expect(trace.responsesTo(id)).toBe(0)
}

describe.each(['stdio', 'http'] as const)('server-everything over %s', (kind) => {
  test('every listed tool registers with its schema and description and projects through the executor', async () => {
    const expected = await bareList(kind)
    h = await createHarness()
    const bridge = await createMcpBridge(h.ctx, { servers: [server(kind)] })
    expect(bridge.server('ev')).toMatchObject({ state: 'ready', transport: kind, skipped: [], serverInfo: { name: 'mcp-servers/everything' } })
    expect(expected.length).toBeGreaterThanOrEqual(12)
    const schemas = h.ctx.tools.schemas()
    expect(schemas.map((s) => s.name).sort()).toEqual(expected.map((t) => `ev__${t.name}`).sort())
    for (const tool of expected) {
      expect(schemas.find((s) => s.name === `ev__${tool.name}`)).toEqual({ name: `ev__${tool.name}`, description: tool.description ?? '', parameters: tool.inputSchema })
    }
    expect(h.ctx.tools.describe().tools.map((t) => t.name)).toEqual(schemas.map((s) => s.name))
  })

  test('an elicitation during a call goes to the approval service with the call and the form; its answer (defaults filled in) reaches the server', async () => {
    h = await createHarness()
    const asked: { callId: string; server: string; message: string; fields: string[]; reason?: string }[] = []
    let answer: { type: 'approve'; content?: Record<string, unknown> } | { type: 'reject' } = { type: 'approve', content: { name: 'Ada', check: true } }
    h.ctx.tools.approval({
      async request(request) {
        const e = (request as McpElicitationApprovalRequest).mcpElicitation
        asked.push({ callId: request.exec.callId, server: e.server, message: e.message, fields: Object.keys((e.requestedSchema as { properties: object }).properties).slice(0, 3), ...(request.reason === undefined ? {} : { reason: request.reason }) })
        return answer
      },
    })
    await createMcpBridge(h.ctx, { servers: [server(kind)] })
    const [accepted] = await h.execute([call('ev__trigger-elicitation-request', {}, 'e1')])
    expect(asked).toEqual([{ callId: 'e1', server: 'ev', message: 'Please provide inputs for the following fields:', fields: ['name', 'check', 'firstLine'], reason: 'MCP server "ev" asks: Please provide inputs for the following fields:' }])
    const text = accepted!.isError ? '' : String(accepted!.value)
    expect(text).toContain('✅ User provided the requested information!')
    // The schema's defaults the answer left out were filled in by the client (SEP-1034).
    expect(text).toContain('- Name: Ada\n- Agreed to terms: true')
    expect(text).toContain('- Favorite Integer: 42\n- Favorite Number: 3.14')
    answer = { type: 'reject' }
    const [declined] = await h.execute([call('ev__trigger-elicitation-request', {}, 'e2')])
    expect(String(declined!.isError ? '' : declined!.value)).toContain('❌ User declined to provide the requested information.')
  })

  test('echo and add run through the full pipeline, logged in model order', async () => {
    h = await createHarness()
    await createMcpBridge(h.ctx, { servers: [server(kind)] })
    const { agent, log } = h.agentWithLog('a')
    const results = await h.execute([call('ev__echo', { message: 'hello' }, 'c1'), call('ev__get-sum', { a: 2, b: 3 }, 'c2'), call('ev__get-sum', { a: 'two', b: 3 }, 'c3')], { agent })
    expect(results.map(outcome)).toEqual(['ok: "Echo: hello"', 'ok: "The sum of 2 and 3 is 5."', expect.stringMatching(/^INVALID_ARGS: .*\/a/)])
    expect(results[1]!.content).toEqual([{ type: 'text', text: 'The sum of 2 and 3 is 5.' }])
    // Calls are logged as the batch starts, results in model order.
    expect(log.trace()).toEqual(['tool/call:c1', 'tool/call:c2', 'tool/call:c3', 'tool/result:c1', 'tool/result:c2', 'tool/result:c3'])
  })

  test('the long-running tool reports progress, then finishes', async () => {
    h = await createHarness()
    const events: McpProgressEvent[] = []
    h.ctx.on('mcp/progress', (e) => void events.push(e))
    await createMcpBridge(h.ctx, { servers: [server(kind)] })
    const [r] = await h.execute([call(LONG, { duration: 0.3, steps: 3 }, 'lr')])
    expect(outcome(r)).toBe('ok: "Long running operation completed. Duration: 0.3 seconds, Steps: 3."')
    // The SDK (1.32.2) handles a notification one microtask after reading it, but a response
    // in the same read removes the call's progress handler at once: the server's last progress
    // (sent right before its result) is dropped when both arrive together, as on a loaded
    // machine. Every progress the SDK delivers is forwarded, in order.
    const expected = [1, 2, 3].map((progress) => ({ server: 'ev', tool: LONG, callId: 'lr', progress, total: 3 }))
    expect(events.length === 2 || events.length === 3).toBe(true)
    expect(events).toEqual(expected.slice(0, events.length))
  })

  test('an abort cancels the call at once and the server drops the request', async () => {
    h = await createHarness()
    const trace = new Trace()
    await createMcpBridge(h.ctx, { servers: [server(kind, trace)] })
    const controller = new AbortController()
    h.ctx.on('mcp/progress', () => controller.abort())
    const [r] = await h.execute([call(LONG, { duration: 0.8, steps: 4 })], { signal: controller.signal })
    expect(outcome(r)).toBe('ABORTED: Tool call was cancelled')
    // The bridge's own request id (direct path), also the progress token the server reported with.
    expect(trace.callId('trigger-long-running-operation')).toBe('dsh-0')
    await expectServerDropped(trace, trace.callId('trigger-long-running-operation'), 4)
  })

  test('a timeoutMs deadline from the timeout policy cancels the call on the server with TOOL_TIMEOUT', async () => {
    h = await createHarness({ plugins: [{ plugin: TimeoutPolicy, config: {} }] })
    const trace = new Trace()
    // No progress listener here: `progress: 'always'` still asks for it, so the trace shows the operation running on.
    await createMcpBridge(h.ctx, { servers: [server(kind, trace, { toolTimeoutsMs: { 'trigger-long-running-operation': 150 }, progress: 'always' })] })
    expect(h.ctx.tools.get(LONG)?.timeoutMs).toBe(150)
    const [r] = await h.execute([call(LONG, { duration: 0.8, steps: 4 })])
    expect(outcome(r)).toBe('TOOL_TIMEOUT: tool call timed out after 150ms')
    await expectServerDropped(trace, trace.callId('trigger-long-running-operation'), 4)
  })

  test('structured output: the value is structuredContent, validated against the announced outputSchema', async () => {
    h = await createHarness()
    await createMcpBridge(h.ctx, { servers: [server(kind)] })
    const definition = h.ctx.tools.get('ev__get-structured-content')!
    expect(definition.output.schema).toMatchObject({ type: 'object', required: ['temperature', 'conditions', 'humidity'] })
    const [r] = await h.execute([call('ev__get-structured-content', { location: 'New York' })])
    expect(outcome(r)).toBe('ok: {"temperature":33,"conditions":"Cloudy","humidity":82}')
  })
})

test('disposing the plugin ends the stdio child: no process is left', async () => {
  h = await createHarness()
  const pids: number[] = []
  const fiber = h.ctx.plugin(McpPlugin, { servers: [server('stdio')], onStatus: (s) => s.pid !== undefined && pids.push(s.pid) })
  await fiber
  expect(pids.length).toBeGreaterThan(0)
  const pid = pids.at(-1)!
  expect(alive(pid)).toBe(true)
  await fiber.dispose()
  expect(alive(pid)).toBe(false)
  expect(h.ctx.tools.schemas()).toEqual([])
})
