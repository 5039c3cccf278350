/**
 * The bridge's configuration: which MCP servers to start or reach, how their tools are named and
 * declared, and how failures are retried. {@link resolveBridgeConfig} validates it once and fills
 * in the defaults; every problem is reported with a JSON pointer into the config.
 */
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client'
import { MemoryTokenStore, type McpOAuthConfig, type McpTokenStore } from './auth'
import { suggestKey } from '@deepseek-ai/dsh-tools'
import type { McpBridgeOptions } from './bridge'

/** A server started as a child process speaking MCP over its stdin/stdout. */
export interface McpStdioServerConfig extends McpServerCommonConfig {
  /** Default when `command` is given. */
  readonly transport?: 'stdio'
  /** The executable, e.g. `process.execPath` or `npx`. Not run through a shell. */
  readonly command: string
  readonly args?: readonly string[]
  /** Working directory of the child (default: the host's). */
  readonly cwd?: string
  /**
   * Variables passed to the child, on top of what {@link McpStdioServerConfig.inheritEnv} lets
   * through. A value of `undefined` removes an inherited variable.
   */
  readonly env?: Readonly<Record<string, string | undefined>>
  /**
   * Which host variables the child inherits. Default `'minimal'`: only the SDK's short list
   * (`HOME`, `LOGNAME`, `PATH`, `SHELL`, `TERM`, `USER` on POSIX; the Windows equivalents),
   * never tokens or keys. A list adds those names to the minimal set; `'all'` passes the whole
   * host environment (opt-in: secrets in it reach the server).
   */
  readonly inheritEnv?: 'minimal' | 'all' | readonly string[]
}

/** A server reached over MCP Streamable HTTP. */
export interface McpHttpServerConfig extends McpServerCommonConfig {
  readonly transport: 'http'
  /** The MCP endpoint, e.g. `http://127.0.0.1:3001/mcp`. */
  readonly url: string | URL
  /** Headers sent with every request (e.g. `Authorization`). */
  readonly headers?: Readonly<Record<string, string>>
  /** OAuth for this server (see the README, "Authorization"); absent: no authorization beyond `headers`. */
  readonly auth?: McpOAuthConfig
}

/** A server reached through a transport the caller builds (in-process servers, custom pipes). */
export interface McpCustomServerConfig extends McpServerCommonConfig {
  readonly transport: 'custom'
  /** Builds a fresh, unstarted transport for each connection attempt. */
  readonly create: () => Transport | Promise<Transport>
}

/** Backoff for reconnecting a server that failed to start or went away. */
export interface McpRetryConfig {
  /** Attempts after the first failure; default `Infinity` (until the bridge is disposed). */
  readonly maxAttempts?: number
  /** Delay before the first retry in ms; default 500. Doubles per attempt. */
  readonly initialDelayMs?: number
  /** Cap of the delay in ms; default 30,000. */
  readonly maxDelayMs?: number
}

