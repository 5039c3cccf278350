/**
 * The bridge: one {@link McpServerConnection} per configured server, their tool groups in the
 * registry, the status API, progress routing, and disposal with the owning fiber.
 */
import type { Context } from 'cordis'
import { describeThrown, type ToolExecution, assertSupportedCordis } from '@deepseek-ai/dsh-tools'
import { checkBridgeOptions, resolveBridgeConfig, type McpBridgeConfig, type ResolvedBridgeConfig } from './config'
import { approvalFor } from './requests'
import { forwardProgress, type McpProgress, type McpProgressEvent } from './progress'
import { McpServerConnection, McpToolNameCollisionError, type McpServerStatus, type ServerHost } from './server'

/** The plugin's name (its fiber and logger name). */
export const MCP_BRIDGE_NAME = 'dsh-tool-mcp'

/** Callbacks beside the `mcp/status` and `mcp/progress` events. */
export interface McpBridgeOptions {
  /** Every progress notification of every call, after the pipeline's progress API. A throw is logged. */
  readonly onProgress?: (event: McpProgressEvent) => void
  /** Every status change of every server. A throw is logged. */
  readonly onStatus?: (status: McpServerStatus) => void
}

/** Events the bridge emits on the context it was created on. */
export interface McpEvents {
  /** A server's state, tools or last error changed. */
  'mcp/status'(status: McpServerStatus): void
  /** A running call reported progress. */
  'mcp/progress'(event: McpProgressEvent): void
}

declare module 'cordis' {
  interface Events extends McpEvents {}
}

/**
 * A running bridge. Create it with {@link createMcpBridge} (or load {@link McpPlugin}); it closes
 * with the fiber of the context it was created on, or earlier through {@link McpBridge.close}.
 */
export class McpBridge {
  private readonly ctx: Context
  private readonly config: ResolvedBridgeConfig
  private readonly servers = new Map<string, McpServerConnection>()
  /** Registered name → `{ server, tool }` across every server of the bridge. */
  private readonly claims = new Map<string, { readonly server: string; readonly tool: string }>()
  private readonly options: McpBridgeOptions
  private closing: Promise<void> | undefined
  /** Settles when every server's first connection attempt has (each `ready`, `reconnecting` or `failed`). */
  readonly ready: Promise<void>

  /** @throws McpConfigError for an invalid config (see `resolveBridgeConfig`) or callback (see `checkBridgeOptions`). */
  constructor(ctx: Context, config: McpBridgeConfig, options: McpBridgeOptions = {}) {
    this.ctx = ctx
    this.config = resolveBridgeConfig(config)
    // The plugin passes its config as the options too; its keys were checked just now.
    this.options = options = checkBridgeOptions(options, options === (config as unknown))
    const logger = ctx.logger(MCP_BRIDGE_NAME)
    // cordis keeps a listener list per event name and deletes it when its last listener goes.
    const hooks = ctx.root.events._hooks
    const host: ServerHost = {
      separator: this.config.separator,
      clientInfo: this.config.clientInfo,
      claim: (server, names) => this.claim(server, names),
      status: (status) => this.emit('mcp/status', status, options.onStatus),
      progressObserved: () => options.onProgress !== undefined || (hooks['mcp/progress']?.length ?? 0) > 0 || (hooks['tools/progress']?.length ?? 0) > 0,
      progress: (exec, server, tool, update) => this.progress(exec, server, tool, update),
      warn: (message) => logger.warn(message),
      debug: (message) => logger.debug(message),
      approval: (exec) => approvalFor(ctx.tools, exec.scope),
    }
    for (const server of this.config.servers) {
      const group = ctx.tools.registerGroup([])
      this.servers.set(server.name, new McpServerConnection(server, host, group))
    }
    this.ready = Promise.all([...this.servers.values()].map((s) => s.start())).then(() => undefined)
  }

  /** Every server's snapshot, in config order. */
  status(): McpServerStatus[] {
    return [...this.servers.values()].map((s) => s.status())
  }

  /** One server's snapshot, or `undefined` for an unknown name. */
  server(name: string): McpServerStatus | undefined {
    return this.servers.get(name)?.status()
  }

  /**
   * Reconnects `name` now (after `failed`, or without waiting for a pending backoff); its tools
   * are re-listed and swapped in one step. Resolves when the attempt settled (see {@link status}).
   *
   * @throws RangeError for a name the bridge does not know.
   */
  async reconnect(name: string): Promise<void> {
    const server = this.servers.get(name)
    if (server === undefined) throw new RangeError(`MCP bridge: no server named "${name}" (known: ${[...this.servers.keys()].join(', ') || 'none'})`)
    await server.reconnect()
  }

