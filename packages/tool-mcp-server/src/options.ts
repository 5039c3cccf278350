/**
 * The server's options, their defaults and their check (a bad field throws a `RangeError` naming
 * it, before anything is served).
 */
import type { Context } from 'cordis'
import type { Agent } from '@deepseek-ai/dsh-tools'
import type { McpClientView } from './input'

/** One client session as the `session` hook sees it. */
export interface McpSession {
  /** `mcp-<n>`: also the id of the session's agent. */
  readonly id: string
  /** The agent scope minted for this session; restrictions, guards and listeners made on it last as long as the session. */
  readonly ctx: Context
  readonly agent: Agent
  readonly client: McpClientView
  /** `http-session` (2025-11-25 over HTTP), `http-request` (2026-07-28: one request), `stdio` (one connection). */
  readonly kind: 'http-session' | 'http-request' | 'stdio'
  /** What the bearer-token check returned for this request or session (HTTP with `verifyToken`). */
  readonly auth?: McpAuthInfo
}

/** What a bearer-token check returns about the caller (kept with the session; never logged). */
export interface McpAuthInfo {
  /** Who the token belongs to (a client id, a user). */
  readonly clientId: string
  readonly scopes: readonly string[]
  /** Seconds since the epoch; a token past it is refused (401). */
  readonly expiresAt?: number
  readonly extra?: { readonly [key: string]: unknown }
}

/** A `tools/list` cache hint (protocol 2026-07-28): how long, in ms, and to whom the list may be reused. */
export interface McpCacheHint {
  readonly ttlMs: number
  readonly cacheScope: 'public' | 'private'
}

/** Options of {@link createMcpToolServer}. */
export interface McpToolServerOptions {
  /** `serverInfo.name`; default `dsh-tools`. */
  readonly name?: string
  /** `serverInfo.version`; default `0.1.0`. */
  readonly version?: string
  /** The `instructions` shown to the client at initialize / `server/discover`. */
  readonly instructions?: string
  /** Tools per `tools/list` page, 1–1000; default 100. */
  readonly pageSize?: number
  /** The `tools/list` cache hint of 2026-07-28 results; default `{ ttlMs: 0, cacheScope: 'private' }` (a list may change per session). */
  readonly listCacheHint?: McpCacheHint
  /**
   * The HMAC key (≥ 32 bytes) protecting the `requestState` of `input_required` rounds; default
   * a random key per server (a flow must then come back to the same process). Give every
   * process of a fleet the same key.
   */
  readonly requestStateKey?: Uint8Array | string
  /** How long a minted `requestState` stays valid, in seconds; default 600. */
  readonly requestStateTtlSeconds?: number
  /**
   * Sets up each client session's agent scope before its first request is served (per-client
   * restrictions, guards, policies): `session.ctx.tools.restrict({ allow: [...] })`. A throw
   * answers the request that opened the session with a JSON-RPC internal error (`-32603`); the
   * session scope is disposed and the next request tries again.
   */
  readonly session?: (session: McpSession) => void | Promise<void>
}

/** The options with their defaults applied. */
export interface ResolvedOptions {
  readonly name: string
  readonly version: string
  readonly instructions?: string
  readonly pageSize: number
  readonly listCacheHint: McpCacheHint
  readonly requestStateKey: Uint8Array | string
  readonly requestStateTtlSeconds: number
  readonly session?: (session: McpSession) => void | Promise<void>
}

const KNOWN = ['name', 'version', 'instructions', 'pageSize', 'listCacheHint', 'requestStateKey', 'requestStateTtlSeconds', 'session']

const fail = (pointer: string, expected: string, got: unknown): never => {
  throw new RangeError(`dsh-tool-mcp-server options: ${pointer} must be ${expected}, got ${typeof got === 'string' ? JSON.stringify(got) : typeof got === 'function' ? 'a function' : JSON.stringify(got) ?? typeof got}`)
}

/**
 * Checks `options` and applies the defaults.
 *
 * @throws RangeError naming the field (`dsh-tool-mcp-server options: /pageSize must be an integer from 1 to 1000, got 0`).
 */
export function resolveOptions(options: McpToolServerOptions | undefined): ResolvedOptions {
  const o = (options ?? {}) as Record<string, unknown>
  if (typeof o !== 'object' || o === null || Array.isArray(o)) fail('(root)', 'an object', o)
  for (const key of Object.keys(o)) if (!KNOWN.includes(key)) fail(`/${key}`, `absent (not an option; known: ${KNOWN.join(', ')})`, o[key])
  const str = (k: string, d: string): string => (o[k] === undefined ? d : typeof o[k] === 'string' && o[k] !== '' ? (o[k] as string) : fail(`/${k}`, 'a non-empty string', o[k]))
  const pageSize = o.pageSize ?? 100
  if (!Number.isInteger(pageSize) || (pageSize as number) < 1 || (pageSize as number) > 1000) fail('/pageSize', 'an integer from 1 to 1000', pageSize)
  const hint = (o.listCacheHint ?? { ttlMs: 0, cacheScope: 'private' }) as McpCacheHint
  if (typeof hint !== 'object' || hint === null || !Number.isInteger(hint.ttlMs) || hint.ttlMs < 0) fail('/listCacheHint/ttlMs', 'a non-negative integer', (hint as { ttlMs?: unknown })?.ttlMs)
  if (hint.cacheScope !== 'public' && hint.cacheScope !== 'private') fail('/listCacheHint/cacheScope', '"public" or "private"', hint.cacheScope)
  const key = o.requestStateKey ?? crypto.getRandomValues(new Uint8Array(32))
  const keyBytes = typeof key === 'string' ? new TextEncoder().encode(key).length : key instanceof Uint8Array ? key.length : -1
  if (keyBytes < 32) fail('/requestStateKey', 'a string or Uint8Array of at least 32 bytes', typeof key === 'string' ? `${keyBytes} bytes` : key)
  const ttl = o.requestStateTtlSeconds ?? 600
  if (!Number.isInteger(ttl) || (ttl as number) < 1) fail('/requestStateTtlSeconds', 'a positive integer', ttl)
  if (o.session !== undefined && typeof o.session !== 'function') fail('/session', 'a function (session) => void', o.session)
  if (o.instructions !== undefined && typeof o.instructions !== 'string') fail('/instructions', 'a string', o.instructions)
  return {
    name: str('name', 'dsh-tools'),
    version: str('version', '0.1.0'),
    ...(o.instructions === undefined ? {} : { instructions: o.instructions as string }),
    pageSize: pageSize as number,
    listCacheHint: { ttlMs: hint.ttlMs, cacheScope: hint.cacheScope },
    requestStateKey: key as Uint8Array | string,
    requestStateTtlSeconds: ttl as number,
    ...(o.session === undefined ? {} : { session: o.session as ResolvedOptions['session'] }),
  }
}