/** Options every server kind shares. */
export interface McpServerCommonConfig {
  /** The server's name: letters, digits, `_` and `-`; the default tool-name prefix. Unique in the bridge. */
  readonly name: string
  /**
   * The tool-name prefix. Default: `name`. `false` registers the server's tool names unprefixed
   * (a clash with another tool is then a registration error naming both).
   */
  readonly prefix?: string | false
  /**
   * Which tools run in parallel with their neighbours: `'readOnlyHint'` (default) — tools the
   * server annotates `readOnlyHint: true`; `true` — all; `false` — none (each is a barrier).
   */
  readonly parallel?: 'readOnlyHint' | boolean
  /** A `timeoutMs` put on every tool definition of this server (enforced by the timeout policy). */
  readonly timeoutMs?: number
  /** Per-tool `timeoutMs` by the server's tool name; wins over `timeoutMs`. */
  readonly toolTimeoutsMs?: Readonly<Record<string, number>>
  /**
   * The per-request timeout in ms for initialise, `tools/list` and `tools/call` (for a
   * `tools/call`, reset by each progress notification of a call that asked for progress; see
   * `progress`). Initialise and `tools/list` go through the SDK, `tools/call` through the
   * bridge's own request path with the same semantics (a `notifications/cancelled` to the server,
   * then `MCP_REQUEST_TIMEOUT`). Default 60,000, the SDK's own default.
   */
  readonly requestTimeoutMs?: number
  /**
   * `true` (default): the bridge sends `tools/call` over the transport itself, with string
   * request ids `dsh-<n>` (the direct path: cheaper than the SDK's `Protocol.request`; see the
   * README, "Design"). `false`: every `tools/call` goes through the SDK's `client.request`, with
   * the SDK's numeric ids — for a server that only handles integer request ids (MCP allows
   * strings and numbers). Outcomes, codes and texts are the same on both paths.
   */
  readonly directCalls?: boolean
  /**
   * When a call asks the server for progress (`_meta.progressToken` in `tools/call`).
   * `'observed'` (default): when the progress has somewhere to go as the call starts — an
   * `onProgress` callback, or any `mcp/progress` or `tools/progress` listener in the app (the
   * registry delivers `tools/progress` only to listeners, so nothing a server sends is lost).
   * `'always'`: on every call, so a long tool's progress also keeps its request alive (each
   * notification resets `requestTimeoutMs`) when nobody watches. A call without a token gets no
   * progress and its `requestTimeoutMs` is a hard cap, as with the SDK's own `callTool`.
   */
  readonly progress?: 'observed' | 'always'
  /** Reconnect with backoff after a failed start or a lost connection. Default: no retry. */
  readonly retry?: McpRetryConfig | boolean
  /** `false` skips the registry's argument validation (the server validates). Default `true`. */
  readonly validateArguments?: boolean
  /**
   * Sees every JSON-RPC message of the connection after `initialize`, sent and received, as it
   * crosses the transport (for debugging and tests). A throw is ignored.
   */
  readonly trace?: (direction: 'send' | 'receive', message: JSONRPCMessage) => void
  /**
   * Which protocol line to speak (see the README, "Protocol revisions"). `'auto'` (default): ask
   * the server with `server/discover` and speak 2026-07-28 when it answers so, otherwise fall back
   * to the `initialize` handshake of 2025-11-25 / 2025-06-18 (the SDK's `versionNegotiation: {
   * mode: 'auto' }`; on stdio the SDK probes on a short-lived sibling process, one extra spawn per
   * connection). `'legacy'`: only the `initialize` handshake (no probe). `'2026-07-28'`: only that
   * revision (the connection fails when the server does not offer it).
   */
  readonly protocol?: McpProtocolChoice
}

/** The protocol line a server is spoken to in: negotiated, the 2025 `initialize` line only, or one pinned 2026 revision. */
export type McpProtocolChoice = 'auto' | 'legacy' | '2026-07-28'

/** One server: stdio (a `command`), Streamable HTTP (a `url`) or a custom transport. */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig | McpCustomServerConfig

/** The bridge's configuration (the plugin's config). */
export interface McpBridgeConfig {
  readonly servers: readonly McpServerConfig[]
  /** Between prefix and tool name; default `__` (`filesystem__read_file`). */
  readonly separator?: string
  /** How the client introduces itself in `initialize`; default `{ name: 'dsh-tool-mcp', version: '0.1.0' }`. */
  readonly clientInfo?: { readonly name: string; readonly version: string }
}

/** A validated server config with defaults applied. */
export interface ResolvedServerConfig {
  readonly name: string
  readonly kind: 'stdio' | 'http' | 'custom'
  readonly source: McpServerConfig
  readonly prefix: string | false
  readonly parallel: 'readOnlyHint' | boolean
  readonly timeoutMs: number | undefined
  readonly toolTimeoutsMs: Readonly<Record<string, number>>
  readonly requestTimeoutMs: number
  readonly directCalls: boolean
  readonly progress: 'observed' | 'always'
  readonly retry: Required<McpRetryConfig> | undefined
  readonly validateArguments: boolean
  readonly trace: ((direction: 'send' | 'receive', message: JSONRPCMessage) => void) | undefined
  readonly protocol: McpProtocolChoice
  /** The token store of an http server with `auth` (the configured one, or one in memory kept across reconnects). */
  readonly authStore: McpTokenStore | undefined
}

