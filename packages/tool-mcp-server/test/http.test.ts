/**
 * The HTTP endpoint's defaults and refusals (raw requests, no client library): Host and Origin
 * checks, the bearer token, bad bodies and unknown sessions as JSON-RPC errors, pagination with
 * stable order, per-session restrictions, list-change notifications, option checks.
 */
import { Context } from 'cordis'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { defineRawTool, ToolRegistry } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'
import { createMcpToolServer, type McpHttpListener } from '../src'

const ctx = new Context()
let open: McpHttpListener
let locked: McpHttpListener
const tool = (name: string) => defineRawTool({ name, description: `Tool ${name}`, inputSchema: { type: 'object' }, execute: () => name })

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

beforeAll(async () => {
  await ctx.plugin(ToolRegistry)
  await ctx.plugin(NativeExecutor, {})
  for (const n of ['t1', 't2', 't3', 't4', 't5']) ctx.tools.register(tool(n))
  const server = createMcpToolServer(ctx, { pageSize: 2, session: (s) => void (s.client.clientInfo?.name === 'restricted' && s.ctx.tools.restrict({ allow: ['t2'] })) })
  open = await server.listen()
  locked = await server.listen({ bearerToken: 'secret-token-123' })
})
afterAll(async () => {
  await open?.close()
  await locked?.close()
})

/** Reads a JSON or SSE response's JSON-RPC messages. */
async function messages(res: Response): Promise<Record<string, unknown>[]> {
  const text = await res.text()
  if ((res.headers.get('content-type') ?? '').includes('text/event-stream')) return text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>)
  return [JSON.parse(text) as Record<string, unknown>]
}

/** Opens a 2025-11-25 session and returns a request function bound to it. */
async function session(url: string, clientName = 't', headers: Record<string, string> = {}) {
  const res = await fetch(url, { method: 'POST', headers: { ...HEADERS, ...headers }, body: JSON.stringify({ ...INIT, params: { ...INIT.params, clientInfo: { name: clientName, version: '1' } } }) })
  expect(res.status).toBe(200)
  const id = res.headers.get('mcp-session-id')!
  await res.text()
  const h = { ...HEADERS, ...headers, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' }
  await fetch(url, { method: 'POST', headers: h, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })
  let seq = 10
  return {
    id,
    request: async (method: string, params: object = {}) => (await messages(await fetch(url, { method: 'POST', headers: h, body: JSON.stringify({ jsonrpc: '2.0', id: ++seq, method, params }) })))[0]!,
    close: () => fetch(url, { method: 'DELETE', headers: h }),
  }
}

describe('security defaults', () => {
  test('binds 127.0.0.1 and refuses a foreign Host or Origin (DNS rebinding)', async () => {
    expect(open.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
    const evilHost = await fetch(open.url.replace('127.0.0.1', 'localhost'), { method: 'POST', headers: { ...HEADERS, origin: 'http://evil.example.com' }, body: JSON.stringify(INIT) })
    expect(evilHost.status).toBe(403)
    expect(((await evilHost.json()) as { error: { code: number } }).error.code).toBe(-32000)
  })

  test('a non-loopback bind without allowedHosts is refused before listening', async () => {
    await expect(createMcpToolServer(ctx).listen({ host: '0.0.0.0' })).rejects.toThrow('dsh-tool-mcp-server listen: binding to 0.0.0.0 needs allowedHosts')
  })

  test('the bearer token: missing or wrong is 401 with a challenge; right opens the session', async () => {
    const none = await fetch(locked.url, { method: 'POST', headers: HEADERS, body: JSON.stringify(INIT) })
    expect(none.status).toBe(401)
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer /)
    const wrong = await fetch(locked.url, { method: 'POST', headers: { ...HEADERS, authorization: 'Bearer nope' }, body: JSON.stringify(INIT) })
    expect(wrong.status).toBe(401)
    const s = await session(locked.url, 't', { authorization: 'Bearer secret-token-123' })
    expect(((await s.request('tools/list')).result as { tools: unknown[] }).tools).toHaveLength(2)
    await s.close()
  })
})

describe('bad requests get JSON-RPC errors', () => {
  test('a body that is not JSON is a parse error', async () => {
    const res = await fetch(open.url, { method: 'POST', headers: HEADERS, body: '{not json' })
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: the request body is not JSON' }, id: null })
  })

  test('an unknown session is 404; another path is 404', async () => {
    const res = await fetch(open.url, { method: 'POST', headers: { ...HEADERS, 'mcp-session-id': 'nope' }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) })
    expect(res.status).toBe(404)
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32001)
    expect((await fetch(open.url.replace('/mcp', '/other'), { method: 'POST', headers: HEADERS, body: '{}' })).status).toBe(404)
  })

  test('a cursor the server did not issue is invalid params', async () => {
    const s = await session(open.url)
    expect(await s.request('tools/list', { cursor: 'bogus' })).toMatchObject({ error: { code: -32602, message: 'Invalid cursor "bogus": not one this server issued' } })
    await s.close()
  })
})