  /** Closes every client (ending stdio children) and stops retries; idempotent. Calls in flight fail with `MCP_CONNECTION_CLOSED`. */
  close(): Promise<void> {
    this.closing ??= Promise.all([...this.servers.values()].map((s) => s.close())).then(() => undefined)
    return this.closing
  }

  private claim(server: string, names: ReadonlyMap<string, string>): void {
    for (const [name, tool] of names) {
      const other = this.claims.get(name)
      if (other !== undefined && other.server !== server) {
        throw new McpToolNameCollisionError(
          `Cannot register MCP tool "${tool}" of server "${server}" as "${name}": server "${other.server}" already registered its tool "${other.tool}" under that name. Give one server another prefix (servers[].prefix) or change the separator.`,
          { toolName: name },
        )
      }
    }
    for (const [name, owner] of [...this.claims]) if (owner.server === server) this.claims.delete(name)
    for (const [name, tool] of names) this.claims.set(name, { server, tool })
  }

  private progress(exec: ToolExecution, server: string, tool: string, update: McpProgress): void {
    try {
      forwardProgress(exec, update)
    } catch (error) {
      this.ctx.logger(MCP_BRIDGE_NAME).warn(`a progress listener threw: ${describeThrown(error)}`)
    }
    this.emit('mcp/progress', Object.freeze({ server, tool, callId: exec.callId, ...update }), this.options.onProgress)
  }

  private emit<K extends keyof McpEvents>(name: K, payload: Parameters<McpEvents[K]>[0], callback: ((payload: never) => void) | undefined): void {
    try {
      ;(this.ctx.emit as (name: string, payload: unknown) => void)(name, payload)
      ;(callback as ((payload: unknown) => void) | undefined)?.(payload)
    } catch (error) {
      this.ctx.logger(MCP_BRIDGE_NAME).warn(`a ${name} listener threw: ${describeThrown(error)}`)
    }
  }
}

/**
 * Starts a bridge on `ctx` (tools register in `ctx`'s scope, owned by its fiber), waits for
 * every server's first connection attempt, and returns it. Disposing `ctx`'s fiber closes it.
 * A server that fails to start is reported (`status()`, `mcp/status`, the logger) and retried
 * if configured; it never makes this reject.
 *
 * Start also fails with a `CordisVersionError` (`UNSUPPORTED_CORDIS`) outside cordis
 * `>=4.0.0-rc.10 <5`, naming the version found (`assertSupportedCordis` of `@deepseek-ai/dsh-tools`).
 *
 * @throws McpConfigError for an invalid config, or an `onProgress` / `onStatus` that is not a
 *   function (or an unknown key in `options`).
 */
export async function createMcpBridge(ctx: Context, config: McpBridgeConfig, options?: McpBridgeOptions): Promise<McpBridge> {
  assertSupportedCordis(ctx, 'createMcpBridge')
  const bridge = new McpBridge(ctx, config, options)
  ctx.effect(() => () => bridge.close(), 'dsh-tool-mcp bridge')
  await bridge.ready
  return bridge
}

/** The plugin's config: the bridge config plus the optional callbacks. */
export interface McpPluginConfig extends McpBridgeConfig, McpBridgeOptions {}

/**
 * The bridge as a cordis plugin: `await ctx.plugin(McpPlugin, { servers: [...] })` mounts the
 * servers' tools in `ctx`'s scope and resolves once every server's first attempt settled;
 * disposing the plugin closes every client and ends every stdio child. Use
 * {@link createMcpBridge} instead when you need the status API object. Plugin start fails with
 * {@link McpConfigError} for an invalid config; a server that cannot connect does not fail it
 * (see `createMcpBridge`).
 * Start also fails with a `CordisVersionError` (`UNSUPPORTED_CORDIS`) outside cordis
 * `>=4.0.0-rc.10 <5`, naming the version found (`assertSupportedCordis` of `@deepseek-ai/dsh-tools`).
 */
export const McpPlugin: {
  readonly name: typeof MCP_BRIDGE_NAME
  readonly inject: ['tools']
  apply(ctx: Context, config: McpPluginConfig): Promise<void>
} = Object.freeze({
  name: MCP_BRIDGE_NAME,
  inject: ['tools'] as ['tools'],
  async apply(ctx: Context, config: McpPluginConfig): Promise<void> {
    assertSupportedCordis(ctx, 'McpPlugin')
    await createMcpBridge(ctx, config, config)
  },
})