/** A validated bridge config. */
export interface ResolvedBridgeConfig {
  readonly servers: readonly ResolvedServerConfig[]
  readonly separator: string
  readonly clientInfo: { readonly name: string; readonly version: string }
}

/**
 * Thrown by `resolveBridgeConfig` (and so by `createMcpBridge`, `new McpBridge` and `McpPlugin`
 * start) for an invalid bridge config: `dsh-tool-mcp config: <pointer> must be <expected>, got
 * <value>`, e.g. `/servers/1/url`; for a config that is not an object, without a pointer
 * (`dsh-tool-mcp config: must be { servers: [...] }, got undefined`). A `RangeError`, as every
 * config error of this repository's packages, with `name: 'McpConfigError'` and `pointer`; it
 * has no `code`.
 */
export class McpConfigError extends RangeError {
  override readonly name = 'McpConfigError'
  /** JSON pointer into the config, e.g. `/servers/1/url`; `` for the config itself. */
  readonly pointer: string
  constructor(pointer: string, expected: string, got: unknown) {
    super(`dsh-tool-mcp config: ${pointer === '' ? '' : `${pointer} `}must be ${expected}, got ${describe(got)}`)
    this.pointer = pointer
  }
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined'
  try {
    const text = JSON.stringify(value)
    return text === undefined ? typeof value : text.length > 80 ? `${text.slice(0, 79)}…` : text
  } catch {
    return typeof value
  }
}

/** The fields of each config object, for rejecting a misspelt one (a typo would otherwise be ignored). */
const COMMON_FIELDS = ['name', 'transport', 'prefix', 'parallel', 'timeoutMs', 'toolTimeoutsMs', 'requestTimeoutMs', 'directCalls', 'progress', 'retry', 'validateArguments', 'trace', 'protocol'] as const satisfies readonly (keyof McpServerCommonConfig | 'transport')[]
const FIELDS: Readonly<Record<ResolvedServerConfig['kind'], readonly string[]>> = {
  stdio: [...COMMON_FIELDS, ...(['command', 'args', 'cwd', 'env', 'inheritEnv'] as const satisfies readonly (keyof McpStdioServerConfig)[])],
  http: [...COMMON_FIELDS, ...(['url', 'headers', 'auth'] as const satisfies readonly (keyof McpHttpServerConfig)[])],
  custom: [...COMMON_FIELDS, ...(['create'] as const satisfies readonly (keyof McpCustomServerConfig)[])],
}
/** The bridge config's fields, and the options the plugin's config adds to them (`McpPluginConfig`). */
const BRIDGE_FIELDS = [...(['servers', 'separator', 'clientInfo'] as const satisfies readonly (keyof McpBridgeConfig)[]), ...(['onProgress', 'onStatus'] as const satisfies readonly (keyof McpBridgeOptions)[])]
const RETRY_FIELDS = ['maxAttempts', 'initialDelayMs', 'maxDelayMs'] as const satisfies readonly (keyof McpRetryConfig)[]

/** Throws for the first own key of `value` that is not in `fields`, naming the closest field. */
function knownFields(value: object, fields: readonly string[], pointer: string, what: string): void {
  for (const key of Object.keys(value)) {
    if (fields.includes(key)) continue
    const near = suggestKey(key, fields)
    throw new McpConfigError(`${pointer}/${key}`, `a field of ${what}${near === undefined ? ` (${fields.join(', ')})` : ` (did you mean "${near}"?)`}`, (value as Record<string, unknown>)[key])
  }
}

const SERVER_NAME = /^[A-Za-z0-9_-]{1,64}$/
const MAX_TIMER_MS = 2_147_483_647

function positiveMs(value: unknown, pointer: string, fallback: number | undefined): number | undefined {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_TIMER_MS) throw new McpConfigError(pointer, `a positive number of ms up to ${MAX_TIMER_MS}`, value)
  return value
}

