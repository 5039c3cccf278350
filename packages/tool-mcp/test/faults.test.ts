/**
 * Fault behaviour against an in-process SDK server (raw JSON Schemas, scripted handlers):
 * cancellation reaching the server, isError, a crash mid-call, list_changed between steps,
 * structured output, content mapping, collisions, isolation, backoff and progress.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, test } from 'vitest'
import { defineRawTool, type ToolChange, type ToolResult } from '@deepseek-ai/dsh-tools'
import { abortListenerCount, call, createHarness, type Harness } from '@deepseek-ai/dsh-tool-testkit'
import { childEnvironment, createMcpBridge, MAX_TOOL_LIST_PAGES, mcpToolInfo, McpConfigError, McpPlugin, resolveBridgeConfig, type McpBridge, type McpProgressEvent, type McpServerStatus } from '@deepseek-ai/dsh-tool-mcp'
import { FaultServer, Latch, text, tool, untilAborted, wire } from './fault-server'
import { freePort } from './servers'
import { RetryPolicy } from '@deepseek-ai/dsh-tool-call-retry-policy'
import { toOpenAIChatTools } from '@deepseek-ai/dsh-tool-executor-native'

let h: Harness
afterEach(async () => {
  await h?.dispose()
})

function custom(name: string, server: FaultServer, extra: Record<string, unknown> = {}) {
  return { name, transport: 'custom' as const, create: server.create, ...extra }
}

/** One turn of the event loop. */
function turn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

function outcome(r: ToolResult | undefined): string {
  if (r === undefined) return 'missing'
  return r.isError ? `${r.error.info?.code}: ${r.error.message}` : `ok: ${JSON.stringify(r.value)}`
}

/** Resolves with the first `mcp/status` of `server` that satisfies `test`. */
function statusWhere(h: Harness, server: string, test: (s: McpServerStatus) => boolean): Promise<McpServerStatus> {
  return new Promise((resolve) => {
    const off = h.ctx.on('mcp/status', (s) => {
      if (s.name === server && test(s)) {
        off()
        resolve(s)
      }
    })
  })
}

