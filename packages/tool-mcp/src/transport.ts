/**
 * A server's transport (`server.ts` connects it): the stdio child with its environment and its
 * stderr tail, the Streamable HTTP client, or a custom transport's factory; the tracer that sees
 * every message; and the text of a connection failure.
 */
import { StreamableHTTPClientTransport, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client'
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/client/stdio'
import { describeThrown } from '@deepseek-ai/dsh-tools'
import { authTransportOptions } from './auth'
import type { McpCustomServerConfig, McpHttpServerConfig, McpStdioServerConfig, ResolvedServerConfig } from './config'

/** How many of a stdio child's last stderr lines are kept. */
const STDERR_TAIL_LINES = 10

function isStdio(source: ResolvedServerConfig['source']): source is McpStdioServerConfig {
  return source.transport === undefined || source.transport === 'stdio'
}

/**
 * The environment a stdio server's child process gets: the inherited part per `inheritEnv`
 * (default `'minimal'`: the MCP SDK's `getDefaultEnvironment()` list — `HOME`, `LOGNAME`,
 * `PATH`, `SHELL`, `TERM`, `USER` on POSIX; a list adds those names; `'all'` copies
 * `process.env`), then `env` on top (`undefined` removes a variable). A removed variable, and
 * one of the SDK's list the host does not have, is present with the value `undefined`: the SDK
 * puts its own list under this object, and Node's `spawn` leaves `undefined` values out. Never
 * throws.
 *
 * @example childEnvironment({ name: 'fs', command: 'npx', env: { PATH: undefined, DEBUG: '1' } }) // { HOME: '/home/me', PATH: undefined, …, DEBUG: '1' }
 */
export function childEnvironment(config: McpStdioServerConfig): Record<string, string | undefined> {
  const inherit = config.inheritEnv ?? 'minimal'
  const env: Record<string, string | undefined> = inherit === 'all' ? { ...process.env } : getDefaultEnvironment()
  if (Array.isArray(inherit)) for (const key of inherit) if (process.env[key] !== undefined) env[key] = process.env[key]
  if (config.env !== undefined) Object.assign(env, config.env)
  // The SDK adds its minimal list first; `undefined` makes Node's spawn leave a variable out.
  if (inherit !== 'all') for (const key of Object.keys(getDefaultEnvironment())) if (!(key in env)) env[key] = undefined
  return env
}

/** Routes a connected transport's messages through `trace` (its throws ignored). */
export function traceTransport(transport: Transport, trace: (direction: 'send' | 'receive', message: JSONRPCMessage) => void): void {
  const see = (direction: 'send' | 'receive', message: JSONRPCMessage): void => {
    try {
      trace(direction, message)
    } catch {
      // A tracer never disturbs the connection.
    }
  }
  const send = transport.send.bind(transport)
  transport.send = (message, options) => (see('send', message), send(message, options))
  const receive = transport.onmessage
  transport.onmessage = (message, extra) => (see('receive', message), receive?.(message, extra))
}

/**
 * A connection failure's message, with its cause's when the message alone does not say what
 * happened (`fetch failed (connect ECONNREFUSED 127.0.0.1:3001)`).
 */
export function withCause(error: unknown): string {
  const message = describeThrown(error)
  // The innermost cause says what happened (SDK 2.x wraps `fetch failed`, which wraps `connect ECONNREFUSED …`).
  let inner: unknown = error instanceof Error ? error.cause : undefined
  for (let depth = 0; inner instanceof Error && inner.cause instanceof Error && depth < 8; depth++) inner = inner.cause
  const cause = inner instanceof Error ? inner.message : ''
  return cause === '' || message.includes(cause) ? message : `${message} (${cause})`
}

/**
 * A stdio child's last {@link STDERR_TAIL_LINES} non-blank stderr lines (trailing spaces trimmed,
 * each cut to 300 characters), each also handed to `log` in full.
 */
export class StderrTail {
  private readonly lines: string[] = []

  constructor(private readonly log: (line: string) => void) {}

  /** Records a chunk of the child's stderr. */
  record(chunk: Buffer): void {
    for (const line of chunk.toString('utf8').split('\n')) {
      const text = line.trimEnd()
      if (text === '') continue
      this.lines.push(text.length > 300 ? `${text.slice(0, 299)}…` : text)
      if (this.lines.length > STDERR_TAIL_LINES) this.lines.shift()
      this.log(text)
    }
  }

  /** `; its last stderr line: …` when the server wrote any, else `''`. */
  hint(): string {
    const last = this.lines.at(-1)
    return last === undefined ? '' : `; its last stderr line: ${last}`
  }
}

/**
 * The transport `source` configures (not connected yet): a stdio child (its stderr piped into
 * `stderr`), a Streamable HTTP client, or what a custom source's `create()` returns.
 */
export function createTransport(server: ResolvedServerConfig, clientName: string, stderr: StderrTail): Transport | Promise<Transport> {
  const source = server.source
  if (isStdio(source)) {
    const transport = new StdioClientTransport({
      command: source.command,
      args: [...(source.args ?? [])],
      // The SDK's type says string values; `undefined` ones are the removals (see childEnvironment).
      env: childEnvironment(source) as Record<string, string>,
      stderr: 'pipe',
      ...(source.cwd === undefined ? {} : { cwd: source.cwd }),
    })
    transport.stderr?.on('data', (chunk: Buffer) => stderr.record(chunk))
    return transport
  }
  if (source.transport === 'http') {
    const http = source as McpHttpServerConfig
    const url = http.url instanceof URL ? http.url : new URL(http.url)
    const auth = http.auth === undefined || server.authStore === undefined ? {} : authTransportOptions(http.auth, url, http.auth.clientName ?? clientName, server.authStore)
    return new StreamableHTTPClientTransport(url, { ...(http.headers === undefined ? {} : { requestInit: { headers: { ...http.headers } } }), ...auth })
  }
  return (source as McpCustomServerConfig).create()
}
