/**
 * Streamable HTTP serving of both protocol lines at one endpoint: a 2025-era client (it opens
 * with `initialize`) gets a stateful session (`Mcp-Session-Id`, its own SDK transport and
 * server, the standalone SSE stream, DELETE to end it); a 2026-07-28 client is served per
 * request by the SDK's `createMcpHandler` (stateless, `server/discover`, `subscriptions/listen`).
 */
import { randomUUID } from 'node:crypto'
import { createMcpHandler, isInitializeRequest, isLegacyRequest, WebStandardStreamableHTTPServerTransport, type AuthInfo, type McpHttpHandler, type Server } from '@modelcontextprotocol/server'
import { guardRequest, jsonRpcError, type HttpGuardOptions } from './http-guard'
import type { McpAuthInfo } from './options'
import { buildServer, type ServeContext } from './server'

/** HTTP serving options beyond the guard's. */
export interface HttpServeOptions extends HttpGuardOptions {
  /** Open 2025-11-25 sessions at most; a new one over it answers 503. Default 1,000. */
  readonly maxSessions?: number
  /**
   * A 2025-11-25 session without a request for this long, in ms, is closed (its calls aborted,
   * its scope disposed; the client's next request gets 404 and initializes again). Default
   * 1,800,000 (30 minutes); `0` keeps sessions until DELETE.
   */
  readonly sessionIdleMs?: number
  /** Largest request body, in bytes; default 4 MiB (413 above). */
  readonly maxRequestBodyBytes?: number
}

/** A 2025-11-25 session: its SDK transport and server, and its idle timer. */
interface LegacySession {
  readonly transport: WebStandardStreamableHTTPServerTransport
  readonly server: Server
  idle?: ReturnType<typeof setTimeout>
}

/** The web-standard endpoint plus what the owner needs to notify and close it. */
export interface HttpEndpoint {
  fetch(request: Request): Promise<Response>
  /** Announces a tool list change to every session and `subscriptions/listen` stream. */
  toolsChanged(): void
  /** Open 2025-11-25 sessions. */
  readonly sessionCount: number
  close(): Promise<void>
}

const sdkAuth = (auth: McpAuthInfo | undefined, token: string | undefined): AuthInfo | undefined =>
  auth === undefined ? undefined : { token: token ?? '', clientId: auth.clientId, scopes: [...auth.scopes], ...(auth.expiresAt === undefined ? {} : { expiresAt: auth.expiresAt }), ...(auth.extra === undefined ? {} : { extra: { ...auth.extra } }) }

/** Reads the POST body as JSON: the value, or a ready refusal (413 / parse error). */
async function readBody(request: Request, limit: number): Promise<{ value: unknown } | { refused: Response }> {
  const declared = Number(request.headers.get('content-length') ?? '0')
  if (declared > limit) return { refused: jsonRpcError(413, -32600, `Request body over ${limit} bytes`) }
  const text = await request.text()
  if (Buffer.byteLength(text) > limit) return { refused: jsonRpcError(413, -32600, `Request body over ${limit} bytes`) }
  try {
    return { value: JSON.parse(text) }
  } catch {
    return { refused: jsonRpcError(400, -32700, 'Parse error: the request body is not JSON') }
  }
}

