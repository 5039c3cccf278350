/**
 * Real clients against a served scope over Streamable HTTP: this repository's bridge
 * (`@deepseek-ai/dsh-tool-mcp`, SDK 1.x client, 2025-11-25) for a denial, a timeout, a
 * cancellation, progress and an approval the client cannot answer; the SDK 1.x client and the
 * SDK 2.x client (pinned to 2026-07-28) answering an approval through elicitation.
 */
import { Context } from 'cordis'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { defineRawTool, ToolRegistry, type ToolResult } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'
import { TimeoutPolicy } from '@deepseek-ai/dsh-tool-call-timeout-policy'
import { createMcpBridge, type McpBridge, type McpProgressEvent } from '@deepseek-ai/dsh-tool-mcp'
import { Client as Client1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as Transport1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { Client as Client2, StreamableHTTPClientTransport as Transport2 } from '@modelcontextprotocol/client'
import { createMcpToolServer, type McpHttpListener } from '../src'

const served = new Context()
const client = new Context()
let listener: McpHttpListener
let bridge: McpBridge
const progress: McpProgressEvent[] = []
const serverResults: { name: string; code: string | undefined }[] = []
let waitStarted: () => void = () => {}

const wait = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms)
    signal.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason)), { once: true })
  })

beforeAll(async () => {
  await served.plugin(ToolRegistry, { progressIntervalMs: 0 })
  await served.plugin(NativeExecutor, {})
  await served.plugin(TimeoutPolicy, {})
  const obj = { type: 'object', properties: {}, additionalProperties: false } as const
  served.tools.register(
    defineRawTool({
      name: 'count',
      description: 'Counts to 3, reporting progress',
      inputSchema: obj,
      execute: async (_a, exec) => {
        for (let i = 1; i <= 3; i++) {
          exec.reportProgress({ progress: i, total: 3, message: `step ${i}` })
          await wait(5, exec.signal)
        }
        return 'counted to 3'
      },
    }),
  )
  served.tools.register(
    defineRawTool({
      name: 'stages',
      description: 'Yields preliminary results between progress reports',
      inputSchema: obj,
      async *execute(_a, exec) {
        exec.reportProgress({ progress: 0.5, total: 3, message: 'warming up' })
        yield 'fetched'
        yield { rows: 2 }
        exec.reportProgress({ progress: 2.5, total: 3 })
        await wait(5, exec.signal)
        return 'staged'
      },
    }),
  )
  served.tools.register(defineRawTool({ name: 'slow', description: 'Takes 10 s; its deadline is 100 ms', inputSchema: obj, timeoutMs: 100, execute: async (_a, exec) => (await wait(10_000, exec.signal), 'done') }))
  served.tools.register(
    defineRawTool({
      name: 'hang',
      description: 'Waits until cancelled',
      inputSchema: obj,
      execute: async (_a, exec) => {
        waitStarted()
        await wait(60_000, exec.signal)
        return 'finished'
      },
    }),
  )
  served.tools.register(defineRawTool({ name: 'remove', description: 'Removes a file (asks first)', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }, execute: (a) => `removed ${String(a.path)}` }))
  served.tools.register(defineRawTool({ name: 'format_disk', description: 'Never allowed', inputSchema: obj, execute: () => 'formatted' }))
  served.on('tools/pre-execute', (exec, next) => {
    if (exec.name === 'format_disk') return { type: 'deny', reason: 'Formatting disks is not allowed here' }
    if (exec.name === 'remove') return { type: 'ask', reason: 'It deletes a file.' }
    return next()
  })
  served.on('tools/result', (r, event) => void serverResults.push({ name: event.call.name, code: r.isError ? r.error.info.code : undefined }))
  listener = await createMcpToolServer(served, { name: 'served' }).listen()

  await client.plugin(ToolRegistry)
  await client.plugin(NativeExecutor, {})
  bridge = await createMcpBridge(client, { servers: [{ name: 'srv', transport: 'http', url: listener.url }] }, { onProgress: (e) => void progress.push(e) })
})

afterAll(async () => {
  await bridge?.close()
  await listener?.close()
})

const call = async (name: string, args: object = {}, signal?: AbortSignal): Promise<ToolResult> =>
  (await client.tools.execute({ calls: [{ callId: 'c1', name, arguments: JSON.stringify(args) }], ...(signal === undefined ? {} : { signal }) }))[0]!

const failure = (r: ToolResult) => (r.isError ? { code: r.error.info.code, message: r.error.message } : { value: r.value })

