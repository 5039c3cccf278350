/**
 * OAuth for Streamable HTTP servers (`servers[].auth`), on the SDK 2.x client's auth helpers:
 * discovery (protected-resource and authorization-server metadata, issuer validation, resource
 * indicators), client registration (pre-registered, client ID metadata document, dynamic), the
 * authorization code grant with PKCE through a pluggable {@link McpAuthorize} handler, client
 * credentials, refresh (offline access), scope selection and step-up. The bridge adds what the SDK
 * leaves to its caller: the 401/403 loop with a retry limit, the union of granted and challenged
 * scopes on a step-up, re-discovery after a 401 (an authorization-server migration), and a
 * {@link McpTokenStore} that keeps credentials between runs.
 *
 * Secrets (access and refresh tokens, client secrets, codes, verifiers) live only in the store
 * and in the requests to the authorization server and the MCP server: no text the bridge makes
 * (errors, logs, status) contains them — an auth failure is reported by its kind and the
 * server's OAuth error code.
 */
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { auth, ClientCredentialsProvider, computeScopeUnion, extractWWWAuthenticateParams, isStrictScopeSuperset, UnauthorizedError, type FetchLike, type OAuthClientMetadata, type OAuthClientProvider, type OAuthDiscoveryState, type StoredOAuthClientInformation, type StoredOAuthTokens } from '@modelcontextprotocol/client'

/** What a {@link McpTokenStore} keeps for one server (opaque to the store; JSON). */
export interface McpStoredCredentials {
  readonly tokens?: StoredOAuthTokens
  readonly client?: StoredOAuthClientInformation
  readonly discovery?: OAuthDiscoveryState
}

/**
 * Where a server's OAuth credentials live between calls and runs. `key` is the server's MCP URL.
 * Implementations must keep values as given (the SDK stamps each with the issuer that issued it,
 * so credentials of one authorization server read back as absent at another).
 */
export interface McpTokenStore {
  load(key: string): Promise<McpStoredCredentials | undefined>
  save(key: string, value: McpStoredCredentials): Promise<void>
}

/** A {@link McpTokenStore} in memory (lost with the process). */
export class MemoryTokenStore implements McpTokenStore {
  private readonly values = new Map<string, McpStoredCredentials>()
  async load(key: string): Promise<McpStoredCredentials | undefined> {
    return this.values.get(key)
  }
  async save(key: string, value: McpStoredCredentials): Promise<void> {
    this.values.set(key, value)
  }
}

/**
 * A {@link McpTokenStore} in one JSON file (created with mode 0600 in a directory made 0700 when
 * missing; written through a temporary file and a rename, so a crash leaves the old or the new
 * file whole). A file that is missing reads as empty; one that is not JSON throws naming the path.
 */
export class FileTokenStore implements McpTokenStore {
  constructor(readonly path: string) {}

  private async all(): Promise<Record<string, McpStoredCredentials>> {
    let text: string
    try {
      text = await readFile(this.path, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {}
      throw error
    }
    try {
      return JSON.parse(text) as Record<string, McpStoredCredentials>
    } catch {
      throw new Error(`dsh-tool-mcp token store ${this.path} is not JSON`)
    }
  }

  async load(key: string): Promise<McpStoredCredentials | undefined> {
    return (await this.all())[key]
  }

  async save(key: string, value: McpStoredCredentials): Promise<void> {
    const all = await this.all()
    all[key] = value
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 })
    const temp = `${this.path}.${process.pid}.tmp`
    await writeFile(temp, JSON.stringify(all), { mode: 0o600 })
    await chmod(temp, 0o600)
    await rename(temp, this.path)
  }
}

/**
 * The redirect/consent step of the authorization code grant: show `authorizationUrl` to the user
 * (open a browser, print it), wait for the authorization server's redirect to the configured
 * `redirectUrl`, and resolve with its `code` and `iss` (RFC 9207; pass it whenever the redirect
 * has one — the SDK checks it against the issuer). Reject to abandon the authorization.
 */
export type McpAuthorize = (authorizationUrl: URL) => Promise<{ readonly code: string; readonly iss?: string }>

