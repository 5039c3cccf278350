/**
 * The checks every HTTP request passes before MCP sees it: the endpoint path, DNS-rebinding
 * protection (Host and Origin against allow-lists; localhost names by default) and the optional
 * bearer token. Each refusal is an HTTP error with a JSON-RPC error body; nothing throws.
 */
import { timingSafeEqual } from 'node:crypto'
import { bearerAuthChallengeResponse, hostHeaderValidationResponse, OAuthError, OAuthErrorCode, originValidationResponse } from '@modelcontextprotocol/server'
import type { McpAuthInfo } from './options'

/** The HTTP options that guard the endpoint. */
export interface HttpGuardOptions {
  /** The endpoint path; default `/mcp`. Other paths answer 404. */
  readonly path?: string
  /**
   * Host names (no port; IPv6 in brackets) the `Host` header may name. Default: `localhost`,
   * `127.0.0.1`, `[::1]`. Required when binding to a non-loopback address.
   */
  readonly allowedHosts?: readonly string[]
  /** Host names an `Origin` header may name (a request without `Origin` passes). Default: the same localhost names. */
  readonly allowedOrigins?: readonly string[]
  /** A shared secret every request must carry as `Authorization: Bearer <token>` (compared in constant time). */
  readonly bearerToken?: string
  /**
   * Checks a bearer token and says whose it is; `undefined` or a throw refuses the request (401).
   * A token past its `expiresAt` is refused too.
   */
  readonly verifyToken?: (token: string) => McpAuthInfo | undefined | Promise<McpAuthInfo | undefined>
}

/** The localhost names of the default allow-lists. */
export const LOCALHOST_NAMES: readonly string[] = Object.freeze(['localhost', '127.0.0.1', '[::1]'])

/** A JSON-RPC error response with an HTTP status. */
export function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), { status, headers: { 'content-type': 'application/json', ...headers } })
}

const sameSecret = (a: string, b: string): boolean => {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/** The outcome of the guard: a refusal, or the caller's identity (when a token check ran). */
export type GuardOutcome = { readonly refused: Response } | { readonly refused?: undefined; readonly auth?: McpAuthInfo; readonly token?: string }

/** Runs the path, Host, Origin and bearer checks on `request`. */
export async function guardRequest(request: Request, options: HttpGuardOptions): Promise<GuardOutcome> {
  const url = new URL(request.url)
  if (url.pathname !== (options.path ?? '/mcp')) return { refused: jsonRpcError(404, -32600, `Not found: the MCP endpoint is ${options.path ?? '/mcp'}`) }
  const hostRefusal = hostHeaderValidationResponse(request, [...(options.allowedHosts ?? LOCALHOST_NAMES)])
  if (hostRefusal !== undefined) return { refused: hostRefusal }
  const originRefusal = originValidationResponse(request, [...(options.allowedOrigins ?? options.allowedHosts ?? LOCALHOST_NAMES)])
  if (originRefusal !== undefined) return { refused: originRefusal }
  if (options.bearerToken === undefined && options.verifyToken === undefined) return {}
  const header = request.headers.get('authorization') ?? ''
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
  const challenge = (text: string): GuardOutcome => ({ refused: bearerAuthChallengeResponse(new OAuthError(OAuthErrorCode.InvalidToken, text)) })
  if (match === null) return challenge('Missing bearer token: send Authorization: Bearer <token>')
  const token = match[1]!
  if (options.bearerToken !== undefined) return sameSecret(token, options.bearerToken) ? { auth: { clientId: 'bearer', scopes: [] }, token } : challenge('Invalid bearer token')
  let auth: McpAuthInfo | undefined
  try {
    auth = await options.verifyToken!(token)
  } catch {
    auth = undefined
  }
  if (auth === undefined) return challenge('Invalid bearer token')
  if (auth.expiresAt !== undefined && auth.expiresAt * 1000 <= Date.now()) return challenge('Bearer token expired')
  return { auth, token }
}