function stringRecord(value: unknown, pointer: string, allowUndefined: boolean): void {
  if (value === undefined) return
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new McpConfigError(pointer, 'an object of strings', value)
  for (const [key, v] of Object.entries(value)) {
    if (typeof v !== 'string' && !(allowUndefined && v === undefined)) throw new McpConfigError(`${pointer}/${key}`, 'a string', v)
  }
}

const AUTH_FIELDS = ['grant', 'store', 'authorize', 'redirectUrl', 'clientName', 'clientMetadataUrl', 'clientId', 'clientSecret', 'scope', 'maxAttempts'] as const satisfies readonly (keyof McpOAuthConfig)[]

function checkAuth(value: unknown, pointer: string): void {
  if (value === undefined) return
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new McpConfigError(pointer, 'an OAuth config object', value)
  knownFields(value, AUTH_FIELDS, pointer, 'an OAuth config')
  const a = value as Record<string, unknown>
  if (a.grant !== undefined && a.grant !== 'authorization_code' && a.grant !== 'client_credentials') throw new McpConfigError(`${pointer}/grant`, '"authorization_code" or "client_credentials"', a.grant)
  for (const key of ['redirectUrl', 'clientName', 'clientMetadataUrl', 'clientId', 'clientSecret', 'scope'] as const) {
    // A secret is never echoed back in the error.
    if (a[key] !== undefined && typeof a[key] !== 'string') throw new McpConfigError(`${pointer}/${key}`, 'a string', key === 'clientSecret' ? '(hidden)' : a[key])
  }
  if (a.grant === 'client_credentials' && (a.clientId === undefined || a.clientSecret === undefined)) throw new McpConfigError(`${pointer}/clientId`, 'set with clientSecret for the client_credentials grant', a.clientId)
  if (a.authorize !== undefined && typeof a.authorize !== 'function') throw new McpConfigError(`${pointer}/authorize`, 'a function (authorizationUrl) => Promise<{ code, iss? }>', a.authorize)
  const store = a.store as { load?: unknown; save?: unknown } | undefined
  if (store !== undefined && (store === null || typeof store.load !== 'function' || typeof store.save !== 'function')) throw new McpConfigError(`${pointer}/store`, 'a token store { load(key), save(key, value) }', '(an object without them)')
  if (a.maxAttempts !== undefined && (typeof a.maxAttempts !== 'number' || !Number.isInteger(a.maxAttempts) || a.maxAttempts < 1 || a.maxAttempts > 10)) throw new McpConfigError(`${pointer}/maxAttempts`, 'an integer from 1 to 10', a.maxAttempts)
}

function resolveRetry(value: unknown, pointer: string): Required<McpRetryConfig> | undefined {
  if (value === undefined || value === false) return undefined
  const raw = value === true ? {} : value
  if (raw === null || typeof raw !== 'object') throw new McpConfigError(pointer, 'a boolean or { maxAttempts?, initialDelayMs?, maxDelayMs? }', value)
  knownFields(raw, RETRY_FIELDS, pointer, 'a retry config')
  const r = raw as McpRetryConfig
  const maxAttempts = r.maxAttempts ?? Number.POSITIVE_INFINITY
  if (typeof maxAttempts !== 'number' || !(maxAttempts >= 1) || (Number.isFinite(maxAttempts) && !Number.isInteger(maxAttempts))) throw new McpConfigError(`${pointer}/maxAttempts`, 'a positive integer or Infinity', r.maxAttempts)
  const initialDelayMs = positiveMs(r.initialDelayMs, `${pointer}/initialDelayMs`, 500)!
  const maxDelayMs = positiveMs(r.maxDelayMs, `${pointer}/maxDelayMs`, 30_000)!
  return { maxAttempts, initialDelayMs, maxDelayMs: Math.max(maxDelayMs, initialDelayMs) }
}