/** OAuth for one Streamable HTTP server (`servers[].auth`). */
export interface McpOAuthConfig {
  /** `'authorization_code'` (default; needs `authorize` unless stored tokens suffice) or `'client_credentials'` (needs `clientId` and `clientSecret`). */
  readonly grant?: 'authorization_code' | 'client_credentials'
  /** Where credentials live; default a {@link MemoryTokenStore} per bridge server. */
  readonly store?: McpTokenStore
  /** The redirect/consent handler (authorization code grant). */
  readonly authorize?: McpAuthorize
  /** The redirect URI registered for the client; default `http://127.0.0.1:8976/callback`. */
  readonly redirectUrl?: string
  /** `client_name` in registration; default the bridge's `clientInfo.name`. */
  readonly clientName?: string
  /** A client ID metadata document URL (HTTPS, with a path): used as `client_id` where the authorization server supports it. */
  readonly clientMetadataUrl?: string
  /** A pre-registered client (no dynamic registration). */
  readonly clientId?: string
  readonly clientSecret?: string
  /** The scope to ask for when neither the challenge nor the metadata names one. */
  readonly scope?: string
  /** How many authorizations one request may trigger before it fails (a server that keeps refusing). Default 2. */
  readonly maxAttempts?: number
}

/** An authorization that failed: its kind and the server's OAuth error code, never a credential. */
export class McpAuthError extends Error {
  override readonly name = 'McpAuthError'
}

const DEFAULT_REDIRECT = 'http://127.0.0.1:8976/callback'

/** The SDK's `OAuthClientProvider` over a {@link McpTokenStore} and an {@link McpAuthorize} handler. */
export class StoreOAuthProvider implements OAuthClientProvider {
  private verifier: string | undefined
  /** The authorization response of the last redirect (read once by {@link takeAuthorization}). */
  private response: { readonly code: string; readonly iss?: string } | undefined
  readonly clientMetadataUrl?: string

  constructor(
    private readonly key: string,
    private readonly config: McpOAuthConfig,
    private readonly store: McpTokenStore,
    private readonly clientName: string,
  ) {
    if (config.clientMetadataUrl !== undefined) this.clientMetadataUrl = config.clientMetadataUrl
  }

  get redirectUrl(): string {
    return this.config.redirectUrl ?? DEFAULT_REDIRECT
  }

  get clientMetadata(): OAuthClientMetadata {
    return { client_name: this.clientName, redirect_uris: [this.redirectUrl], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], ...(this.config.clientSecret === undefined ? { token_endpoint_auth_method: 'none' } : {}) }
  }

  private async update(change: Partial<McpStoredCredentials>): Promise<void> {
    const current = (await this.store.load(this.key)) ?? {}
    await this.store.save(this.key, { ...current, ...change })
  }

  async clientInformation(): Promise<StoredOAuthClientInformation | undefined> {
    const stored = (await this.store.load(this.key))?.client
    if (stored !== undefined) return stored
    if (this.config.clientId === undefined) return undefined
    return { client_id: this.config.clientId, ...(this.config.clientSecret === undefined ? {} : { client_secret: this.config.clientSecret }) }
  }

  async saveClientInformation(client: StoredOAuthClientInformation): Promise<void> {
    await this.update({ client })
  }

  async tokens(): Promise<StoredOAuthTokens | undefined> {
    return (await this.store.load(this.key))?.tokens
  }

  async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    await this.update({ tokens })
  }

  async saveDiscoveryState(discovery: OAuthDiscoveryState): Promise<void> {
    await this.update({ discovery })
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this.store.load(this.key))?.discovery
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    const current = { ...((await this.store.load(this.key)) ?? {}) } as { tokens?: unknown; client?: unknown; discovery?: unknown }
    if (scope === 'all' || scope === 'client') delete current.client
    if (scope === 'all' || scope === 'tokens') delete current.tokens
    if (scope === 'all' || scope === 'discovery') delete current.discovery
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined
    await this.store.save(this.key, current as McpStoredCredentials)
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    const authorize = this.config.authorize
    if (authorize === undefined) throw new McpAuthError('the server needs an authorization and auth.authorize (the redirect/consent handler) is not configured')
    try {
      this.response = await authorize(authorizationUrl)
    } catch (error) {
      // The handler is the application's own code: its message is shown (it holds no credential of the flow).
      throw new McpAuthError(`the authorize handler failed: ${error instanceof Error ? error.message : String(error)}`)
    }
  }

  /** The code and `iss` of the redirect that just completed. */
  takeAuthorization(): { readonly code: string; readonly iss?: string } {
    const response = this.response
    this.response = undefined
    if (response === undefined || typeof response.code !== 'string' || response.code === '') throw new McpAuthError('the authorization handler returned no code')
    return response
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new McpAuthError('no PKCE code verifier for this authorization')
    return this.verifier
  }
}