/** Builds the endpoint. */
export function createHttpEndpoint(sc: ServeContext, options: HttpServeOptions): HttpEndpoint {
  const limit = options.maxRequestBodyBytes ?? 4 * 1024 * 1024
  const maxSessions = options.maxSessions ?? 1000
  const idleMs = options.sessionIdleMs ?? 30 * 60_000
  const sessions = new Map<string, LegacySession>()
  /** (Re)arms a session's idle timer: it closes the session after `idleMs` without a request. */
  const touch = (id: string, session: LegacySession): void => {
    if (idleMs === 0) return
    clearTimeout(session.idle)
    session.idle = setTimeout(() => {
      if (sessions.get(id) !== session) return
      sessions.delete(id)
      void session.server.close().catch((error: unknown) => sc.report('session idle close', error))
    }, idleMs)
    session.idle.unref()
  }
  const modern: McpHttpHandler = createMcpHandler(
    (ctx) => {
      const auth = ctx.authInfo === undefined ? undefined : { clientId: ctx.authInfo.clientId, scopes: ctx.authInfo.scopes, ...(ctx.authInfo.expiresAt === undefined ? {} : { expiresAt: ctx.authInfo.expiresAt }) }
      return buildServer(sc, { era: 'modern', kind: 'http-request', ...(auth === undefined ? {} : { auth }) })
    },
    { legacy: 'reject', maxRequestBodySize: limit, onerror: (error) => sc.report('http', error) },
  )

  /** Drops a session from the table and stops its idle timer. */
  function forget(id: string): void {
    const session = sessions.get(id)
    if (session === undefined) return
    clearTimeout(session.idle)
    sessions.delete(id)
  }

  async function openLegacySession(request: Request, body: unknown, auth: McpAuthInfo | undefined, token: string | undefined): Promise<Response> {
    if (sessions.size >= maxSessions) return jsonRpcError(503, -32000, `Too many open MCP sessions (${maxSessions}); end one with DELETE first`)
    let server: Server | undefined
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        const session: LegacySession = { transport, server: server! }
        sessions.set(id, session)
        touch(id, session)
      },
      onsessionclosed: (id) => void forget(id),
      maxRequestBodySize: limit,
    })
    transport.onclose = () => {
      if (transport.sessionId !== undefined) forget(transport.sessionId)
    }
    server = buildServer(sc, { era: 'legacy', kind: 'http-session', ...(auth === undefined ? {} : { auth }) })
    server.onerror = (error) => sc.report('session', error)
    await server.connect(transport)
    const authInfo = sdkAuth(auth, token)
    return transport.handleRequest(request, { parsedBody: body, ...(authInfo === undefined ? {} : { authInfo }) })
  }

  async function fetch(request: Request): Promise<Response> {
    const guard = await guardRequest(request, options)
    if (guard.refused !== undefined) return guard.refused
    const authInfo = sdkAuth(guard.auth, guard.token)
    const extra = authInfo === undefined ? {} : { authInfo }
    const sessionId = request.headers.get('mcp-session-id')
    let body: unknown
    if (request.method === 'POST') {
      const read = await readBody(request, limit)
      if ('refused' in read) return read.refused
      body = read.value
    }
    if (sessionId !== null) {
      const session = sessions.get(sessionId)
      if (session === undefined) return jsonRpcError(404, -32001, 'Session not found: it ended or never existed; initialize a new one')
      touch(sessionId, session)
      return session.transport.handleRequest(request, { ...(body === undefined ? {} : { parsedBody: body }), ...extra })
    }
    const legacy = request.method === 'POST' ? await isLegacyRequest(request, body) : request.method !== 'OPTIONS'
    if (legacy) {
      if (request.method === 'POST' && (isInitializeRequest(body) || (Array.isArray(body) && body.some((m) => isInitializeRequest(m))))) return openLegacySession(request, body, guard.auth, guard.token)
      return jsonRpcError(400, -32000, 'Bad Request: no Mcp-Session-Id header; a 2025-11-25 client opens a session with initialize first')
    }
    return modern.fetch(request, { ...(body === undefined ? {} : { parsedBody: body }), ...extra })
  }

  return {
    fetch,
    toolsChanged() {
      for (const { server } of sessions.values()) server.sendToolListChanged().catch((error: unknown) => sc.report('tools/list_changed', error))
      modern.notify.toolsChanged()
    },
    get sessionCount() {
      return sessions.size
    },
    async close() {
      const open = [...sessions.values()]
      for (const session of open) clearTimeout(session.idle)
      sessions.clear()
      await Promise.allSettled(open.map(async (s) => s.server.close()))
      await modern.close()
    },
  }
}