describe('calls', () => {
  test('cancellation reaches the server, settles at once with ABORTED, and the late work is ignored', async () => {
    h = await createHarness()
    const release = new Latch()
    const started = new Latch()
    const fault = new FaultServer([
      tool('hang', ({ signal }) => (started.open(), untilAborted(signal))),
      tool('stubborn', async () => {
        started.open()
        await release.wait()
        return text('too late')
      }),
      tool('echo', ({ args }) => text(String(args.message))),
    ])
    await createMcpBridge(h.ctx, { servers: [custom('f', fault)] })

    const controller = new AbortController()
    const pending = h.execute([call('f__hang', {}, 'c1')], { signal: controller.signal })
    await started.wait()
    controller.abort()
    const [hung] = await pending
    expect(outcome(hung)).toBe('ABORTED: Tool call was cancelled')
    expect(fault.cancelled).toEqual([{ tool: 'hang', reason: 'AbortError: This operation was aborted' }])

    // A handler that ignores the cancellation: the call settles anyway; its late answer goes nowhere.
    started.reset()
    const second = new AbortController()
    const late = h.execute([call('f__stubborn', {}, 'c2')], { signal: second.signal })
    await started.wait()
    second.abort()
    expect(outcome((await late)[0])).toBe('ABORTED: Tool call was cancelled')
    release.open()
    expect(outcome((await h.execute([call('f__echo', { message: 'next' }, 'c3')]))[0])).toBe('ok: "next"')
    expect(fault.cancelled.map((c) => c.tool)).toEqual(['hang', 'stubborn'])
  })

  test('the retry policy repeats a bridged tool the server annotates readOnlyHint or idempotentHint, and no other', async () => {
    // Every call's first attempt fails; a predicate that takes any failure as transient leaves
    // the tool's annotations as the only thing that decides.
    h = await createHarness({ plugins: [{ plugin: RetryPolicy, config: { initialDelayMs: 1, jitter: 'none', retryable: () => true } }] })
    const attempts = new Map<string, number>()
    const flaky = (name: string) => () => {
      const n = (attempts.get(name) ?? 0) + 1
      attempts.set(name, n)
      return n === 1 ? { isError: true, content: [{ type: 'text' as const, text: 'busy' }] } : text(`${name} ok`)
    }
    const fault = new FaultServer([
      tool('read', flaky('read'), { annotations: { readOnlyHint: true } }),
      tool('put', flaky('put'), { annotations: { idempotentHint: true } }),
      tool('rm', flaky('rm'), { annotations: { destructiveHint: true } }),
    ])
    await createMcpBridge(h.ctx, { servers: [custom('f', fault)] })
    const results = await h.execute([call('f__read', {}), call('f__put', {}), call('f__rm', {})])
    expect(results.map((r) => [outcome(r), r.meta?.annotations?.retry ?? null])).toEqual([
      ['ok: "read ok"', { attempts: 2, delaysMs: [1], errors: ['MCP_TOOL_ERROR'] }],
      ['ok: "put ok"', { attempts: 2, delaysMs: [1], errors: ['MCP_TOOL_ERROR'] }],
      ['MCP_TOOL_ERROR: busy', null],
    ])
  })

  test('isError → an error result with the server text; a protocol error fails that call only', async () => {
    h = await createHarness()
    const fault = new FaultServer([
      tool('fail', () => ({ isError: true, content: [{ type: 'text', text: 'disk full' }, { type: 'text', text: 'try later' }] })),
      tool('silent-fail', () => ({ isError: true, content: [] })),
      tool('broken', () => {
        throw new Error('handler exploded')
      }),
      tool('ok', () => text('fine'), { annotations: { readOnlyHint: true } }),
    ])
    await createMcpBridge(h.ctx, { servers: [custom('f', fault)] })
    const results = await h.execute([call('f__fail', {}), call('f__silent-fail', {}), call('f__broken', {}), call('f__ok', {})])
    expect(results.map(outcome)).toEqual([
      'MCP_TOOL_ERROR: disk full\ntry later',
      'MCP_TOOL_ERROR: MCP tool "silent-fail" on server "f" reported an error without a message',
      // The low-level SDK server answers a throwing handler with a JSON-RPC error: a protocol error.
      'MCP_PROTOCOL_ERROR: MCP server "f" rejected the call to "broken": handler exploded (JSON-RPC error -32603)',
      'ok: "fine"',
    ])
    expect(results[0]!.content).toEqual([{ type: 'text', text: 'Error: disk full\ntry later' }])
    // An argument the server's schema rejects never leaves the host.
    const strict = new FaultServer([tool('typed', () => text('x'), { inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } })])
    await createMcpBridge(h.ctx, { servers: [custom('s', strict)] })
    expect(outcome((await h.execute([call('s__typed', { n: 'one' })]))[0])).toMatch(/^INVALID_ARGS: /)
  })

  test('a malformed result fails that call with MCP_PROTOCOL_ERROR naming the server, the tool and the field; siblings are unaffected', async () => {
    h = await createHarness()
    const fault = new FaultServer([
      tool('not-array', () => wire({ content: 'oops' })),
      tool('bad-text', () => wire({ content: [{ type: 'text', text: 42 }] })),
      tool('bad-image', () => wire({ content: [{ type: 'text', text: 'ok' }, { type: 'image', data: 'not base64!', mimeType: 'image/png' }] })),
      tool('bad-link', () => wire({ content: [{ type: 'resource_link', uri: 'file:///a' }] })),
      tool('bad-resource', () => wire({ content: [{ type: 'resource', resource: { uri: 'mem://x' } }] })),
      tool('bad-flag', () => wire({ content: [], isError: 'yes' })),
      tool('bad-structure', () => wire({ content: [], structuredContent: [1] })),
      tool('bad-block', () => wire({ content: [{ type: 'text', text: 'a', annotations: 'high' }] })),
      tool('no-content', () => wire({})),
      tool('newer-type', () => wire({ content: [{ type: 'video', uri: 'https://example.org/v.mp4' }] })),
      tool('fine', () => text('fine')),
      tool('hidden-type', () => wire({ content: [{ type: 'vid\u200Beo' }] })),
    ])
    const bridge = await createMcpBridge(h.ctx, { servers: [custom('m', fault)] })
    const results = await h.execute(fault.tools.map((t) => call(`m__${t.name}`, {})))
    const malformed = (tool: string, problem: string): string => `MCP_PROTOCOL_ERROR: MCP server "m" sent a malformed result for "${tool}": ${problem}`
    expect(results.map(outcome)).toEqual([
      malformed('not-array', '/content must be an array (got string)'),
      malformed('bad-text', '/content/0/text must be a string (got number)'),
      malformed('bad-image', '/content/1/data must be a base64 string (it has characters outside the base64 alphabet)'),
      malformed('bad-link', '/content/0/name must be a string (got undefined)'),
      malformed('bad-resource', '/content/0/resource must have a "text" string or a base64 "blob"'),
      malformed('bad-flag', '/isError must be a boolean (got string)'),
      malformed('bad-structure', '/structuredContent must be an object (got array)'),
      malformed('bad-block', '/content/0/annotations must be an object (got string)'),
      // No `content` reads as none (the SDK's default); a block type from a newer protocol is named, not dropped.
      'ok: ""',
      'ok: [{"type":"video","uri":"https://example.org/v.mp4"}]',
      'ok: "fine"',
      'ok: [{"type":"vid\u200Beo"}]',
    ])
    expect(results[9]!.content).toEqual([{ type: 'text', text: '[unsupported MCP content type "video"]' }])
    // The server's type name is quoted with invisible characters escaped (quoteText), so the model sees them.
    expect(results[11]!.content).toEqual([{ type: 'text', text: '[unsupported MCP content type "vid\\u200Beo"]' }])
    expect(results[0]!.content).toEqual([{ type: 'text', text: 'Error: MCP server "m" sent a malformed result for "not-array": /content must be an array (got string)' }])
    expect(bridge.server('m')).toMatchObject({ state: 'ready', inFlight: 0 })
  })

  test('one abort listener per caller signal while its calls run, none a turn after; an abort after the calls settled sends no cancellation', async () => {
    h = await createHarness()
    const started = new Latch()
    const listeners: number[] = []
    const controller = new AbortController()
    const fault = new FaultServer([
      tool('echo', ({ args }) => (listeners.push(abortListenerCount(controller.signal)), text(String(args.message))), { annotations: { readOnlyHint: true } }),
      tool('step', ({ args }) => (listeners.push(abortListenerCount(controller.signal)), text(String(args.message)))),
      tool('hang', ({ signal }) => (started.open(), untilAborted(signal))),
    ])
    const bridge = await createMcpBridge(h.ctx, { servers: [custom('f', fault)] })
    // The same batch shape against local tools: the listeners the pipeline itself holds meanwhile.
    const probe = (name: string, parallel: boolean) =>
      defineRawTool({ name, description: name, inputSchema: { type: 'object' }, execute: async () => (await turn(), listeners.push(abortListenerCount(controller.signal)), 'ok'), ...(parallel ? { isConcurrencySafe: () => true } : {}) })
    h.ctx.tools.register(probe('local_parallel', true))
    h.ctx.tools.register(probe('local_step', false))
    await h.execute([call('local_parallel', {}), call('local_parallel', {}), call('local_step', {}), call('local_step', {})], { signal: controller.signal })
    const pipeline = listeners.splice(0)
    const results = await h.execute([call('f__echo', { message: 'a' }), call('f__echo', { message: 'b' }), call('f__step', { message: 'c' }), call('f__step', { message: 'd' })], { signal: controller.signal })
    expect(results.map(outcome)).toEqual(['ok: "a"', 'ok: "b"', 'ok: "c"', 'ok: "d"'])
    // Parallel and sequential calls alike share the connection's one listener on the batch signal.
    expect(listeners).toEqual(pipeline.map((n) => n + 1))
    await turn()
    expect(abortListenerCount(controller.signal)).toBe(0)
    controller.abort()
    await turn()
    expect(fault.cancelled).toEqual([])

    // An aborted call: the server sees exactly one cancellation and the signal is left clean.
    const second = new AbortController()
    const pending = h.execute([call('f__hang', {}), call('f__echo', { message: 'never' })], { signal: second.signal })
    await started.wait()
    second.abort()
    expect((await pending).map(outcome)).toEqual(['ABORTED: Tool call was cancelled', 'ABORTED_BEFORE_DISPATCH: Tool call was cancelled before it started'])
    await turn()
    expect(abortListenerCount(second.signal)).toBe(0)
    expect(fault.cancelled.map((c) => c.tool)).toEqual(['hang'])
    expect(bridge.server('f')!.inFlight).toBe(0)
  })

  test('a server that crashes mid-call fails that call with a clear message; siblings and other servers are unaffected; retry reconnects', async () => {
    h = await createHarness()
    const crashy = new FaultServer([tool('crash', async ({ crash }) => (await crash(), text('never'))), tool('ping', () => text('pong'))])
    const steady = new FaultServer([tool('echo', ({ args }) => text(String(args.message)), { annotations: { readOnlyHint: true } })])
    const bridge = await createMcpBridge(h.ctx, { servers: [custom('crashy', crashy, { retry: { initialDelayMs: 5 } }), custom('steady', steady)] })
    const back = statusWhere(h, 'crashy', (s) => s.state === 'ready')
    const results = await h.execute([call('crashy__crash', {}), call('steady__echo', { message: 'still here' })])
    expect(results.map(outcome)).toEqual(['MCP_CONNECTION_CLOSED: MCP server "crashy" closed the connection during the call to "crash"', 'ok: "still here"'])
    await back
    expect(crashy.connections).toBe(2)
    expect(outcome((await h.execute([call('crashy__ping', {})]))[0])).toBe('ok: "pong"')
    expect(bridge.server('crashy')).toMatchObject({ state: 'ready', attempts: 0, tools: ['crashy__crash', 'crashy__ping'] })
  })

  test('README "Failures": a reconnecting server fails calls fast with MCP_SERVER_UNAVAILABLE; a send that fails is MCP_TRANSPORT_ERROR, on both paths', async () => {
    h = await createHarness()
    const crashy = new FaultServer([tool('crash', async ({ crash }) => (await crash(), text('never'))), tool('ping', () => text('pong'))])
    // A long first wait keeps the server reconnecting while the next call arrives.
    const bridge = await createMcpBridge(h.ctx, { servers: [custom('crashy', crashy, { retry: { initialDelayMs: 60_000 } })] })
    const lost = statusWhere(h, 'crashy', (s) => s.state === 'reconnecting')
    expect(outcome((await h.execute([call('crashy__crash', {})]))[0])).toBe('MCP_CONNECTION_CLOSED: MCP server "crashy" closed the connection during the call to "crash"')
    await lost
    expect(bridge.server('crashy')).toMatchObject({ state: 'reconnecting', lastError: 'closed the connection', tools: ['crashy__crash', 'crashy__ping'] })
    const [unavailable] = await h.execute([call('crashy__ping', {})])
    expect(outcome(unavailable)).toBe('MCP_SERVER_UNAVAILABLE: MCP server "crashy" is not connected (reconnecting): closed the connection')
    expect(unavailable?.content).toEqual([{ type: 'text', text: 'Error: MCP server "crashy" is not connected (reconnecting): closed the connection' }])
    await bridge.close()

    let broken = false
    const steady = new FaultServer([tool('echo', () => text('hi'))])
    const create = async () => {
      const transport = await steady.create()
      const send = transport.send.bind(transport)
      transport.send = (message, options) => {
        if (broken && 'method' in message && message.method === 'tools/call') throw new Error('pipe broke')
        return send(message, options)
      }
      return transport
    }
    await createMcpBridge(h.ctx, { servers: [{ name: 'direct', transport: 'custom', create }, { name: 'sdk', transport: 'custom', create, directCalls: false }] })
    broken = true
    const failed = await h.execute([call('direct__echo', {}), call('sdk__echo', {})])
    expect(failed.map(outcome)).toEqual([
      'MCP_TRANSPORT_ERROR: MCP server "direct": the call to "echo" failed in transport: pipe broke',
      'MCP_TRANSPORT_ERROR: MCP server "sdk": the call to "echo" failed in transport: pipe broke',
    ])
    broken = false
    expect((await h.execute([call('direct__echo', {}), call('sdk__echo', {})])).map(outcome)).toEqual(['ok: "hi"', 'ok: "hi"'])
  })

  test('without retry a lost server is failed and its tools are unregistered', async () => {
    h = await createHarness()
    const crashy = new FaultServer([tool('crash', async ({ crash }) => (await crash(), text('never')))])
    const bridge = await createMcpBridge(h.ctx, { servers: [custom('crashy', crashy)] })
    expect(outcome((await h.execute([call('crashy__crash', {})]))[0])).toBe('MCP_CONNECTION_CLOSED: MCP server "crashy" closed the connection during the call to "crash"')
    expect(bridge.server('crashy')).toMatchObject({ state: 'failed', tools: [], lastError: 'closed the connection' })
    expect(outcome((await h.execute([call('crashy__crash', {})]))[0])).toMatch(/^UNKNOWN_TOOL: Unknown tool "crashy__crash"/)
    await bridge.reconnect('crashy')
    expect(bridge.server('crashy')).toMatchObject({ state: 'ready', tools: ['crashy__crash'] })
  })

  test('structuredContent is the value and validates against outputSchema', async () => {
    h = await createHarness()
    const outputSchema = { type: 'object' as const, properties: { celsius: { type: 'number' } }, required: ['celsius'], additionalProperties: false }
    const fault = new FaultServer([
      tool('good', () => ({ content: [{ type: 'text', text: '21°C' }], structuredContent: { celsius: 21 } }), { outputSchema }),
      tool('bad', () => ({ content: [], structuredContent: { celsius: 'warm' } }), { outputSchema }),
      tool('none', () => text('no structure'), { outputSchema }),
      tool('bare', () => ({ content: [], structuredContent: { celsius: 3 } }), { outputSchema }),
    ])
    await createMcpBridge(h.ctx, { servers: [custom('w', fault)] })
    const results = await h.execute([call('w__good', {}), call('w__bad', {}), call('w__none', {}), call('w__bare', {})])
    expect(outcome(results[0])).toBe('ok: {"celsius":21}')
    expect(results[0]!.content).toEqual([{ type: 'text', text: '21°C' }])
    expect(outcome(results[1])).toBe('INVALID_TOOL_OUTPUT: Tool "w__bad" returned an invalid value: /celsius: must be number (got string)')
    expect(outcome(results[2])).toBe('INVALID_TOOL_OUTPUT: Tool "w__none" declares an outputSchema but MCP server "w" returned no structuredContent')
    // No content blocks: the model sees the value rendered as JSON.
    expect(results[3]!.content).toEqual([{ type: 'text', text: '{\n  "celsius": 3\n}' }])
    // With the batch's nameMap the bridge's own text names the tool as the model saw it, like the pipeline's.
    const nameMap = { toWire: (name: string) => (name.startsWith('w__') ? `weather-${name.slice(3)}` : undefined) }
    const mapped = await h.execute([call('w__bad', {}), call('w__none', {})], { nameMap })
    expect(mapped.map(outcome)).toEqual([
      'INVALID_TOOL_OUTPUT: Tool "weather-bad" returned an invalid value: /celsius: must be number (got string)',
      'INVALID_TOOL_OUTPUT: Tool "weather-none" declares an outputSchema but MCP server "w" returned no structuredContent',
    ])
    expect(mapped.map((r) => r.meta?.toolName)).toEqual(['w__bad', 'w__none'])
    // A shown name is quoted as the pipeline quotes it (JSON string syntax, invisible characters escaped).
    const odd = { toWire: (name: string) => (name.startsWith('w__') ? `"${name.slice(3)}"\u200b` : undefined) }
    const quoted = await h.execute([call('w__bad', {}), call('w__none', {})], { nameMap: odd })
    expect(quoted.map(outcome)).toEqual([
      'INVALID_TOOL_OUTPUT: Tool "\\"bad\\"\\u200B" returned an invalid value: /celsius: must be number (got string)',
      'INVALID_TOOL_OUTPUT: Tool "\\"none\\"\\u200B" declares an outputSchema but MCP server "w" returned no structuredContent',
    ])
  })

  test('a tool without outputSchema that answers content: [] and structuredContent: the data is the value, shown as JSON text', async () => {
    h = await createHarness()
    const fault = new FaultServer([
      tool('only-data', () => ({ content: [], structuredContent: { city: 'Oslo', celsius: -3 } })),
      // Content present: the content stays what the model sees and the value (the server chose to show that).
      tool('both', () => ({ content: [{ type: 'text', text: 'cold' }], structuredContent: { celsius: -3 } })),
      tool('nothing', () => ({ content: [] })),
    ])
    await createMcpBridge(h.ctx, { servers: [custom('w', fault)] })
    const results = await h.execute([call('w__only-data', {}), call('w__both', {}), call('w__nothing', {})])
    expect(results.map(outcome)).toEqual(['ok: {"city":"Oslo","celsius":-3}', 'ok: "cold"', 'ok: ""'])
    expect(results[0]!.content).toEqual([{ type: 'text', text: '{\n  "city": "Oslo",\n  "celsius": -3\n}' }])
    expect(results[1]!.content).toEqual([{ type: 'text', text: 'cold' }])
  })

  test('every content type reaches the model; none is dropped', async () => {
    h = await createHarness()
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='
    const fault = new FaultServer([
      tool('mixed', () => ({
        content: [
          { type: 'text', text: 'intro' },
          { type: 'image', data: png, mimeType: 'image/png' },
          { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
          { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt', mimeType: 'text/plain', description: 'the a file' },
          { type: 'resource', resource: { uri: 'mem://note', mimeType: 'text/markdown', text: '# Note' } },
          { type: 'resource', resource: { uri: 'mem://pic', mimeType: 'image/png', blob: png } },
          { type: 'resource', resource: { uri: 'mem://bin', mimeType: 'application/zip', blob: 'AAAAAA==' } },
        ],
      })),
    ])
    await createMcpBridge(h.ctx, { servers: [custom('c', fault)] })
    const [r] = await h.execute([call('c__mixed', {})])
    expect(r!.content).toEqual([
      { type: 'text', text: 'intro' },
      { type: 'image', data: png, mimeType: 'image/png' },
      { type: 'text', text: '[audio audio/wav, 3 bytes: not shown, this interface passes no audio to the model]' },
      { type: 'text', text: '[resource link] a.txt <file:///a.txt> (text/plain): the a file' },
      { type: 'text', text: '[resource <mem://note> (text/markdown)]\n# Note' },
      { type: 'image', data: png, mimeType: 'image/png' },
      { type: 'text', text: '[resource <mem://bin> (application/zip), 4 bytes: binary content not shown]' },
    ])
    // Mixed content: a program gets the MCP blocks whole.
    expect(Array.isArray(r!.isError ? undefined : r!.value)).toBe(true)
    expect((r as unknown as { value: { type: string }[] }).value.map((b) => b.type)).toEqual(['text', 'image', 'audio', 'resource_link', 'resource', 'resource', 'resource'])
  })

  test('progress notifications surface as tools/progress (the pipeline API), mcp/progress events and onProgress, in order', async () => {
    h = await createHarness({ registry: { progressIntervalMs: 0 } })
    const fault = new FaultServer([
      tool('work', async ({ progress }) => {
        await progress(1, 3, 'reading')
        await progress(2, 3)
        await progress(3)
        return text('done')
      }),
    ])
    const events: McpProgressEvent[] = []
    const callbacks: McpProgressEvent[] = []
    const pipeline: string[] = []
    h.ctx.on('mcp/progress', (e) => void events.push(e))
    h.ctx.on('tools/progress', (e) => void pipeline.push(`${e.callId} ${e.tool} #${e.sequence} ${e.progress}/${e.total ?? '?'} ${e.message ?? ''}`.trimEnd()))
    h.ctx.on('tools/result', (r) => void pipeline.push(`result ${r.callId}`))
    await createMcpBridge(h.ctx, { servers: [custom('p', fault)] }, { onProgress: (e) => void callbacks.push(e) })
    expect(outcome((await h.execute([call('p__work', {}, 'c9')]))[0])).toBe('ok: "done"')
    expect(events).toEqual([
      { server: 'p', tool: 'p__work', callId: 'c9', progress: 1, total: 3, message: 'reading' },
      { server: 'p', tool: 'p__work', callId: 'c9', progress: 2, total: 3 },
      { server: 'p', tool: 'p__work', callId: 'c9', progress: 3 },
    ])
    expect(callbacks).toEqual(events)
    expect(pipeline).toEqual(['c9 p__work #1 1/3 reading', 'c9 p__work #2 2/3', 'c9 p__work #3 3/?', 'result c9'])
  })

  test('progress is asked for when it has somewhere to go, or always with progress: "always"', async () => {
    h = await createHarness()
    const tokens: string[] = []
    const seen = (name: string) => tool(name, ({ progressToken }) => (tokens.push(`${name}:${progressToken === undefined ? 'none' : 'token'}`), text('ok')))
    const fault = new FaultServer([seen('t')])
    await createMcpBridge(h.ctx, { servers: [custom('o', fault), custom('a', new FaultServer([seen('u')]), { progress: 'always' })] })
    const step = async (): Promise<void> => {
      expect((await h.execute([call('o__t', {}), call('a__u', {})])).map(outcome)).toEqual(['ok: "ok"', 'ok: "ok"'])
    }
    await step()
    const off = h.ctx.on('tools/progress', () => undefined)
    await step()
    off()
    await step()
    const offMcp = h.ctx.on('mcp/progress', () => undefined)
    await step()
    offMcp()
    expect(tokens).toEqual(['t:none', 'u:token', 't:token', 'u:token', 't:none', 'u:token', 't:token', 'u:token'])

    // An onProgress callback observes every call of its bridge.
    tokens.length = 0
    await createMcpBridge(h.ctx, { servers: [custom('c', new FaultServer([seen('v')]))] }, { onProgress: () => undefined })
    expect(outcome((await h.execute([call('c__v', {})]))[0])).toBe('ok: "ok"')
    expect(tokens).toEqual(['v:token'])
    await expect(createMcpBridge(h.ctx, { servers: [custom('x', fault, { progress: 'sometimes' })] })).rejects.toThrow('dsh-tool-mcp config: /servers/0/progress must be "observed" or "always", got "sometimes"')
    // A misspelt field is an error naming the closest one, not a silently ignored option.
    await expect(createMcpBridge(h.ctx, { servers: [custom('x', fault, { progres: 'always' })] })).rejects.toThrow('dsh-tool-mcp config: /servers/0/progres must be a field of a custom server config (did you mean "progress"?), got "always"')
    await expect(createMcpBridge(h.ctx, { servers: [], separater: '-' } as never)).rejects.toThrow('dsh-tool-mcp config: /separater must be a field of the bridge config (did you mean "separator"?), got "-"')
    await expect(createMcpBridge(h.ctx, { severs: [] } as never)).rejects.toThrow('dsh-tool-mcp config: /severs must be a field of the bridge config (did you mean "servers"?), got []')
    await expect(createMcpBridge(h.ctx, { servers: [custom('x', fault, { retry: { attempts: 3 } })] })).rejects.toThrow('dsh-tool-mcp config: /servers/0/retry/attempts must be a field of a retry config (did you mean "maxAttempts"?), got 3')
  })
})

describe('config errors (README "Servers")', () => {
  test('McpConfigError is a RangeError with the pointer; the README texts; a non-object config has no pointer in its text', async () => {
    h = await createHarness()
    const fault = new FaultServer([tool('t', () => text('ok'))])
    const url = createMcpBridge(h.ctx, { servers: [custom('a', fault), { name: 'b', transport: 'http', url: 'ftp://x' }] })
    await expect(url).rejects.toThrow('dsh-tool-mcp config: /servers/1/url must be an http(s) URL, got "ftp://x"')
    await expect(url).rejects.toBeInstanceOf(McpConfigError)
    await expect(url).rejects.toBeInstanceOf(RangeError)
    await expect(url).rejects.toMatchObject({ name: 'McpConfigError', pointer: '/servers/1/url' })
    expect(() => resolveBridgeConfig({ servers: [{ name: 'fs', command: 'npx', progres: 'always' } as never] })).toThrow(
      'dsh-tool-mcp config: /servers/0/progres must be a field of a stdio server config (did you mean "progress"?), got "always"',
    )
    for (const [config, shown] of [[undefined, 'undefined'], [null, 'null'], ['fs', '"fs"']] as const) {
      let thrown: unknown
      try {
        resolveBridgeConfig(config as never)
      } catch (error) {
        thrown = error
      }
      expect(thrown).toBeInstanceOf(RangeError)
      expect(thrown).toMatchObject({ name: 'McpConfigError', pointer: '', message: `dsh-tool-mcp config: must be { servers: [...] }, got ${shown}` })
    }
    await expect(h.ctx.plugin(McpPlugin, 42 as never)).rejects.toThrow(new McpConfigError('', '{ servers: [...] }', 42))
  })

  test('onProgress and onStatus must be functions, in the plugin config and in createMcpBridge options; separate options take only those keys', async () => {
    h = await createHarness()
    const fault = new FaultServer([tool('t', () => text('ok'))])
    await expect(createMcpBridge(h.ctx, { servers: [custom('a', fault)] }, { onStatus: 'log' as never })).rejects.toThrow(
      new McpConfigError('/onStatus', 'a function (status) => void', 'log'),
    )
    await expect(createMcpBridge(h.ctx, { servers: [custom('a', fault)] }, { onStatus: 'log' as never })).rejects.toThrow('dsh-tool-mcp config: /onStatus must be a function (status) => void, got "log"')
    await expect(h.ctx.plugin(McpPlugin, { servers: [custom('a', fault)], onProgress: 5 as never })).rejects.toThrow('dsh-tool-mcp config: /onProgress must be a function (event) => void, got 5')
    await expect(createMcpBridge(h.ctx, { servers: [custom('a', fault)] }, { onStatu: () => undefined } as never)).rejects.toThrow(
      'dsh-tool-mcp config: /onStatu must be a field of the bridge options (did you mean "onStatus"?), got function',
    )
    await expect(createMcpBridge(h.ctx, { servers: [custom('a', fault)] }, 'quiet' as never)).rejects.toThrow('dsh-tool-mcp config: must be an options object { onProgress?, onStatus? }, got "quiet"')
    // Nothing started for the refused ones: no server was connected.
    expect(fault.connections).toBe(0)
    const seen: string[] = []
    await h.ctx.plugin(McpPlugin, { servers: [custom('p', fault)], onStatus: (s) => void seen.push(s.state), onProgress: () => undefined })
    const bridge = await createMcpBridge(h.ctx, { servers: [custom('q', fault)] }, { onStatus: (s) => void seen.push(`q:${s.state}`) })
    expect(bridge.server('q')?.state).toBe('ready')
    expect(seen).toEqual(['connecting', 'ready', 'q:connecting', 'q:ready'])
  })
})

describe('childEnvironment (README "Environment of stdio servers")', () => {
  test('the SDK short list plus env; inheritEnv adds names or everything; an undefined value removes a variable', () => {
    const saved = { ...process.env }
    try {
      process.env.DSH_TEST_SECRET = 'secret'
      process.env.DSH_TEST_NAMED = 'named'
      process.env.PATH ??= '/usr/bin'
      const minimal = childEnvironment({ name: 'a', command: 'x' })
      expect(Object.keys(minimal).every((k) => ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'].includes(k))).toBe(true)
      expect(minimal.PATH).toBe(process.env.PATH)
      expect('DSH_TEST_SECRET' in minimal).toBe(false)
      const env = childEnvironment({ name: 'a', command: 'x', inheritEnv: ['DSH_TEST_NAMED'], env: { PATH: undefined, DEBUG: '1' } })
      expect([env.DSH_TEST_NAMED, env.DEBUG, 'PATH' in env, env.PATH, 'DSH_TEST_SECRET' in env]).toEqual(['named', '1', true, undefined, false])
      expect(childEnvironment({ name: 'a', command: 'x', inheritEnv: 'all' }).DSH_TEST_SECRET).toBe('secret')
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key]
      Object.assign(process.env, saved)
    }
  })
})

describe('registration', () => {
  test('list_changed between steps swaps the tools in one tools/change; a pinned set keeps unchanged tools', async () => {
    h = await createHarness()
    const a = tool('a', () => text('a1'))
    const fault = new FaultServer([a, tool('b', () => text('b1'))])
    await createMcpBridge(h.ctx, { servers: [custom('l', fault)] })
    const changes: ToolChange[] = []
    h.ctx.on('tools/change', (c) => void changes.push(c))
    const step1 = await h.resolve()
    const swapped = statusWhere(h, 'l', (s) => s.tools.includes('l__c'))
    await fault.announce([a, tool('b', () => text('b2'), { description: 'b, version 2' }), tool('c', () => text('c2'))])
    await swapped
    expect(changes).toEqual([{ type: 'replace', scope: expect.objectContaining({ id: 'deployment' }), registered: ['l__b', 'l__c'], unregistered: ['l__b'] }])
    // The step that resolved before the change: `a` is the same registration, `b` changed.
    expect((await h.execute([call('l__a', {}), call('l__b', {})], { toolSet: step1 })).map(outcome)).toEqual(['ok: "a1"', expect.stringMatching(/^UNKNOWN_TOOL: /)])
    const step2 = await h.resolve()
    expect(h.ctx.tools.describe({ toolSet: step2 }).tools.map((t) => `${t.name}: ${t.description}`)).toEqual(['l__a: a (fault server)', 'l__b: b, version 2', 'l__c: c (fault server)'])
    expect((await h.execute([call('l__b', {}), call('l__c', {})], { toolSet: step2 })).map(outcome)).toEqual(['ok: "b2"', 'ok: "c2"'])
  })

  test('schemas project as announced; annotations map to parallel safety and stay readable for policies', async () => {
    h = await createHarness()
    const inputSchema = { type: 'object' as const, properties: { path: { type: 'string', description: 'where' } }, required: ['path'], $defs: { unused: { type: 'number' } } }
    const fault = new FaultServer([
      tool('read', () => text('r'), { inputSchema, annotations: { readOnlyHint: true } }),
      tool('wipe', () => text('w'), { annotations: { readOnlyHint: false, destructiveHint: true }, title: 'Wipe everything' }),
      tool('plain', () => text('p')),
    ])
    await createMcpBridge(h.ctx, { servers: [custom('x', fault), custom('y', new FaultServer([tool('plain', () => text('p'))]), { parallel: true, prefix: 'why', timeoutMs: 1500 })], separator: '.' })
    expect(h.ctx.tools.schemas()).toEqual([
      { name: 'x.read', description: 'read (fault server)', parameters: inputSchema },
      { name: 'x.wipe', description: 'wipe (fault server)', parameters: { type: 'object', properties: {} } },
      { name: 'x.plain', description: 'plain (fault server)', parameters: { type: 'object', properties: {} } },
      { name: 'why.plain', description: 'plain (fault server)', parameters: { type: 'object', properties: {} } },
    ])
    const defs = h.ctx.tools.definitions()
    expect(defs.map((d) => d.isConcurrencySafe?.({}) === true)).toEqual([true, false, false, true])
    expect(defs.map((d) => d.timeoutMs)).toEqual([undefined, undefined, undefined, 1500])
    expect(mcpToolInfo(defs[1])).toEqual({ server: 'x', tool: 'wipe', title: 'Wipe everything', annotations: { readOnlyHint: false, destructiveHint: true }, structured: false })
    // A policy on destructiveHint, through the definition.
    h.ctx.on('tools/pre-execute', (exec, next) => (mcpToolInfo(exec.definition)?.annotations.destructiveHint === true ? { type: 'deny', reason: 'destructive MCP tools need a human' } : next()))
    expect((await h.execute([call('x.wipe', {}), call('x.read', { path: 'p' })])).map(outcome)).toEqual(['TOOL_DENIED: destructive MCP tools need a human', 'ok: "r"'])
  })

  test('a name collision between servers is a clear error naming both; the first server keeps its tools', async () => {
    h = await createHarness()
    const one = new FaultServer([tool('search', () => text('1'))])
    const two = new FaultServer([tool('search', () => text('2')), tool('other', () => text('o'))])
    const bridge = await createMcpBridge(h.ctx, { servers: [custom('one', one, { prefix: false }), custom('two', two, { prefix: false })] })
    expect(bridge.status().map((s) => s.state)).toEqual(['ready', 'failed'])
    expect(bridge.server('two')!.lastError).toBe(
      'Cannot register MCP tool "search" of server "two" as "search": server "one" already registered its tool "search" under that name. Give one server another prefix (servers[].prefix) or change the separator.',
    )
    expect(h.ctx.tools.schemas().map((s) => s.name)).toEqual(['search'])
    // A clash with a tool registered outside the bridge names that tool's owner.
    h.ctx.tools.register(h.ctx.tools.definitions()[0]!.name === 'search' ? { ...h.ctx.tools.definitions()[0]!, name: 'taken' } : h.ctx.tools.definitions()[0]!)
    const three = await createMcpBridge(h.ctx, { servers: [custom('three', new FaultServer([tool('taken', () => text('t'))]), { prefix: false })] })
    expect(three.server('three')!.lastError).toMatch(/^Cannot register tool "taken" in scope "deployment": a tool of that name is already registered there by /)
  })

  test('tools the registry cannot hold are skipped with the reason; the rest register', async () => {
    h = await createHarness()
    const fault = new FaultServer([
      tool('bad name ', () => text('x')),
      tool('odd', () => text('x'), { inputSchema: { type: 'object', properties: { n: { type: 'nonsense' } } } as never }),
      // A hostile server's name with a line break and a right-to-left override: quoted with both escaped (quoteText), in the reason and the log line.
      tool('evil\n\u202Ename', () => text('x')),
      tool('fine', () => text('ok')),
      tool('x'.repeat(126), () => text('long')),
    ])
    const bridge = await createMcpBridge(h.ctx, { servers: [custom('s', fault)] })
    const status = bridge.server('s')!
    expect(status.tools).toEqual(['s__fine'])
    expect(status.skipped.map((s) => s.tool)).toEqual(['bad name ', 'odd', 'evil\n\u202Ename', 'x'.repeat(126)])
    const rule = '(a tool name is 1–128 Unicode characters in NFC form, without control or invisible characters or surrounding whitespace)'
    expect(status.skipped[0]!.reason).toBe(`its registered name "s__bad name " cannot be registered: it has whitespace around it ${rule}`)
    expect(status.skipped[1]!.reason).toMatch(/^inputSchema\/properties\/n/)
    expect(status.skipped[2]!.reason).toBe(`its registered name "s__evil\\n\\u202Ename" cannot be registered: it contains a control or invisible character ${rule}`)
    expect(status.skipped[3]!.reason).toBe(`its registered name "s__${'x'.repeat(126)}" cannot be registered: it has 129 characters ${rule}`)
  })

  test('every name the registry holds registers under the prefix (Unicode, up to 128 code points), and provider declarations carry valid wire names', async () => {
    h = await createHarness()
    // 125 code points (a 4-byte emoji counts once) + "s__" = 128: the registry's limit exactly.
    const long = '🔍'.repeat(125)
    const fault = new FaultServer([tool('récupérer', ({ args }) => text(`got ${String(args.q)}`), { inputSchema: { type: 'object', properties: { q: { type: 'string' } } } }), tool('搜索', () => text('搜索 ok')), tool(long, () => text('long ok')), tool('a.b:c-d', () => text('dotted'))])
    const bridge = await createMcpBridge(h.ctx, { servers: [custom('s', fault)] })
    const status = bridge.server('s')!
    expect(status.skipped).toEqual([])
    expect(status.tools).toEqual(['s__récupérer', 's__搜索', `s__${long}`, 's__a.b:c-d'])
    expect(outcome((await h.execute([call('s__récupérer', { q: 'été' })]))[0])).toBe('ok: "got été"')
    expect(outcome((await h.execute([call(`s__${long}`, {})]))[0])).toBe('ok: "long ok"')
    // The OpenAI declarations: every wire name matches the provider's rule, one to one, and maps back.
    const declared = toOpenAIChatTools({ tools: h.ctx.tools.schemas() })
    const wires = declared.tools.map((t) => t.function.name)
    expect(wires).toHaveLength(4)
    for (const wireName of wires) expect(wireName).toMatch(/^[a-zA-Z0-9_-]{1,64}$/)
    expect(new Set(wires).size).toBe(4)
    expect(status.tools.map((n) => declared.nameMap.toOriginal(declared.nameMap.toWire(n)!))).toEqual(status.tools)
  })
})

describe('server requests', () => {
  test('sampling and roots are not offered: the client answers -32601; an elicitation without an approval service is declined', async () => {
    h = await createHarness()
    const answers: unknown[] = []
    const fault = new FaultServer([
      tool('asks', async ({ ask }) => {
        answers.push(await ask('sampling/createMessage', { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 }))
        answers.push(await ask('roots/list', {}))
        answers.push((await ask('elicitation/create', { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } })).result)
        return text('asked')
      }),
    ])
    await createMcpBridge(h.ctx, { servers: [custom('s', fault)] })
    expect(outcome((await h.execute([call('s__asks', {})]))[0])).toBe('ok: "asked"')
    expect(answers).toEqual([{ error: { code: -32601, message: expect.stringContaining('Method not found') } }, { error: { code: -32601, message: expect.stringContaining('Method not found') } }, { action: 'decline' }])
  })
})

describe('listings that never end', () => {
  test('a repeated cursor, a cycle of cursors and a listing past the page cap each fail the server with a clear error; nothing hangs', async () => {
    h = await createHarness()
    const t = tool('t', () => text('x'))
    const same = new FaultServer([t])
    same.paginate = () => ({ tools: [t], nextCursor: 'again' })
    const cycle = new FaultServer([t])
    cycle.paginate = (cursor) => ({ tools: [], nextCursor: cursor === undefined ? 'a' : cursor === 'a' ? 'b' : cursor === 'b' ? 'c' : 'a' })
    const endless = new FaultServer([t])
    endless.paginate = (cursor) => ({ tools: [], nextCursor: String(Number(cursor ?? 0) + 1) })
    const fine = new FaultServer([t])
    fine.paginate = (cursor) => (cursor === undefined ? { tools: [], nextCursor: 'p2' } : { tools: [t] })
    const bridge = await createMcpBridge(h.ctx, { servers: [custom('same', same, { retry: true }), custom('cycle', cycle), custom('endless', endless), custom('fine', fine)] })
    expect(bridge.server('same')).toMatchObject({ state: 'failed', tools: [], attempts: 1, lastError: 'MCP server "same": tools/list sent the cursor "again" again after 2 pages (a listing that never ends); the server is marked failed' })
    expect(bridge.server('cycle')).toMatchObject({ state: 'failed', tools: [], lastError: 'MCP server "cycle": tools/list sent the cursor "a" again after 4 pages (a listing that never ends); the server is marked failed' })
    expect(bridge.server('endless')).toMatchObject({ state: 'failed', tools: [], lastError: `MCP server "endless": tools/list went past ${MAX_TOOL_LIST_PAGES} pages (0 tools so far) without ending; the server is marked failed` })
    expect([same.listRequests, cycle.listRequests, endless.listRequests]).toEqual([2, 4, MAX_TOOL_LIST_PAGES])
    // Not retried (the next listing would go the same way), and the other servers are unaffected.
    expect(same.connections).toBe(1)
    expect(bridge.server('fine')).toMatchObject({ state: 'ready', tools: ['fine__t'] })
  })

  test('a re-listing after list_changed that never ends fails the server too', async () => {
    h = await createHarness()
    const t = tool('t', () => text('x'))
    const fault = new FaultServer([t])
    const bridge = await createMcpBridge(h.ctx, { servers: [custom('s', fault)] })
    expect(bridge.server('s')!.state).toBe('ready')
    const failed = statusWhere(h, 's', (s) => s.state === 'failed')
    fault.paginate = () => ({ tools: [t], nextCursor: 'loop' })
    await fault.announce([t])
    expect(await failed).toMatchObject({ tools: [], lastError: 'MCP server "s": tools/list sent the cursor "loop" again after 2 pages (a listing that never ends); the server is marked failed' })
  })
})

describe('lifecycle', () => {
  test('a server that fails to start does not stop the others; it is retried with backoff until it comes up', async () => {
    h = await createHarness()
    const late = new FaultServer([tool('t', () => text('up'))])
    late.refuse = new Error('port busy')
    const ok = new FaultServer([tool('t', () => text('ok'))])
    const seen: string[] = []
    let bridge: McpBridge | undefined
    const up = new Promise<void>((resolve) => {
      h.ctx.on('mcp/status', (s) => {
        if (s.name !== 'late') return
        seen.push(`${s.state}:${s.attempts}`)
        if (s.attempts === 2 && s.state === 'reconnecting' && late.refuse !== undefined && seen.filter((x) => x === 'reconnecting:2').length === 1) late.refuse = undefined
        if (s.state === 'ready') resolve()
      })
    })
    bridge = await createMcpBridge(h.ctx, { servers: [custom('late', late, { retry: { initialDelayMs: 5, maxDelayMs: 10 } }), custom('ok', ok)] })
    expect(outcome((await h.execute([call('ok__t', {})]))[0])).toBe('ok: "ok"')
    await up
    expect(seen).toEqual(['connecting:0', 'reconnecting:1', 'reconnecting:1', 'reconnecting:2', 'reconnecting:2', 'ready:0'])
    expect(bridge.server('late')).toMatchObject({ state: 'ready', tools: ['late__t'] })
    expect(outcome((await h.execute([call('late__t', {})]))[0])).toBe('ok: "up"')
  })

  test('retries stop after maxAttempts: the server is failed with the last error', async () => {
    h = await createHarness()
    const never = new FaultServer([])
    never.refuse = new Error('no such host')
    const failed = new Promise<McpServerStatus>((resolve) => h.ctx.on('mcp/status', (s) => s.state === 'failed' && resolve(s)))
    const bridge = await createMcpBridge(h.ctx, { servers: [custom('never', never, { retry: { maxAttempts: 2, initialDelayMs: 1 } })] })
    expect(await failed).toMatchObject({ state: 'failed', attempts: 3, lastError: 'could not connect: no such host' })
    expect(bridge.status()).toHaveLength(1)
  })

  test('a server that fails its first connection reports why, not only that the connection closed', async () => {
    h = await createHarness()
    // An HTTP endpoint that refuses every request (a wrong bearer token), a port nobody listens on
    // (the underlying cause is named), and a stdio server that
    // exits at once: the SDK closes the transport as the connection attempt fails, and the
    // attempt's own error (the HTTP status, the closed connection and the last stderr line) is
    // what the status reports.
    const http = createServer((_req, res) => {
      res.writeHead(401, { 'content-type': 'text/plain' })
      res.end('bad token')
    })
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()))
    try {
      const port = (http.address() as AddressInfo).port
      const closedPort = await freePort()
      const bridge = await createMcpBridge(h.ctx, {
        servers: [
          { name: 'unauth', transport: 'http', url: `http://127.0.0.1:${port}/mcp` },
          { name: 'refused', transport: 'http', url: `http://127.0.0.1:${closedPort}/mcp` },
          { name: 'exits', command: process.execPath, args: ['-e', 'console.error("config file missing"); process.exit(3)'] },
        ],
      })
      expect(bridge.status().map((s) => [s.name, s.state, s.attempts, s.lastError])).toEqual([
        ['unauth', 'failed', 1, 'could not connect: Version negotiation failed: the server requires authorization (HTTP 401)'],
        ['refused', 'failed', 1, `could not connect: Version negotiation probe failed: fetch failed (connect ECONNREFUSED 127.0.0.1:${closedPort})`],
        ['exits', 'failed', 1, 'could not connect: Connection closed; its last stderr line: config file missing'],
      ])
    } finally {
      http.close()
    }
  })

  test('disposing the context closes every connection and unregisters every tool', async () => {
    h = await createHarness()
    const fault = new FaultServer([tool('t', () => text('x'))])
    const agent = h.agent('a')
    const fiber = agent.ctx.plugin({ name: 'mcp-user', apply: (ctx) => createMcpBridge(ctx, { servers: [custom('f', fault)] }).then(() => undefined) })
    await fiber
    expect(h.ctx.tools.schemas(agent.agent).map((s) => s.name)).toEqual(['f__t'])
    expect(h.ctx.tools.schemas().map((s) => s.name)).toEqual([])
    expect(fault.closes).toBe(0)
    await fiber.dispose()
    expect(fault.closes).toBe(1)
    expect(h.ctx.tools.schemas(agent.agent)).toEqual([])
  })
})
