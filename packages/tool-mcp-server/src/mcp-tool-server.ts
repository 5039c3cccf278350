/**
 * `createMcpToolServer`: serves the tools visible in a context's scope to MCP clients over
 * Streamable HTTP (`listen`, or `httpHandler` for a web-standard host) and stdio (`serveStdio`),
 * every call through the full pipeline, one agent scope per client session.
 */
import { createServer, type Server as NodeHttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Context } from 'cordis'
import { toNodeHandler } from '@modelcontextprotocol/node'
import { createRequestStateCodec, type Server } from '@modelcontextprotocol/server'
import { serveStdio as sdkServeStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio'
import { isWithin, scopeOf, type ToolChange, assertSupportedCordis } from '@deepseek-ai/dsh-tools'
import type { SignedState } from './call-run'
import { createHttpEndpoint, type HttpEndpoint, type HttpServeOptions } from './http'
import { LOCALHOST_NAMES } from './http-guard'
import { resolveOptions, type McpToolServerOptions } from './options'
import { buildServer, type ServeContext } from './server'

/** The logger name of the server. */
export const MCP_SERVER_LOGGER = 'dsh-tool-mcp-server'

/** Options of {@link McpToolServer.listen}. */
export interface McpListenOptions extends HttpServeOptions {
  /** The address to bind; default `127.0.0.1`. Anything but a loopback address needs `allowedHosts`. */
  readonly host?: string
  /** The port; default 0 (a free port, see `url`). */
  readonly port?: number
}

/** A listening HTTP endpoint. */
export interface McpHttpListener {
  /** The endpoint, e.g. `http://127.0.0.1:43121/mcp`. */
  readonly url: string
  readonly port: number
  /** Open 2025-11-25 sessions. */
  readonly sessionCount: number
  /** Ends every session and stream and stops listening. */
  close(): Promise<void>
}

/** A stdio connection being served. */
export interface McpStdioHandle {
  close(): Promise<void>
}

/** What {@link createMcpToolServer} returns. */
export interface McpToolServer {
  /** Serves Streamable HTTP on a Node `http` server (127.0.0.1 and DNS-rebinding protection by default). */
  listen(options?: McpListenOptions): Promise<McpHttpListener>
  /** The same endpoint as a web-standard `fetch(request)` handler, for a host that owns the HTTP server. */
  httpHandler(options?: HttpServeOptions): { fetch(request: Request): Promise<Response>; close(): Promise<void> }
  /**
   * Serves one client on this process's stdin/stdout (or the given streams). Nothing else may
   * write to stdout meanwhile.
   */
  serveStdio(options?: { readonly stdin?: NodeJS.ReadableStream; readonly stdout?: NodeJS.WritableStream }): McpStdioHandle
  /** Stops every endpoint; also runs when the context's fiber is disposed. */
  close(): Promise<void>
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]'])

/**
 * Creates the server for the tools visible in `ctx`'s scope.
 *
 * Start also fails with a `CordisVersionError` (`UNSUPPORTED_CORDIS`) outside cordis
 * `>=4.0.0-rc.10 <5`, naming the version found (`assertSupportedCordis` of `@deepseek-ai/dsh-tools`).
 *
 * @throws RangeError for a bad option (naming it, see `resolveOptions`).
 */
export function createMcpToolServer(ctx: Context, options?: McpToolServerOptions): McpToolServer {
  assertSupportedCordis(ctx, 'createMcpToolServer')
  const resolved = resolveOptions(options)
  const logger = ctx.logger(MCP_SERVER_LOGGER)
  const sc: ServeContext = {
    served: ctx,
    options: resolved,
    codec: createRequestStateCodec<SignedState>({
      key: resolved.requestStateKey,
      ttlSeconds: resolved.requestStateTtlSeconds,
      bind: (c) => `${c.mcpReq.method}\0${c.http?.authInfo?.clientId ?? ''}`,
    }),
    report: (stage, error) => logger.warn(`${stage}: ${error instanceof Error ? error.message : String(error)}`),
  }
  const endpoints = new Set<HttpEndpoint>()
  const stdioServers = new Set<Server>()
  const closers = new Set<() => Promise<void>>()
  const served = scopeOf(ctx)
  let pending = false
  // A change in the served scope or above reaches every client; one notification per turn.
  const offChange = ctx.on('tools/change', (change: ToolChange) => {
    if (!isWithin(served, change.scope) || pending) return
    pending = true
    queueMicrotask(() => {
      pending = false
      for (const e of endpoints) e.toolsChanged()
      for (const s of stdioServers) s.sendToolListChanged().catch((error: unknown) => sc.report('tools/list_changed', error))
    })
  })

  const httpHandler: McpToolServer['httpHandler'] = (httpOptions = {}) => {
    const endpoint = createHttpEndpoint(sc, httpOptions)
    endpoints.add(endpoint)
    const close = async () => {
      endpoints.delete(endpoint)
      await endpoint.close()
    }
    closers.add(close)
    return { fetch: endpoint.fetch, close }
  }

  const server: McpToolServer = {
    async listen(listenOptions = {}) {
      const host = listenOptions.host ?? '127.0.0.1'
      if (!LOOPBACK.has(host) && listenOptions.allowedHosts === undefined) {
        throw new RangeError(`dsh-tool-mcp-server listen: binding to ${host} needs allowedHosts (the host names clients use), or DNS-rebinding protection would refuse every request`)
      }
      const endpoint = createHttpEndpoint(sc, { ...listenOptions, allowedHosts: listenOptions.allowedHosts ?? LOCALHOST_NAMES })
      endpoints.add(endpoint)
      const node: NodeHttpServer = createServer(toNodeHandler({ fetch: endpoint.fetch }, { onerror: (error) => sc.report('http', error) }) as Parameters<typeof createServer>[0])
      await new Promise<void>((resolve, reject) => {
        node.once('error', reject)
        node.listen(listenOptions.port ?? 0, host, () => {
          node.off('error', reject)
          resolve()
        })
      })
      const port = (node.address() as AddressInfo).port
      const close = async () => {
        closers.delete(close)
        endpoints.delete(endpoint)
        await endpoint.close()
        node.closeAllConnections()
        await new Promise<void>((resolve) => node.close(() => resolve()))
      }
      closers.add(close)
      const shownHost = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
      return {
        url: `http://${shownHost}:${port}${listenOptions.path ?? '/mcp'}`,
        port,
        get sessionCount() {
          return endpoint.sessionCount
        },
        close,
      }
    },
    httpHandler,
    serveStdio(stdioOptions = {}) {
      let instance: Server | undefined
      const handle = sdkServeStdio(
        ({ era }) => {
          instance = buildServer(sc, { era, kind: 'stdio' }, () => instance !== undefined && stdioServers.delete(instance))
          stdioServers.add(instance)
          return instance
        },
        {
          onerror: (error) => sc.report('stdio', error),
          ...(stdioOptions.stdin === undefined && stdioOptions.stdout === undefined ? {} : { transport: stdioTransport(stdioOptions) }),
        },
      )
      const close = async () => {
        closers.delete(close)
        if (instance !== undefined) stdioServers.delete(instance)
        await handle.close()
      }
      closers.add(close)
      return { close }
    },
    async close() {
      offChange()
      await Promise.allSettled([...closers].map((c) => c()))
    },
  }
  ctx.effect(() => () => server.close(), 'dsh-tool-mcp-server')
  return server
}

/** A stdio transport over the given streams (the process's own where one is not given). */
function stdioTransport(options: { readonly stdin?: NodeJS.ReadableStream; readonly stdout?: NodeJS.WritableStream }): StdioServerTransport {
  return new StdioServerTransport((options.stdin ?? process.stdin) as never, (options.stdout ?? process.stdout) as never)
}