function resolveServer(raw: unknown, i: number): ResolvedServerConfig {
  const at = `/servers/${i}`
  if (raw === null || typeof raw !== 'object') throw new McpConfigError(at, 'a server config object', raw)
  const s = raw as Partial<McpStdioServerConfig> & Partial<McpHttpServerConfig> & Partial<Omit<McpCustomServerConfig, 'transport'>> & { transport?: unknown }
  if (typeof s.name !== 'string' || !SERVER_NAME.test(s.name)) throw new McpConfigError(`${at}/name`, '1–64 letters, digits, "_" or "-"', s.name)
  let kind: ResolvedServerConfig['kind']
  if (s.transport === 'http') {
    kind = 'http'
    let ok = s.url instanceof URL
    if (typeof s.url === 'string') {
      try {
        ok = ['http:', 'https:'].includes(new URL(s.url).protocol)
      } catch {
        ok = false
      }
    }
    if (!ok) throw new McpConfigError(`${at}/url`, 'an http(s) URL', s.url)
    stringRecord(s.headers, `${at}/headers`, false)
    checkAuth(s.auth, `${at}/auth`)
  } else if (s.transport === 'custom') {
    kind = 'custom'
    if (typeof s.create !== 'function') throw new McpConfigError(`${at}/create`, 'a function returning a transport', s.create)
  } else if (s.transport === undefined || s.transport === 'stdio') {
    kind = 'stdio'
    if (typeof s.command !== 'string' || s.command === '') throw new McpConfigError(`${at}/command`, 'a non-empty string', s.command)
    if (s.args !== undefined && (!Array.isArray(s.args) || s.args.some((a) => typeof a !== 'string'))) throw new McpConfigError(`${at}/args`, 'an array of strings', s.args)
    if (s.cwd !== undefined && typeof s.cwd !== 'string') throw new McpConfigError(`${at}/cwd`, 'a string', s.cwd)
    stringRecord(s.env, `${at}/env`, true)
    const inherit = s.inheritEnv
    if (inherit !== undefined && inherit !== 'minimal' && inherit !== 'all' && !(Array.isArray(inherit) && inherit.every((n) => typeof n === 'string'))) throw new McpConfigError(`${at}/inheritEnv`, '"minimal", "all" or an array of variable names', inherit)
  } else {
    throw new McpConfigError(`${at}/transport`, '"stdio", "http" or "custom"', s.transport)
  }
  knownFields(s, FIELDS[kind], at, `a ${kind} server config`)
  const prefix = s.prefix ?? s.name
  if (prefix !== false && (typeof prefix !== 'string' || !/^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/.test(prefix))) throw new McpConfigError(`${at}/prefix`, 'false or 1–64 characters of letters, digits, "_", ".", ":" or "-", starting with a letter or "_"', s.prefix)
  const parallel = s.parallel ?? 'readOnlyHint'
  if (parallel !== 'readOnlyHint' && typeof parallel !== 'boolean') throw new McpConfigError(`${at}/parallel`, '"readOnlyHint" or a boolean', s.parallel)
  const timeouts: Record<string, number> = {}
  if (s.toolTimeoutsMs !== undefined) {
    if (s.toolTimeoutsMs === null || typeof s.toolTimeoutsMs !== 'object') throw new McpConfigError(`${at}/toolTimeoutsMs`, 'an object of tool name → ms', s.toolTimeoutsMs)
    for (const [tool, ms] of Object.entries(s.toolTimeoutsMs)) timeouts[tool] = positiveMs(ms, `${at}/toolTimeoutsMs/${tool}`, undefined)!
  }
  if (s.validateArguments !== undefined && typeof s.validateArguments !== 'boolean') throw new McpConfigError(`${at}/validateArguments`, 'a boolean', s.validateArguments)
  if (s.directCalls !== undefined && typeof s.directCalls !== 'boolean') throw new McpConfigError(`${at}/directCalls`, 'a boolean', s.directCalls)
  if (s.progress !== undefined && s.progress !== 'observed' && s.progress !== 'always') throw new McpConfigError(`${at}/progress`, '"observed" or "always"', s.progress)
  if (s.trace !== undefined && typeof s.trace !== 'function') throw new McpConfigError(`${at}/trace`, 'a function (direction, message) => void', s.trace)
  if (s.protocol !== undefined && s.protocol !== 'auto' && s.protocol !== 'legacy' && s.protocol !== '2026-07-28') throw new McpConfigError(`${at}/protocol`, '"auto", "legacy" or "2026-07-28"', s.protocol)
  return Object.freeze({
    name: s.name,
    kind,
    source: raw as McpServerConfig,
    prefix,
    parallel,
    timeoutMs: positiveMs(s.timeoutMs, `${at}/timeoutMs`, undefined),
    toolTimeoutsMs: Object.freeze(timeouts),
    requestTimeoutMs: positiveMs(s.requestTimeoutMs, `${at}/requestTimeoutMs`, 60_000)!,
    directCalls: s.directCalls ?? true,
    progress: s.progress ?? 'observed',
    retry: resolveRetry(s.retry, `${at}/retry`),
    validateArguments: s.validateArguments ?? true,
    trace: s.trace,
    protocol: s.protocol ?? 'auto',
    authStore: kind === 'http' && s.auth !== undefined ? (s.auth.store ?? new MemoryTokenStore()) : undefined,
  })
}

