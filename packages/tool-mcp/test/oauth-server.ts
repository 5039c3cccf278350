/**
 * A real OAuth-protected MCP server on 127.0.0.1 for the authorization tests: the MCP endpoint is
 * the SDK 2.x server's `createMcpHandler` with `legacy: 'reject'` (it speaks only protocol
 * 2026-07-28), behind a bearer check; beside it a small authorization server of the test's own
 * (protected resource metadata, authorization server metadata, dynamic registration, an
 * authorization endpoint that consents at once and redirects with `code` and `iss`, a token
 * endpoint that checks PKCE and the resource indicator and issues and refreshes tokens). Tokens
 * can be revoked to exercise refresh and re-authorization.
 */
import { createHash, randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server'
import * as z from 'zod'

export class OAuthMcpServer {
  /** `http://127.0.0.1:<port>` */
  base = ''
  /** Live access tokens → the scope granted. */
  readonly access = new Map<string, string>()
  readonly refresh = new Set<string>()
  /** Every token request's `grant_type`, in order. */
  readonly grants: string[] = []
  /** Requests to `/mcp`, by answer status. */
  readonly statuses: number[] = []
  private readonly codes = new Map<string, { readonly challenge: string; readonly resource: string | null }>()
  private http: Server | undefined

  get url(): string {
    return `${this.base}/mcp`
  }

  async start(): Promise<void> {
    const handler = createMcpHandler(
      () => {
        const server = new McpServer({ name: 'notes-2026', version: '1.0.0' })
        server.registerTool('lookup', { description: 'Looks a note up by key', inputSchema: z.object({ key: z.string() }) }, async ({ key }) => ({ content: [{ type: 'text', text: `note ${key}: buy milk` }] }))
        return server
      },
      { legacy: 'reject' },
    )
    this.http = createServer((req, res) => void this.route(req, res, handler.fetch.bind(handler)).catch((error: unknown) => (res.statusCode = 500, res.end(String(error)))))
    await new Promise<void>((resolve) => this.http!.listen(0, '127.0.0.1', resolve))
    this.base = `http://127.0.0.1:${(this.http.address() as AddressInfo).port}`
  }

  async stop(): Promise<void> {
    this.http?.closeAllConnections()
    await new Promise<void>((resolve) => (this.http === undefined ? resolve() : this.http.close(() => resolve())))
  }

  /** Revokes every access token (and, with `refresh`, every refresh token). */
  revoke(refresh: boolean): void {
    this.access.clear()
    if (refresh) this.refresh.clear()
  }

  private json(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(JSON.stringify(body))
  }

  private async route(req: IncomingMessage, res: ServerResponse, mcp: (request: Request) => Promise<Response>): Promise<void> {
    const url = new URL(req.url ?? '/', this.base)
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks).toString('utf8')
    if (url.pathname.startsWith('/.well-known/oauth-protected-resource')) return this.json(res, 200, { resource: this.url, authorization_servers: [this.base], scopes_supported: ['notes:read'] })
    if (url.pathname === '/.well-known/oauth-authorization-server') {
      return this.json(res, 200, {
        issuer: this.base,
        authorization_endpoint: `${this.base}/authorize`,
        token_endpoint: `${this.base}/token`,
        registration_endpoint: `${this.base}/register`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
        authorization_response_iss_parameter_supported: true,
      })
    }
    if (url.pathname === '/register') return this.json(res, 201, { ...(JSON.parse(body) as object), client_id: `client-${randomUUID()}` })
    if (url.pathname === '/authorize') {
      const code = randomUUID()
      this.codes.set(code, { challenge: url.searchParams.get('code_challenge') ?? '', resource: url.searchParams.get('resource') })
      const back = new URL(url.searchParams.get('redirect_uri')!)
      back.searchParams.set('code', code)
      back.searchParams.set('iss', this.base)
      if (url.searchParams.has('state')) back.searchParams.set('state', url.searchParams.get('state')!)
      res.writeHead(302, { location: back.href })
      return void res.end()
    }
    if (url.pathname === '/token') {
      const form = new URLSearchParams(body)
      const grant = form.get('grant_type') ?? ''
      this.grants.push(grant)
      if (grant === 'authorization_code') {
        const issued = this.codes.get(form.get('code') ?? '')
        this.codes.delete(form.get('code') ?? '')
        const verifier = createHash('sha256').update(form.get('code_verifier') ?? '').digest('base64url')
        if (issued === undefined || issued.challenge !== verifier || issued.resource !== this.url || form.get('resource') !== this.url) return this.json(res, 400, { error: 'invalid_grant' })
      } else if (grant === 'refresh_token') {
        if (!this.refresh.delete(form.get('refresh_token') ?? '')) return this.json(res, 400, { error: 'invalid_grant' })
      } else {
        return this.json(res, 400, { error: 'unsupported_grant_type' })
      }
      const access = `at-${randomUUID()}`
      const refresh = `rt-${randomUUID()}`
      this.access.set(access, 'notes:read')
      this.refresh.add(refresh)
      return this.json(res, 200, { access_token: access, token_type: 'Bearer', expires_in: 3600, refresh_token: refresh, scope: 'notes:read' })
    }
    if (url.pathname !== '/mcp') return this.json(res, 404, { error: 'not found' })
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1]
    if (token === undefined || !this.access.has(token)) {
      this.statuses.push(401)
      res.writeHead(401, { 'www-authenticate': `Bearer error="invalid_token", resource_metadata="${this.base}/.well-known/oauth-protected-resource/mcp"` })
      return void res.end()
    }
    const headers = new Headers()
    for (const [key, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(key, value)
    const response = await mcp(new Request(url, { method: req.method, headers, ...(req.method === 'GET' || req.method === 'DELETE' ? {} : { body }) }))
    this.statuses.push(response.status)
    res.writeHead(response.status, Object.fromEntries(response.headers))
    if (response.body !== null) for await (const chunk of response.body) res.write(chunk)
    res.end()
  }
}
