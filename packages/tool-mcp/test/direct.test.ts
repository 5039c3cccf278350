/**
 * The direct `tools/call` path (`src/direct.ts`) against an in-process SDK server: id routing
 * beside the SDK's own requests, cancellation and late answers, close, timeouts with and without
 * progress, progress routing, timers; and the bridge's fallback to the SDK's `Protocol.request`
 * giving the same outcomes.
 */
import { afterEach, describe, expect, test } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { ToolResult } from '@deepseek-ai/dsh-tools'
import { call, createHarness, type Harness } from '@deepseek-ai/dsh-tool-testkit'
import { createMcpBridge } from '@deepseek-ai/dsh-tool-mcp'
import { DirectCall, DirectCalls, type DirectProgress } from '../src/direct'
import { FaultServer, Latch, text, tool, untilAborted, wire } from './fault-server'

/** A direct call that records how it settled and the progress it saw. */
class RecordedCall extends DirectCall {
  readonly progress: DirectProgress[] = []
  outcome: string | undefined
  private done!: () => void
  readonly settledPromise = new Promise<void>((resolve) => (this.done = resolve))

  constructor(
    readonly log: string[],
    readonly label: string,
    watched = false,
  ) {
    super(watched)
  }

  settled(result: CallToolResult | undefined, error: unknown): void {
    if (this.outcome !== undefined) throw new Error(`${this.label} settled twice`)
    this.outcome = result !== undefined ? `ok: ${JSON.stringify(result.content)}` : `error: ${error instanceof Error ? `${error.constructor.name} ${error.message}` : String(error)}`
    this.log.push(`${this.label} ${this.outcome}`)
    this.done()
  }

  progressed(update: DirectProgress): void {
    this.progress.push(update)
  }
}

type Handler = (args: Record<string, unknown>, extra: { signal: AbortSignal; progressToken: string | number | undefined; notify: (progress: number, total?: number) => Promise<void> }) => Promise<CallToolResult> | CallToolResult

interface Connected {
  readonly client: Client
  readonly channel: DirectCalls
  readonly clientSide: InMemoryTransport
  readonly serverSide: InMemoryTransport
  /** `onerror` reports of the SDK client. */
  readonly errors: string[]
  /** `method id` (or `response id`) of every message the client sent, in order. */
  readonly sent: string[]
  /** Request ids the server saw cancelled, with the reason. */
  readonly cancelled: string[]
}

let open: Connected[] = []
afterEach(async () => {
  for (const c of open) await c.client.close()
  open = []
})

async function connect(handler: Handler, timeoutMs = 60_000): Promise<Connected> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  const server = new Server({ name: 'direct-test', version: '1.0.0' }, { capabilities: { tools: {} } })
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: 'echo', inputSchema: { type: 'object' } }] }))
  const cancelled: string[] = []
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    extra.signal.addEventListener('abort', () => cancelled.push(`${String(extra.requestId)}: ${String(extra.signal.reason)}`), { once: true })
    const progressToken = request.params._meta?.progressToken
    return handler(request.params.arguments ?? {}, {
      signal: extra.signal,
      progressToken,
      notify: (progress, total) => (progressToken === undefined ? Promise.resolve() : extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, ...(total === undefined ? {} : { total }) } })),
    })
  })
  await server.connect(serverSide)
  const client = new Client({ name: 'direct-test-client', version: '1.0.0' }, { capabilities: {} })
  const errors: string[] = []
  client.onerror = (error) => errors.push(error.message)
  await client.connect(clientSide)
  const channel = DirectCalls.attach(clientSide, timeoutMs)
  if (channel === undefined) throw new Error('the connected transport has no handlers')
  const sent: string[] = []
  const send = clientSide.send.bind(clientSide)
  clientSide.send = (message: JSONRPCMessage, options) => {
    sent.push('method' in message ? `${message.method} ${'id' in message ? JSON.stringify(message.id) : '-'}` : `response ${JSON.stringify(message.id)}`)
    return send(message, options)
  }
  const connected = { client, channel, clientSide, serverSide, errors, sent, cancelled }
  open.push(connected)
  return connected
}

const echo: Handler = (args) => ({ content: [{ type: 'text', text: String(args.value) }] })
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
/** The channel's one timer: `none`, `ref` (keeps the process alive) or `unref`. */
const timer = (channel: DirectCalls): string => {
  const t = channel['timer']
  return t === undefined ? 'none' : t.hasRef() ? 'ref' : 'unref'
}