const OPTION_FIELDS = ['onProgress', 'onStatus'] as const satisfies readonly (keyof McpBridgeOptions)[]

/**
 * Validates the bridge's callbacks: `onProgress` and `onStatus`, each a function when present.
 * Given apart (`createMcpBridge`'s third argument, `inConfig` false) the options must be an
 * object of those two keys only; as part of the plugin's config (`inConfig` true) the other keys
 * are the config's, checked by {@link resolveBridgeConfig}. `undefined` means no callbacks.
 *
 * @throws McpConfigError naming the field (`dsh-tool-mcp config: /onStatus must be a function
 *   (status) => void, got "log"`), an unknown key of separate options or options that are not an object.
 */
export function checkBridgeOptions(options: unknown, inConfig: boolean): McpBridgeOptions {
  if (options === undefined) return {}
  if (!inConfig) {
    if (options === null || typeof options !== 'object' || Array.isArray(options)) throw new McpConfigError('', 'an options object { onProgress?, onStatus? }', options)
    knownFields(options, OPTION_FIELDS, '', 'the bridge options')
  }
  const record = options as Record<string, unknown>
  if (record.onProgress !== undefined && typeof record.onProgress !== 'function') throw new McpConfigError('/onProgress', 'a function (event) => void', record.onProgress)
  if (record.onStatus !== undefined && typeof record.onStatus !== 'function') throw new McpConfigError('/onStatus', 'a function (status) => void', record.onStatus)
  return options as McpBridgeOptions
}

/**
 * Validates `config` and applies the defaults.
 *
 * @throws McpConfigError naming the first bad field (JSON pointer) and what was expected; a
 *   server name used twice is reported at the second one.
 */
export function resolveBridgeConfig(config: McpBridgeConfig | undefined): ResolvedBridgeConfig {
  if (config === null || typeof config !== 'object') throw new McpConfigError('', '{ servers: [...] }', config)
  knownFields(config, BRIDGE_FIELDS, '', 'the bridge config')
  if (!Array.isArray(config.servers)) throw new McpConfigError('/servers', 'an array of server configs', config.servers)
  const servers = config.servers.map((s, i) => resolveServer(s, i))
  const seen = new Set<string>()
  for (const [i, s] of servers.entries()) {
    if (seen.has(s.name)) throw new McpConfigError(`/servers/${i}/name`, 'unique in the bridge', s.name)
    seen.add(s.name)
  }
  const separator = config.separator ?? '__'
  if (typeof separator !== 'string' || !/^[A-Za-z0-9_.:-]{0,8}$/.test(separator)) throw new McpConfigError('/separator', 'up to 8 characters of letters, digits, "_", ".", ":" or "-"', config.separator)
  const clientInfo = config.clientInfo ?? { name: 'dsh-tool-mcp', version: '0.1.0' }
  if (typeof clientInfo?.name !== 'string' || typeof clientInfo.version !== 'string') throw new McpConfigError('/clientInfo', '{ name: string, version: string }', config.clientInfo)
  return Object.freeze({ servers: Object.freeze(servers), separator, clientInfo: Object.freeze({ name: clientInfo.name, version: clientInfo.version }) })
}