describe('the bridge (SDK 1.x client, 2025-11-25) against the server', () => {
  test('lists the served tools in registration order', () => {
    expect(bridge.server('srv')?.state).toBe('ready')
    expect(bridge.server('srv')?.tools).toEqual(['srv__count', 'srv__stages', 'srv__slow', 'srv__hang', 'srv__remove', 'srv__format_disk'])
  })

  test('a denial by a server policy is an error result with the policy text', async () => {
    expect(failure(await call('srv__format_disk'))).toEqual({ code: 'MCP_TOOL_ERROR', message: 'Formatting disks is not allowed here' })
  })

  test("a deadline of the server's timeout policy is an error result", async () => {
    expect(failure(await call('srv__slow'))).toEqual({ code: 'MCP_TOOL_ERROR', message: 'tool call timed out after 100ms' })
    expect(serverResults.filter((r) => r.name === 'slow')).toEqual([{ name: 'slow', code: 'TOOL_TIMEOUT' }])
  })

  test('an approval the bridge forwards to an app without an approval service is declined: the denial text', async () => {
    // The bridge declares elicitation and hands the request to the app's ApprovalService; with none, it declines.
    expect(failure(await call('srv__remove', { path: 'a.txt' }))).toEqual({
      code: 'MCP_TOOL_ERROR',
      message: `Tool "remove" was not approved by the MCP client's user`,
    })
  })

  test('progress reported by the body reaches the client, in order', async () => {
    progress.length = 0
    expect(failure(await call('srv__count'))).toEqual({ value: 'counted to 3' })
    expect(progress.map((p) => [p.tool, p.progress, p.total, p.message])).toEqual([
      ['srv__count', 1, 3, 'step 1'],
      ['srv__count', 2, 3, 'step 2'],
      ['srv__count', 3, 3, 'step 3'],
    ])
  })

  test('preliminary results of a generator body reach the client as progress messages, progress always increasing', async () => {
    progress.length = 0
    expect(failure(await call('srv__stages'))).toEqual({ value: 'staged' })
    expect(progress.map((p) => [p.tool, p.progress, p.total, p.message])).toEqual([
      ['srv__stages', 0.5, 3, 'warming up'],
      ['srv__stages', 1, undefined, 'fetched'],
      ['srv__stages', 2, undefined, '{"rows":2}'],
      ['srv__stages', 2.5, 3, undefined],
    ])
  })

  test("cancelling on the client aborts the server-side call's signal", async () => {
    const controller = new AbortController()
    const started = new Promise<void>((resolve) => (waitStarted = resolve))
    const pending = call('srv__hang', {}, controller.signal)
    await started
    controller.abort()
    expect(failure(await pending)).toEqual({ code: 'ABORTED', message: 'Tool call was cancelled' })
    await expect.poll(() => serverResults.filter((r) => r.name === 'hang')).toEqual([{ name: 'hang', code: 'ABORTED' }])
  })
})

describe('clients that answer an approval through elicitation', () => {
  test('a client without the elicitation capability gets the documented denial', async () => {
    const c = new Client1({ name: 'no-elicitation', version: '1.0.0' }, { capabilities: {} })
    await c.connect(new Transport1(new URL(listener.url)))
    try {
      const denied = await c.callTool({ name: 'remove', arguments: { path: 'a.txt' } })
      expect(denied.isError).toBe(true)
      expect(denied.content).toEqual([{ type: 'text', text: 'Error: Tool "remove" needs approval, and the MCP client cannot ask its user (it declared no elicitation capability)' }])
    } finally {
      await c.close()
    }
  })

  test('SDK 1.x client (2025-11-25): accept runs the call, decline denies it', async () => {
    const answers = [true, false]
    const messages: string[] = []
    const c = new Client1({ name: 'approver', version: '1.0.0' }, { capabilities: { elicitation: {} } })
    c.setRequestHandler(ElicitRequestSchema, (request) => {
      messages.push(String(request.params.message))
      return { action: 'accept', content: { approve: answers.shift()! } }
    })
    await c.connect(new Transport1(new URL(listener.url)))
    try {
      expect(await c.callTool({ name: 'remove', arguments: { path: 'a.txt' } })).toEqual({ content: [{ type: 'text', text: 'removed a.txt' }] })
      const denied = await c.callTool({ name: 'remove', arguments: { path: 'b.txt' } })
      expect(denied.isError).toBe(true)
      expect(denied.content).toEqual([{ type: 'text', text: `Error: Tool "remove" was not approved by the MCP client's user` }])
      expect(messages).toEqual(['Allow the tool "remove" to run with {"path":"a.txt"}? It deletes a file.', 'Allow the tool "remove" to run with {"path":"b.txt"}? It deletes a file.'])
    } finally {
      await c.close()
    }
  })

  test('SDK 2.x client pinned to 2026-07-28: the input_required round is answered and the call runs', async () => {
    const messages: string[] = []
    const c = new Client2({ name: 'approver', version: '2.0.0' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } })
    c.setRequestHandler('elicitation/create', (request) => {
      messages.push(String(request.params.message))
      return { action: 'accept', content: { approve: true } }
    })
    await c.connect(new Transport2(new URL(listener.url)))
    try {
      expect(c.getProtocolEra()).toBe('modern')
      const result = await c.callTool({ name: 'remove', arguments: { path: 'c.txt' } })
      expect(result.content).toEqual([{ type: 'text', text: 'removed c.txt' }])
      expect(messages).toEqual(['Allow the tool "remove" to run with {"path":"c.txt"}? It deletes a file.'])
    } finally {
      await c.close()
    }
  })

  test('SDK 2.x client on 2026-07-28: aborting the call closes its stream and aborts the server-side call', async () => {
    const c = new Client2({ name: 'canceller', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    await c.connect(new Transport2(new URL(listener.url)))
    try {
      const before = serverResults.filter((r) => r.name === 'hang').length
      const controller = new AbortController()
      const started = new Promise<void>((resolve) => (waitStarted = resolve))
      const pending = c.callTool({ name: 'hang', arguments: {} }, { signal: controller.signal })
      await started
      controller.abort()
      await expect(pending).rejects.toThrow()
      await expect.poll(() => serverResults.filter((r) => r.name === 'hang').slice(before)).toEqual([{ name: 'hang', code: 'ABORTED' }])
    } finally {
      await c.close()
    }
  })
})