describe('direct tools/call', () => {
  test('string ids beside the SDK\'s numeric ones: each response reaches its own call while the SDK\'s tools/list runs in between', async () => {
    const release = new Latch()
    const c = await connect(async (args) => {
      if (args.value === 'held') await release.wait()
      return echo(args, undefined as never)
    })
    const log: string[] = []
    const held = new RecordedCall(log, 'held')
    const quick = new RecordedCall(log, 'quick')
    c.channel.send(held, 'echo', { value: 'held' })
    c.channel.send(quick, 'echo', { value: 'quick' })
    const listed = await c.client.listTools()
    await quick.settledPromise
    expect(c.channel.size).toBe(1)
    release.open()
    await held.settledPromise
    expect(listed.tools.map((t) => t.name)).toEqual(['echo'])
    expect(log).toEqual(['quick ok: [{"type":"text","text":"quick"}]', 'held ok: [{"type":"text","text":"held"}]'])
    expect(c.sent).toEqual(['tools/call "dsh-0"', 'tools/call "dsh-1"', 'tools/list 1'])
    expect([held.id, quick.id, c.channel.size, c.errors]).toEqual(['dsh-0', 'dsh-1', 0, []])
  })

  test('abort sends notifications/cancelled and settles at once; a late response or progress for the id is dropped without an error; other ids still reach the SDK', async () => {
    const c = await connect((_args, { signal }) => untilAborted(signal))
    const log: string[] = []
    const hung = new RecordedCall(log, 'hung', true)
    c.channel.send(hung, 'echo', {})
    await sleep(5)
    hung.abort('user stop')
    expect(log).toEqual(['hung error: user stop'])
    expect(c.channel.size).toBe(0)
    await sleep(5)
    expect(c.sent).toEqual(['tools/call "dsh-0"', 'notifications/cancelled -'])
    expect(c.cancelled).toEqual(['dsh-0: user stop'])
    // The server's answers after the cancellation go nowhere, silently.
    await c.serverSide.send({ jsonrpc: '2.0', id: 'dsh-0', result: { content: [{ type: 'text', text: 'too late' }] } })
    await c.serverSide.send({ jsonrpc: '2.0', id: 'dsh-0', error: { code: -32603, message: 'too late' } })
    await c.serverSide.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'dsh-0', progress: 1 } })
    hung.abort('again')
    await sleep(5)
    expect(log).toEqual(['hung error: user stop'])
    expect(c.errors).toEqual([])
    // An id that is not the bridge's is the SDK's business, as before.
    await c.serverSide.send({ jsonrpc: '2.0', id: 'other-7', result: {} })
    await sleep(5)
    expect(c.errors).toEqual(['Received a response for an unknown message ID: {"jsonrpc":"2.0","id":"other-7","result":{}}'])
  })

  test('the transport closing fails every call in flight with ConnectionClosed, after the client\'s own close handling; later sends fail with Not connected', async () => {
    const c = await connect((_args, { signal }) => untilAborted(signal))
    const log: string[] = []
    c.client.onclose = () => log.push('client onclose')
    const a = new RecordedCall(log, 'a')
    const b = new RecordedCall(log, 'b')
    c.channel.send(a, 'echo', {})
    c.channel.send(b, 'echo', {})
    await sleep(5)
    await c.serverSide.close()
    expect(log).toEqual(['client onclose', 'a error: SdkError Connection closed', 'b error: SdkError Connection closed'])
    const late = new RecordedCall(log, 'late')
    c.channel.send(late, 'echo', {})
    expect(late.outcome).toBeUndefined()
    await late.settledPromise
    expect(log.at(-1)).toBe('late error: Error Not connected')
    expect(c.channel.size).toBe(0)
  })

  test('each call times out at its own deadline with the SDK\'s RequestTimeout error and a cancellation; one timer serves them all and goes with the last', async () => {
    const c = await connect((_args, { signal }) => untilAborted(signal), 60)
    const log: string[] = []
    const first = new RecordedCall(log, 'first')
    c.channel.send(first, 'echo', {})
    await sleep(25)
    const second = new RecordedCall(log, 'second')
    c.channel.send(second, 'echo', {})
    expect(timer(c.channel)).toBe('ref')
    await first.settledPromise
    expect(log).toEqual(['first error: SdkError Request timed out'])
    expect(timer(c.channel)).toBe('ref')
    await second.settledPromise
    expect(log).toEqual(['first error: SdkError Request timed out', 'second error: SdkError Request timed out'])
    await sleep(5)
    expect(c.cancelled).toEqual(['dsh-0: SdkError: Request timed out', 'dsh-1: SdkError: Request timed out'])
    expect(timer(c.channel)).toBe('none')
    expect(c.errors).toEqual([])
  })

  test('a step of the wall clock does not move request deadlines: back an hour, a call still times out after its timeout; forward an hour, a later call is not timed out early', async () => {
    const realNow = Date.now
    const c = await connect((_args, { signal }) => untilAborted(signal), 300)
    const log: string[] = []
    try {
      const back = new RecordedCall(log, 'back')
      c.channel.send(back, 'echo', {})
      Date.now = () => realNow() - 3_600_000
      await Promise.race([back.settledPromise, sleep(1000)])
      expect(log).toEqual(['back error: SdkError Request timed out'])
      Date.now = realNow
      const first = new RecordedCall(log, 'first')
      c.channel.send(first, 'echo', {})
      // Half the timeout apart: the second call's deadline is 150 ms after the first's, a margin a
      // loaded machine's timer lag does not eat.
      await sleep(150)
      const second = new RecordedCall(log, 'second')
      c.channel.send(second, 'echo', {})
      Date.now = () => realNow() + 3_600_000
      await first.settledPromise
      expect([second.outcome, c.channel.size]).toEqual([undefined, 1])
      await second.settledPromise
      expect(log).toEqual(['back error: SdkError Request timed out', 'first error: SdkError Request timed out', 'second error: SdkError Request timed out'])
    } finally {
      Date.now = realNow
    }
  })

  test('progress reaches its own call and moves the deadline of a watched call; an unwatched call with the same work times out', async () => {
    const slow: Handler = async (args, { notify }) => {
      for (let i = 1; i <= 12; i++) {
        await sleep(40)
        await notify(i, 12)
      }
      return echo(args, undefined as never)
    }
    const c = await connect(slow, 300)
    const log: string[] = []
    const watched = new RecordedCall(log, 'watched', true)
    const other = new RecordedCall(log, 'other', true)
    const unwatched = new RecordedCall(log, 'unwatched', false)
    c.channel.send(watched, 'echo', { value: 'w' })
    c.channel.send(other, 'echo', { value: 'o' })
    c.channel.send(unwatched, 'echo', { value: 'u' })
    await Promise.all([watched.settledPromise, other.settledPromise, unwatched.settledPromise])
    expect(log).toEqual(['unwatched error: SdkError Request timed out', 'watched ok: [{"type":"text","text":"w"}]', 'other ok: [{"type":"text","text":"o"}]'])
    expect(watched.progress).toEqual(Array.from({ length: 12 }, (_, i) => ({ progress: i + 1, total: 12 })))
    expect(other.progress).toEqual(watched.progress)
    expect(unwatched.progress).toEqual([])
    expect(c.errors).toEqual([])
  })

  test('a response that is not a CallToolResult fails its call with MalformedCallToolResult; an error response becomes the SDK\'s ProtocolError', async () => {
    const c = await connect((_args, { signal }) => untilAborted(signal))
    const log: string[] = []
    const calls = ['meta', 'number', 'error'].map((label) => new RecordedCall(log, label))
    for (const call of calls) c.channel.send(call, 'echo', {})
    await c.serverSide.send({ jsonrpc: '2.0', id: 'dsh-0', result: { content: [], _meta: 3 } } as unknown as JSONRPCMessage)
    await c.serverSide.send({ jsonrpc: '2.0', id: 'dsh-1', result: 5 } as unknown as JSONRPCMessage)
    await c.serverSide.send({ jsonrpc: '2.0', id: 'dsh-2', error: { code: -32602, message: 'Unknown tool: echo' } })
    expect(log).toEqual([
      'meta error: MalformedCallToolResult malformed CallToolResult: /_meta must be an object (got number)',
      'number error: MalformedCallToolResult malformed CallToolResult: (the result) must be an object (got number)',
      'error error: ProtocolError Unknown tool: echo',
    ])
    expect(c.errors).toEqual([])
  })

  test('no timer is left once the transport closes, and none keeps the process alive between calls', async () => {
    const c = await connect(echo)
    const log: string[] = []
    expect(timer(c.channel)).toBe('none')
    const one = new RecordedCall(log, 'one')
    c.channel.send(one, 'echo', { value: 1 })
    expect(timer(c.channel)).toBe('ref')
    await one.settledPromise
    expect(timer(c.channel)).toBe('unref')
    const two = new RecordedCall(log, 'two')
    c.channel.send(two, 'echo', { value: 2 })
    expect(timer(c.channel)).toBe('ref')
    await two.settledPromise
    expect(timer(c.channel)).toBe('unref')
    await c.client.close()
    expect(timer(c.channel)).toBe('none')
    expect(log).toEqual(['one ok: [{"type":"text","text":"1"}]', 'two ok: [{"type":"text","text":"2"}]'])
  })

  test('a send that throws or rejects fails its call with the transport\'s error, later, and leaves nothing in flight', async () => {
    const c = await connect(echo)
    const log: string[] = []
    c.clientSide.send = () => {
      throw new Error('pipe broke')
    }
    const thrown = new RecordedCall(log, 'thrown')
    c.channel.send(thrown, 'echo', {})
    expect(log).toEqual([])
    await thrown.settledPromise
    c.clientSide.send = () => Promise.reject(new Error('write EPIPE'))
    const rejected = new RecordedCall(log, 'rejected')
    c.channel.send(rejected, 'echo', {})
    await rejected.settledPromise
    expect(log).toEqual(['thrown error: Error pipe broke', 'rejected error: Error write EPIPE'])
    expect([c.channel.size, timer(c.channel)]).toEqual([0, 'unref'])
  })

  test('a transport that answers, or closes, inside send: the call settles there, once, and nothing is left in flight', async () => {
    const c = await connect(echo)
    const log: string[] = []
    const send = c.clientSide.send.bind(c.clientSide)
    c.clientSide.send = (message, options) => {
      if ('method' in message && message.method === 'tools/call' && 'id' in message) {
        c.clientSide.onmessage?.({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: 'inside send' }] } })
        return Promise.reject(new Error('rejected after answering'))
      }
      return send(message, options)
    }
    const answered = new RecordedCall(log, 'answered')
    c.channel.send(answered, 'echo', {})
    expect([log, c.channel.size, timer(c.channel)]).toEqual([['answered ok: [{"type":"text","text":"inside send"}]'], 0, 'unref'])
    c.clientSide.send = () => {
      c.clientSide.onclose?.()
      throw new Error('closed inside send')
    }
    const closing = new RecordedCall(log, 'closing')
    c.channel.send(closing, 'echo', {})
    expect(log.at(-1)).toBe('closing error: SdkError Connection closed')
    await sleep(5)
    expect([log.length, c.channel.size, timer(c.channel), c.errors]).toEqual([2, 0, 'none', []])
  })

  test('attach leaves a transport whose handlers are not installed to the SDK', () => {
    const [clientSide] = InMemoryTransport.createLinkedPair()
    expect(DirectCalls.attach(clientSide, 1000)).toBeUndefined()
  })
})