/** A failure's text without anything secret: its class and, for an OAuth error, the server's code. */
function safe(error: unknown): string {
  if (error instanceof McpAuthError) return error.message
  const e = error as { name?: unknown; code?: unknown }
  const name = typeof e?.name === 'string' ? e.name : 'Error'
  return typeof e?.code === 'string' || typeof e?.code === 'number' ? `${name} (${String(e.code)})` : name
}

/**
 * A `fetch` for the Streamable HTTP transport that carries the bearer token and, on a 401 or a
 * 403 `insufficient_scope`, authorizes (at most `maxAttempts` times per request) and retries.
 * After the limit the request fails with an `UnauthorizedError`.
 */
export function oauthFetch(provider: StoreOAuthProvider, serverUrl: URL, maxAttempts: number, scope: string | undefined, base: FetchLike = fetch): FetchLike {
  const authorize = async (response: Response): Promise<void> => {
    const { resourceMetadataUrl, scope: challenged } = extractWWWAuthenticateParams(response)
    const previous = await provider.tokens()
    const wanted = response.status === 403 ? computeScopeUnion(previous?.scope, challenged) : (challenged ?? scope)
    // A 401 with a token held: re-discover, the resource may have moved to another authorization server.
    if (response.status === 401) await provider.invalidateCredentials('discovery')
    const options = { serverUrl, ...(resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl }), ...(wanted === undefined ? {} : { scope: wanted }), forceReauthorization: isStrictScopeSuperset(wanted, previous?.scope), fetchFn: base }
    let result = await auth(provider, options)
    if (result === 'REDIRECT') {
      const { code, iss } = provider.takeAuthorization()
      result = await auth(provider, { ...options, authorizationCode: code, ...(iss === undefined ? {} : { iss }) })
    }
    if (result !== 'AUTHORIZED') throw new McpAuthError(`the authorization did not complete (${result})`)
  }
  return async (input, init) => {
    for (let attempt = 0; ; attempt++) {
      const headers = new Headers(init?.headers)
      const tokens = await provider.tokens()
      if (tokens !== undefined) headers.set('Authorization', `Bearer ${tokens.access_token}`)
      const response = await base(input, { ...init, headers })
      const refused = response.status === 401 || (response.status === 403 && /insufficient_scope/.test(response.headers.get('www-authenticate') ?? ''))
      if (!refused) return response
      if (attempt >= maxAttempts) throw new UnauthorizedError(`the server refused the request after ${maxAttempts} authorization${maxAttempts === 1 ? '' : 's'} (HTTP ${response.status})`)
      try {
        await authorize(response)
      } catch (error) {
        throw new UnauthorizedError(`authorization failed: ${safe(error)}`)
      }
    }
  }
}

/** The transport options `servers[].auth` gives: a client-credentials provider, or the bridge's `fetch`. */
export function authTransportOptions(config: McpOAuthConfig, serverUrl: URL, clientName: string, store: McpTokenStore): { readonly authProvider: OAuthClientProvider } | { readonly fetch: FetchLike } {
  if (config.grant === 'client_credentials') {
    return { authProvider: new ClientCredentialsProvider({ clientId: config.clientId ?? '', clientSecret: config.clientSecret ?? '', ...(config.scope === undefined ? {} : { scope: config.scope }) }) }
  }
  const provider = new StoreOAuthProvider(serverUrl.href, config, store, clientName)
  return { fetch: oauthFetch(provider, serverUrl, config.maxAttempts ?? 2, config.scope) }
}