describe('tools/list', () => {
  test('pages in registration order with an opaque cursor', async () => {
    const s = await session(open.url)
    const names: string[][] = []
    let cursor: string | undefined
    do {
      const r = (await s.request('tools/list', cursor === undefined ? {} : { cursor })).result as { tools: { name: string }[]; nextCursor?: string }
      names.push(r.tools.map((t) => t.name))
      cursor = r.nextCursor
    } while (cursor !== undefined)
    expect(names).toEqual([['t1', 't2'], ['t3', 't4'], ['t5']])
    await s.close()
  })

  test("the session hook's restriction holds for that client only", async () => {
    const restricted = await session(open.url, 'restricted')
    expect(((await restricted.request('tools/list')).result as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual(['t2'])
    expect(await restricted.request('tools/call', { name: 't1', arguments: {} })).toMatchObject({ result: { isError: true, content: [{ type: 'text', text: 'Error: Unknown tool "t1". Available tools: t2' }] } })
    await restricted.close()
  })

  test('a registration announces notifications/tools/list_changed on the session stream', async () => {
    const s = await session(open.url)
    const aborter = new AbortController()
    // The response's headers arrive with its first event (the SDK writes nothing on an idle
    // stream before its 15 s keep-alive), so the registration happens while the GET is pending.
    const pending = fetch(open.url, { signal: aborter.signal, headers: { accept: 'text/event-stream', 'mcp-session-id': s.id, 'mcp-protocol-version': '2025-11-25' } })
    await new Promise((resolve) => setTimeout(resolve, 300))
    const dispose = ctx.tools.register(tool('t6'))
    const stream = await pending
    expect(stream.status).toBe(200)
    const reader = stream.body!.getReader()
    let text = ''
    while (!text.includes('list_changed')) text += new TextDecoder().decode((await reader.read()).value)
    expect(text).toContain('"method":"notifications/tools/list_changed"')
    aborter.abort()
    await dispose()
    await s.close()
  })
})

describe('options', () => {
  test('a bad option is a RangeError naming it', () => {
    expect(() => createMcpToolServer(ctx, { pageSize: 0 })).toThrow('dsh-tool-mcp-server options: /pageSize must be an integer from 1 to 1000, got 0')
    expect(() => createMcpToolServer(ctx, { requestStateKey: 'short' })).toThrow('dsh-tool-mcp-server options: /requestStateKey must be a string or Uint8Array of at least 32 bytes, got "5 bytes"')
    expect(() => createMcpToolServer(ctx, { pagesize: 5 } as never)).toThrow('dsh-tool-mcp-server options: /pagesize must be absent')
  })
})

describe('sessions end', () => {
  test('a 2026-07-28 request is a session that is disposed when its exchange ends; a 2025 session at DELETE', async () => {
    const local = new Context()
    await local.plugin(ToolRegistry)
    await local.plugin(NativeExecutor, {})
    local.tools.register(tool('only'))
    const events: string[] = []
    const server = createMcpToolServer(local, {
      session: (s) => {
        events.push(`open ${s.kind}`)
        s.ctx.effect(() => () => void events.push(`close ${s.kind}`))
      },
    })
    const http = await server.listen()
    try {
      const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }
      for (const id of [1, 2]) {
        const res = await fetch(http.url, { method: 'POST', headers: { ...HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' }, body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params: { _meta: meta } }) })
        expect(((await messages(res))[0]!.result as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual(['only'])
      }
      await expect.poll(() => events).toEqual(['open http-request', 'close http-request', 'open http-request', 'close http-request'])
      const s = await session(http.url)
      await s.request('tools/list')
      expect(http.sessionCount).toBe(1)
      await s.close()
      await expect.poll(() => events.slice(4)).toEqual(['open http-session', 'close http-session'])
      expect(http.sessionCount).toBe(0)
    } finally {
      await server.close()
    }
  })

  test('a session hook that throws refuses the request with a JSON-RPC error, not a crash', async () => {
    const local = new Context()
    await local.plugin(ToolRegistry)
    await local.plugin(NativeExecutor, {})
    let refusals = 1
    const server = createMcpToolServer(local, {
      session: () => {
        if (refusals-- > 0) throw new Error('no clients today')
      },
    })
    const http = await server.listen({ verifyToken: (token) => (token === 'good' ? { clientId: 'alice', scopes: [] } : undefined) })
    try {
      expect((await fetch(http.url, { method: 'POST', headers: { ...HEADERS, authorization: 'Bearer bad' }, body: JSON.stringify(INIT) })).status).toBe(401)
      const s = await session(http.url, 't', { authorization: 'Bearer good' })
      expect(await s.request('tools/list')).toMatchObject({ error: { code: -32603 } })
      expect(await s.request('tools/list')).toEqual({ jsonrpc: '2.0', id: 12, result: { tools: [] } })
      await s.close()
    } finally {
      await server.close()
    }
  })

  test('a 2025-11-25 session idle past sessionIdleMs is closed; its next request gets 404', async () => {
    const local = new Context()
    await local.plugin(ToolRegistry)
    await local.plugin(NativeExecutor, {})
    const closed: string[] = []
    const server = createMcpToolServer(local, { session: (s) => void s.ctx.effect(() => () => void closed.push(s.kind)) })
    const http = await server.listen({ sessionIdleMs: 200 })
    try {
      const s = await session(http.url)
      expect(await s.request('tools/list')).toMatchObject({ result: { tools: [] } })
      expect(http.sessionCount).toBe(1)
      await expect.poll(() => http.sessionCount, { timeout: 5_000 }).toBe(0)
      await expect.poll(() => closed).toEqual(['http-session'])
      expect(await s.request('tools/list')).toMatchObject({ error: { code: -32001 } })
    } finally {
      await server.close()
    }
  })
})