/**
 * A transport whose `onmessage` reads back as unset (the SDK's handler still runs): the bridge
 * cannot attach its direct path and falls back to the SDK's `Protocol.request`.
 */
function opaque(inner: Transport): Transport {
  return {
    start: () => inner.start(),
    close: () => inner.close(),
    send: (message, options) => inner.send(message, options),
    get onmessage() {
      return undefined
    },
    set onmessage(handler) {
      inner.onmessage = handler
    },
    get onclose() {
      return inner.onclose
    },
    set onclose(handler) {
      inner.onclose = handler
    },
    get onerror() {
      return inner.onerror
    },
    set onerror(handler) {
      inner.onerror = handler
    },
  }
}

describe('the bridge on both paths', () => {
  let h: Harness | undefined
  afterEach(async () => {
    await h?.dispose()
    h = undefined
  })

  function outcome(r: ToolResult | undefined): string {
    if (r === undefined) return 'missing'
    return r.isError ? `${r.error.info?.code}: ${r.error.message}` : `ok: ${JSON.stringify(r.value)}`
  }

  async function outcomes(path: 'direct' | 'fallback' | 'configured'): Promise<{ readonly results: string[]; readonly ids: string[]; readonly progress: string[] }> {
    h = await createHarness({ registry: { progressIntervalMs: 0 } })
    const started = new Latch()
    const fault = new FaultServer([
      tool('echo', ({ args }) => text(String(args.message))),
      tool('hang', ({ signal }) => (started.open(), untilAborted(signal))),
      tool('work', async ({ progress }) => (await progress(1, 2), await progress(2, 2), text('worked'))),
      tool('bad', () => wire({ content: 'nope' })),
      tool('crash', async ({ crash }) => (await crash(), text('never'))),
    ])
    const ids: string[] = []
    const create = async (): Promise<Transport> => {
      const transport = await fault.create()
      const send = transport.send.bind(transport)
      transport.send = (message, options) => {
        if ('method' in message && message.method === 'tools/call' && 'id' in message) ids.push(String(message.id))
        return send(message, options)
      }
      return path === 'fallback' ? opaque(transport) : transport
    }
    await createMcpBridge(h.ctx, { servers: [{ name: 'f', transport: 'custom', create, requestTimeoutMs: 200, ...(path === 'configured' ? { directCalls: false } : {}) }] })
    const progress: string[] = []
    h.ctx.on('mcp/progress', (e) => void progress.push(`${e.callId} ${e.progress}/${e.total ?? '?'}`))
    const controller = new AbortController()
    const first = h.execute([call('f__echo', { message: 'hi' }, 'c1'), call('f__work', {}, 'c2'), call('f__hang', {}, 'c3')], { signal: controller.signal })
    await started.wait()
    controller.abort()
    const results = (await first).map(outcome)
    results.push(...(await h.execute([call('f__hang', {}, 'c4'), call('f__bad', {}, 'c6')])).map(outcome))
    results.push(...(await h.execute([call('f__crash', {}, 'c5')])).map(outcome))
    return { results, ids, progress }
  }

  test('a server that exits mid-call and is reconnected: the call in flight fails with MCP_CONNECTION_CLOSED and the new transport carries the next calls on the direct path', async () => {
    h = await createHarness()
    const fault = new FaultServer([tool('crash', async ({ crash }) => (await crash(), text('never'))), tool('echo', ({ args }) => text(String(args.message)))])
    const sent: string[] = []
    const trace = (direction: 'send' | 'receive', message: JSONRPCMessage): void => {
      if (direction === 'send' && 'method' in message && message.method === 'tools/call' && 'id' in message) sent.push(JSON.stringify(message.id))
    }
    const bridge = await createMcpBridge(h.ctx, { servers: [{ name: 'f', transport: 'custom', create: fault.create, retry: { initialDelayMs: 5 }, requestTimeoutMs: 100, trace }] })
    const back = new Promise<void>((resolve) => {
      const off = h!.ctx.on('mcp/status', (s) => {
        if (s.name === 'f' && s.state === 'ready') (off(), resolve())
      })
    })
    const crashed = await h.execute([call('f__crash', {}, 'c1')])
    await back
    const again = await h.execute([call('f__echo', { message: 'back' }, 'c2'), call('f__echo', { message: 'again' }, 'c3')])
    await sleep(150)
    expect([...crashed, ...again].map(outcome)).toEqual(['MCP_CONNECTION_CLOSED: MCP server "f" closed the connection during the call to "crash"', 'ok: "back"', 'ok: "again"'])
    expect(sent).toEqual(['"dsh-0"', '"dsh-0"', '"dsh-1"'])
    expect([fault.connections, bridge.server('f')!.inFlight]).toEqual([2, 0])
  })

  test('success, progress, abort, request timeout, a malformed result and a crash settle the same on the direct path and through Protocol.request (a transport without handlers, or directCalls: false)', async () => {
    const direct = await outcomes('direct')
    await h?.dispose()
    const sdk = await outcomes('fallback')
    await h?.dispose()
    const configured = await outcomes('configured')
    const expected = [
      'ok: "hi"',
      'ok: "worked"',
      'ABORTED: Tool call was cancelled',
      'MCP_REQUEST_TIMEOUT: MCP server "f" did not answer the call to "hang" within 200ms',
      'MCP_PROTOCOL_ERROR: MCP server "f" sent a malformed result for "bad": /content must be an array (got string)',
      'MCP_CONNECTION_CLOSED: MCP server "f" closed the connection during the call to "crash"',
    ]
    expect(direct.results).toEqual(expected)
    expect(sdk.results).toEqual(expected)
    expect(direct.progress).toEqual(['c2 1/2', 'c2 2/2'])
    expect(sdk.progress).toEqual(direct.progress)
    expect(direct.ids).toEqual(['dsh-0', 'dsh-1', 'dsh-2', 'dsh-3', 'dsh-4', 'dsh-5'])
    expect(sdk.ids).toEqual(['2', '3', '4', '5', '6', '7'])
    expect(configured).toEqual(sdk)
  })

  test('directCalls must be a boolean: the bridge refuses anything else naming the field', async () => {
    h = await createHarness()
    const fault = new FaultServer([tool('echo', ({ args }) => text(String(args.message)))])
    await expect(createMcpBridge(h.ctx, { servers: [{ name: 'f', transport: 'custom', create: fault.create, directCalls: 'no' as unknown as boolean }] })).rejects.toThrow(
      'dsh-tool-mcp config: /servers/0/directCalls must be a boolean, got "no"',
    )
  })
})
