/**
 * End to end against a real OAuth-protected Streamable HTTP server on 127.0.0.1 that speaks only
 * protocol 2026-07-28 (`oauth-server.ts`: the SDK 2.x server behind a small authorization server):
 * discovery, dynamic registration, authorization code with PKCE through the `authorize`
 * handler, a refresh after the access token is revoked, re-authorization after the refresh token
 * is revoked too, and a refused re-authorization; no token in any text the bridge makes.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest'
import type { ToolResult } from '@deepseek-ai/dsh-tools'
import { call, createHarness, type Harness } from '@deepseek-ai/dsh-tool-testkit'
import { createMcpBridge, FileTokenStore, MemoryTokenStore } from '@deepseek-ai/dsh-tool-mcp'
import { OAuthMcpServer } from './oauth-server'

let server: OAuthMcpServer
let dir: string
beforeAll(async () => {
  server = new OAuthMcpServer()
  await server.start()
  dir = await mkdtemp(join(tmpdir(), 'dsh-mcp-oauth-'))
})
afterAll(async () => {
  await server?.stop()
  if (dir !== undefined) await rm(dir, { recursive: true, force: true })
})
let h: Harness
afterEach(async () => {
  await h?.dispose()
})

function outcome(r: ToolResult | undefined): string {
  if (r === undefined) return 'missing'
  return r.isError ? `${r.error.info?.code}: ${r.error.message}` : `ok: ${JSON.stringify(r.value)}`
}

/** Headless consent: follows the authorization server's redirect as a browser would to the redirect URI. */
async function consent(authorizationUrl: URL): Promise<{ code: string; iss?: string }> {
  const response = await fetch(authorizationUrl, { redirect: 'manual' })
  const back = new URL(response.headers.get('location')!)
  return { code: back.searchParams.get('code')!, iss: back.searchParams.get('iss')! }
}

test('authorization code with PKCE on a 2026-07-28-only server; a revoked access token is refreshed, a revoked refresh token re-authorizes; tokens stay out of every text', async () => {
  h = await createHarness()
  const store = new MemoryTokenStore()
  const consents: string[] = []
  let allow = true
  const bridge = await createMcpBridge(h.ctx, {
    servers: [
      {
        name: 'notes',
        transport: 'http',
        url: server.url,
        auth: {
          store,
          authorize: async (url) => {
            consents.push(`${url.origin}${url.pathname} S256=${url.searchParams.get('code_challenge_method')} resource=${url.searchParams.get('resource')}`)
            if (!allow) throw new Error('the user closed the browser')
            return consent(url)
          },
        },
      },
    ],
  })
  expect(bridge.server('notes')).toMatchObject({ state: 'ready', protocolVersion: '2026-07-28', tools: ['notes__lookup'], serverInfo: { name: 'notes-2026' } })
  expect(consents).toEqual([`${server.base}/authorize S256=S256 resource=${server.url}`])
  expect(server.grants).toEqual(['authorization_code'])
  const first = (await store.load(server.url))!.tokens!
  expect(server.access.has(first.access_token)).toBe(true)
  expect(outcome((await h.execute([call('notes__lookup', { key: 'k1' })]))[0])).toBe('ok: "note k1: buy milk"')

  // The access token is revoked: the next request gets 401, the bridge refreshes and retries; no new consent.
  server.revoke(false)
  expect(outcome((await h.execute([call('notes__lookup', { key: 'k2' })]))[0])).toBe('ok: "note k2: buy milk"')
  expect(server.grants).toEqual(['authorization_code', 'refresh_token'])
  expect(consents).toHaveLength(1)
  const second = (await store.load(server.url))!.tokens!
  expect(second.access_token).not.toBe(first.access_token)

  // Both revoked: the refresh fails (invalid_grant) and the user is asked again.
  server.revoke(true)
  expect(outcome((await h.execute([call('notes__lookup', { key: 'k3' })]))[0])).toBe('ok: "note k3: buy milk"')
  expect(consents).toHaveLength(2)
  expect(server.grants).toEqual(['authorization_code', 'refresh_token', 'refresh_token', 'authorization_code'])

  // Revoked again and the user refuses: the call fails with a clear error that names no secret.
  server.revoke(true)
  allow = false
  const [refused] = await h.execute([call('notes__lookup', { key: 'k4' })])
  expect(outcome(refused)).toBe('MCP_TRANSPORT_ERROR: MCP server "notes": the call to "lookup" failed in transport: authorization failed: the authorize handler failed: the user closed the browser')
  const texts = JSON.stringify([refused, bridge.status()])
  expect(texts).toContain('authorization failed')
  const stored = (await store.load(server.url))!
  for (const secret of [first.access_token, first.refresh_token, second.access_token, second.refresh_token, stored.tokens?.access_token, stored.tokens?.refresh_token]) {
    if (secret !== undefined) expect(texts).not.toContain(secret)
  }
})

test('a FileTokenStore keeps the tokens between runs (0600): a second bridge connects without asking the user', async () => {
  const path = join(dir, 'nested', 'tokens.json')
  let consents = 0
  const auth = { store: new FileTokenStore(path), authorize: async (url: URL) => (consents++, consent(url)) }
  h = await createHarness()
  await createMcpBridge(h.ctx, { servers: [{ name: 'notes', transport: 'http', url: server.url, auth }] })
  expect(consents).toBe(1)
  expect((await stat(path)).mode & 0o777).toBe(0o600)
  expect(Object.keys(JSON.parse(await readFile(path, 'utf8')) as object)).toEqual([server.url])
  await h.dispose()
  h = await createHarness()
  const again = await createMcpBridge(h.ctx, { servers: [{ name: 'notes', transport: 'http', url: server.url, auth: { ...auth, store: new FileTokenStore(path) } }] })
  expect(again.server('notes')!.state).toBe('ready')
  expect(consents).toBe(1)
  expect(outcome((await h.execute([call('notes__lookup', { key: 'k' })]))[0])).toBe('ok: "note k: buy milk"')
})

test('a 2026-07-28-only server refuses the 2025 line: protocol "legacy" fails to connect, "auto" and the pin speak 2026-07-28', async () => {
  h = await createHarness()
  const store = new MemoryTokenStore()
  const auth = { store, authorize: consent }
  const bridge = await createMcpBridge(h.ctx, {
    servers: [
      { name: 'pinned', transport: 'http', url: server.url, auth, protocol: '2026-07-28' },
      { name: 'old', transport: 'http', url: server.url, auth, protocol: 'legacy' },
    ],
  })
  expect(bridge.server('pinned')).toMatchObject({ state: 'ready', protocolVersion: '2026-07-28' })
  expect(bridge.server('old')).toMatchObject({ state: 'failed' })
  expect(bridge.server('old')!.lastError).toMatch(/^could not connect: /)
})
