/**
 * One MCP server: its SDK client and transport, its tool group in the registry, its state, and
 * reconnection with backoff. A failure here never reaches another server.
 */
import { Client, ProtocolError, SdkError, SdkErrorCode, StreamableHTTPClientTransport, type CallToolResult, type ClientOptions, type ListToolsResult, type Tool, type Transport } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { describeThrown, quoteText, ToolError, ToolRegistrationError, type AnyToolDefinition, type ApprovalService, type JsonObject, type JsonValue, type ToolExecution, type ToolGroup } from '@deepseek-ai/dsh-tools'
import type { ResolvedServerConfig } from './config'
import { CallLinks, type LinkedCall } from './call'
import { DirectCall, DirectCalls, type DirectProgress } from './direct'
import { registeredName, toDefinition, unregistrable, type McpCallTarget } from './definition'
import { CALL_TOOL_RESULT, checkCallToolResult, MalformedCallToolResult } from './result'
import { headerDeclarationProblem } from './headers'
import { answerElicitation, callInProgress, clientCapabilities, type RequestRoute } from './requests'
import type { McpProgress } from './progress'
import { createTransport, StderrTail, traceTransport, withCause } from './transport'

/**
 * A server's state: `connecting` (first attempt), `ready`, `reconnecting` (waiting for or making
 * a retry), `failed` (no retry left; its tools are unregistered), `closed` (the bridge was disposed).
 */
export type McpServerState = 'connecting' | 'ready' | 'reconnecting' | 'failed' | 'closed'

/** A tool the server listed that the bridge could not register, and why. */
export interface McpSkippedTool {
  readonly tool: string
  readonly reason: string
}

/** A snapshot of one server (the bridge's status API and the `mcp/status` event). */
export interface McpServerStatus {
  readonly name: string
  readonly transport: 'stdio' | 'http' | 'custom'
  readonly state: McpServerState
  /** Registered tool names, in the server's order. Empty unless the server is or was ready. */
  readonly tools: readonly string[]
  readonly skipped: readonly McpSkippedTool[]
  /** Failed connection attempts since the server was last ready. */
  readonly attempts: number
  /**
   * The last connection, listing or registration failure, saying why: `could not connect: <the
   * attempt's error>` (with its cause, and the stdio child's last stderr line when it wrote one),
   * or `closed the connection` for a connection lost after the server was ready.
   */
  readonly lastError?: string
  /** `serverInfo` from `initialize` (2025 line) or `server/discover` (2026-07-28). */
  readonly serverInfo?: { readonly name: string; readonly version: string }
  /** The protocol revision the connection speaks (`2026-07-28`, `2025-11-25`, `2025-06-18`, …) while connected. */
  readonly protocolVersion?: string
  /** The stdio child's process id while it runs. */
  readonly pid?: number
  /** Calls sent and not yet settled. */
  readonly inFlight: number
}

/** What a server needs from its bridge. */
export interface ServerHost {
  readonly separator: string
  readonly clientInfo: { readonly name: string; readonly version: string }
  /** Claims registered names for `server`; throws naming both servers on a clash. */
  claim(server: string, names: ReadonlyMap<string, string>): void
  status(status: McpServerStatus): void
  /** Whether a call's progress has somewhere to go now (see `McpServerCommonConfig.progress`). */
  progressObserved(): boolean
  progress(exec: ToolExecution, server: string, tool: string, update: McpProgress): void
  warn(message: string): void
  debug(message: string): void
  /** The approval service for a call's server requests (see `requests.ts`). */
  approval(exec: ToolExecution): ApprovalService | undefined
}

/**
 * A clash of registered names between two servers of one bridge (a {@link ToolRegistrationError};
 * its `toolName` is the clashing name). It is not thrown to the caller of `createMcpBridge`: the
 * later server goes to state `failed` without retrying (a name clash does not heal), its message
 * becomes that server's `lastError` (`Cannot register MCP tool "t" of server "b" as "n": server
 * "a" already registered its tool "u" under that name. …`), and the first server keeps the name.
 */
export class McpToolNameCollisionError extends ToolRegistrationError {}

/**
 * The most pages one `tools/list` listing may take (each page one request). A server past it is
 * marked `failed` with a {@link McpToolListError}; so is one that sends a `nextCursor` it already
 * sent in the same listing (a repeated cursor or a cycle).
 */
export const MAX_TOOL_LIST_PAGES = 1000

/**
 * A `tools/list` listing that does not end (see {@link MAX_TOOL_LIST_PAGES}). It is not thrown to
 * a caller: the server goes to state `failed` without retrying (a retry would list the same way),
 * with this message as its `lastError`: `MCP server "s": tools/list sent the cursor "c" again
 * after 2 pages (a listing that never ends); the server is marked failed`.
 */
export class McpToolListError extends Error {
  override readonly name = 'McpToolListError'
}

const ignore = (): void => undefined

/** The call whose promise {@link settleExecutor} is making (set just before `new Promise`). */
let making: McpCall | undefined

/** One executor for every call's promise (no closure per call): hands the promise's functions to {@link making}. */
function settleExecutor(resolve: (value: JsonValue) => void, reject: (error: unknown) => void): void {
  const call = making!
  call.resolve = resolve
  call.reject = reject
}

/** One `tools/call` on the direct path (see `direct.ts`): what the connection needs to settle it. */
class McpCall extends DirectCall {
  /** The promise's functions, set by {@link settleExecutor} in {@link promise}. */
  resolve: (value: JsonValue) => void = ignore
  reject: (error: unknown) => void = ignore

  constructor(
    readonly connection: McpServerConnection,
    readonly target: McpCallTarget,
    readonly exec: ToolExecution,
    watched: boolean,
  ) {
    super(watched)
  }

  /** This call's promise (made once). */
  promise(): Promise<JsonValue> {
    making = this
    const promise = new Promise<JsonValue>(settleExecutor)
    making = undefined
    return promise
  }

  settled(result: CallToolResult | undefined, error: unknown): void {
    this.connection.directSettled(this, result, error)
  }

  progressed(update: DirectProgress): void {
    this.connection.directProgress(this, update)
  }
}

/**
 * One configured server of a bridge (internal; the bridge's status API is the public face): owns
 * the SDK client and transport, the server's tool group, its state and its retry timer.
 * `start()` and `reconnect()` never throw; a call fails with a `ToolError` of code
 * `MCP_SERVER_UNAVAILABLE`, `MCP_CONNECTION_CLOSED`, `MCP_REQUEST_TIMEOUT`, `MCP_PROTOCOL_ERROR`
 * or `MCP_TRANSPORT_ERROR` (see `callError`), or with the pipeline's own abort reason.
 */
export class McpServerConnection {
  readonly config: ResolvedServerConfig
  private readonly host: ServerHost
  private readonly group: ToolGroup
  private state: McpServerState = 'connecting'
  private client: Client | undefined
  /** The client of the attempt in progress until it is ready: its failure is the attempt's to report (see `lost`). */
  private attempting: Client | undefined
  private transport: Transport | undefined
  /** Whether the connection speaks the 2026-07-28 line (set once connected). */
  private modern = false
  /** The `tools/call` channel of the connected transport (see `direct.ts`); `undefined`: calls go through the SDK's `Protocol.request`. */
  private direct: DirectCalls | undefined
  private closed = false
  private attempts = 0
  private retryTimer: ReturnType<typeof setTimeout> | undefined
  private lastError: string | undefined
  private skipped: readonly McpSkippedTool[] = []
  /** By the server's tool name: the tool as listed (JSON) and its definition. */
  private entries = new Map<string, { readonly json: string; readonly definition: AnyToolDefinition }>()
  private refreshing: Promise<void> = Promise.resolve()
  /** The stdio child's last stderr lines (each also logged at debug level). */
  private readonly stderr: StderrTail
  private inFlight = 0
  private readonly links = new CallLinks()
  private readonly caller = (target: McpCallTarget, args: JsonObject, exec: ToolExecution): Promise<JsonValue> => this.call(target, args, exec)
  /** The latest call sent (for {@link RequestRoute.soleCall}: the only call in flight when `inFlight` is 1). */
  private lastCall: ToolExecution | undefined
  private route: RequestRoute = {
    server: '',
    soleCall: () => (this.inFlight === 1 ? this.lastCall : undefined),
    approval: (exec) => this.host.approval(exec),
    debug: (message) => this.host.debug(message),
  }

  constructor(config: ResolvedServerConfig, host: ServerHost, group: ToolGroup) {
    this.config = config
    this.host = host
    this.group = group
    this.stderr = new StderrTail((line) => host.debug(`[${config.name} stderr] ${line}`))
    this.route = { ...this.route, server: config.name }
  }

  /** The current snapshot. */
  status(): McpServerStatus {
    const pid = this.transport instanceof StdioClientTransport ? this.transport.pid : null
    const info = this.client?.getServerVersion()
    const version = this.state === 'ready' ? this.client?.getNegotiatedProtocolVersion() : undefined
    return Object.freeze({
      name: this.config.name,
      transport: this.config.kind,
      state: this.state,
      tools: this.group.names,
      skipped: this.skipped,
      attempts: this.attempts,
      ...(this.lastError === undefined ? {} : { lastError: this.lastError }),
      ...(info === undefined ? {} : { serverInfo: Object.freeze({ name: info.name, version: info.version }) }),
      ...(version === undefined ? {} : { protocolVersion: version }),
      ...(pid === null ? {} : { pid }),
      inFlight: this.inFlight,
    })
  }

  private setState(state: McpServerState): void {
    this.state = state
    this.host.status(this.status())
  }

  /** Connects (first attempt); never throws — a failure becomes state and a retry if configured. */
  async start(): Promise<void> {
    await this.connect()
  }

  /** Reconnects now (after `failed`, or to skip a pending backoff). Resolves when the attempt settled. */
  async reconnect(): Promise<void> {
    if (this.closed) return
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer)
    this.retryTimer = undefined
    await this.dropClient()
    this.attempts = 0
    await this.connect()
  }

  private async connect(): Promise<void> {
    if (this.closed) return
    this.setState(this.attempts === 0 && this.state === 'connecting' ? 'connecting' : 'reconnecting')
    let client: Client | undefined
    try {
      const transport = await createTransport(this.config, this.host.clientInfo.name, this.stderr)
      const own: Client = (client = new Client({ name: this.host.clientInfo.name, version: this.host.clientInfo.version }, this.clientOptions(() => this.scheduleRefresh(own))))
      client.onerror = (error) => this.host.debug(`MCP server "${this.config.name}": ${describeThrown(error)}`)
      client.onclose = () => this.lost(own)
      client.setRequestHandler('elicitation/create', (request, context) => answerElicitation(this.route, request, context.mcpReq.signal))
      this.client = client
      this.transport = transport
      this.attempting = client
      await client.connect(transport, { timeout: this.config.requestTimeoutMs })
      if (this.closed) return
      // The direct path speaks the 2025 line's `tools/call`; a 2026-07-28 connection calls through
      // the SDK (per-request `_meta`, header mirroring, `input_required` rounds).
      this.modern = client.getProtocolEra() === 'modern'
      if (client === this.client && this.config.directCalls && !this.modern) this.direct = DirectCalls.attach(transport, this.config.requestTimeoutMs)
      if (this.config.trace !== undefined) traceTransport(transport, this.config.trace)
      await this.refresh(client)
      this.attempting = undefined
      this.attempts = 0
      this.lastError = undefined
      this.setState('ready')
    } catch (error) {
      if (this.attempting === client) this.attempting = undefined
      // Closed meanwhile, or replaced by another attempt (`reconnect`).
      if (this.closed || (client !== undefined && this.client !== client)) return
      await this.dropClient()
      const final = error instanceof ToolRegistrationError || error instanceof McpToolListError
      this.failed(final ? error.message : `could not connect: ${withCause(error)}${this.stderr.hint()}`, !final)
    }
  }

  /** The SDK client's options: the protocol line (`protocol`), the bridge's capabilities, list-change delivery in both eras. */
  private clientOptions(changed: () => void): ClientOptions {
    const protocol = this.config.protocol
    return {
      capabilities: clientCapabilities(),
      versionNegotiation: protocol === 'legacy' ? { mode: 'legacy' } : protocol === 'auto' ? { mode: 'auto' } : { mode: { pin: protocol } },
      // `notifications/tools/list_changed` (2025 line) and the `subscriptions/listen` stream (2026-07-28) both land here.
      listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: changed } },
      // The bridge walks the pages itself (see `refresh`), with its own cap and cycle check.
      listMaxPages: 0,
    }
  }

  /** Records a failure; schedules a retry when configured and allowed, otherwise unregisters the tools. */
  private failed(message: string, retryable: boolean): void {
    this.lastError = message
    this.attempts++
    const retry = this.config.retry
    if (retryable && retry !== undefined && this.attempts <= retry.maxAttempts) {
      const delay = Math.min(retry.maxDelayMs, retry.initialDelayMs * 2 ** (this.attempts - 1))
      this.host.warn(`MCP server "${this.config.name}" ${message}; retry ${this.attempts} in ${delay}ms`)
      this.retryTimer = setTimeout(() => {
        this.retryTimer = undefined
        void this.connect()
      }, delay)
      this.setState('reconnecting')
      return
    }
    this.host.warn(`MCP server "${this.config.name}" ${message}`)
    this.uninstall()
    this.setState('failed')
  }

  private uninstall(): void {
    try {
      this.group.replace([])
    } catch (error) {
      this.host.warn(`MCP server "${this.config.name}": unregistering its tools failed: ${describeThrown(error)}`)
    }
    this.host.claim(this.config.name, new Map())
    this.entries = new Map()
  }

  /**
   * The transport closed under a live client (the server exited or the connection dropped). Not
   * during a connection attempt: the SDK closes the transport when `connect` fails (an HTTP 401,
   * a refused connection, a stdio child that exits at once), and the attempt's own error, which
   * says why, is reported by `connect`.
   */
  private lost(client: Client): void {
    if (this.closed || client !== this.client || client === this.attempting) return
    this.client = undefined
    this.transport = undefined
    this.direct = undefined
    this.failed(`closed the connection${this.stderr.hint()}`, true)
  }

  private async dropClient(): Promise<void> {
    const client = this.client
    const transport = this.transport
    const direct = this.direct
    this.client = undefined
    this.transport = undefined
    this.direct = undefined
    if (transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined) {
      // Ends the server's session (HTTP DELETE); a server that does not support it answers 405.
      await transport.terminateSession().catch((error: unknown) => this.host.debug(`MCP server "${this.config.name}": ending the HTTP session failed: ${describeThrown(error)}`))
    }
    if (client !== undefined) await client.close().catch((error: unknown) => this.host.debug(`MCP server "${this.config.name}": close failed: ${describeThrown(error)}`))
    else if (transport !== undefined) await transport.close().catch(() => undefined)
    // The transport's close fails the direct calls in flight; a transport that never reports its close still loses its calls and timer here.
    direct?.close()
  }

  private scheduleRefresh(client: Client): void {
    this.refreshing = this.refreshing
      .then(() => (client === this.client && !this.closed ? this.refresh(client) : undefined))
      .then(
        () => this.host.status(this.status()),
        async (error: unknown) => {
          if (error instanceof McpToolListError && client === this.client && !this.closed) {
            await this.dropClient()
            this.failed(error.message, false)
            return
          }
          this.lastError = `re-listing tools after list_changed failed: ${describeThrown(error)}`
          this.host.warn(`MCP server "${this.config.name}" ${this.lastError}; its previous tools stay registered`)
          this.host.status(this.status())
        },
      )
  }

  /**
   * Lists every page of tools and swaps the server's registrations in one step. A listing that
   * does not end — a `nextCursor` the listing already sent (the same cursor again, or a cycle),
   * or more than {@link MAX_TOOL_LIST_PAGES} pages — throws {@link McpToolListError}.
   */
  private async refresh(client: Client): Promise<void> {
    const tools: Tool[] = []
    const seen = new Set<string>()
    let cursor: string | undefined
    let pages = 0
    do {
      const page: ListToolsResult = await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, { timeout: this.config.requestTimeoutMs })
      pages++
      tools.push(...page.tools)
      cursor = page.nextCursor
      if (cursor === undefined) break
      if (seen.has(cursor)) throw new McpToolListError(`MCP server "${this.config.name}": tools/list sent the cursor ${quoteText(cursor)} again after ${pages} pages (a listing that never ends); the server is marked failed`)
      if (pages >= MAX_TOOL_LIST_PAGES) throw new McpToolListError(`MCP server "${this.config.name}": tools/list went past ${MAX_TOOL_LIST_PAGES} pages (${tools.length} tools so far) without ending; the server is marked failed`)
      seen.add(cursor)
    } while (true)
    if (client !== this.client || this.closed) return
    this.install(tools)
  }

  private install(tools: readonly Tool[]): void {
    const entries = new Map<string, { readonly json: string; readonly definition: AnyToolDefinition }>()
    const names = new Map<string, string>()
    const skipped: McpSkippedTool[] = []
    for (const tool of tools) {
      const name = registeredName(this.config, this.host.separator, tool.name)
      const json = JSON.stringify(tool)
      const previous = this.entries.get(tool.name)
      if (previous !== undefined && previous.json === json) {
        entries.set(tool.name, previous)
        names.set(name, tool.name)
        continue
      }
      const problem = unregistrable(name, tool) ?? (this.modern && this.transport instanceof StreamableHTTPClientTransport ? headerDeclarationProblem(tool.inputSchema) : undefined)
      if (problem !== undefined) {
        skipped.push({ tool: tool.name, reason: problem })
        this.host.warn(`MCP server "${this.config.name}": tool ${quoteText(tool.name)} not registered: ${problem}`)
        continue
      }
      entries.set(tool.name, { json, definition: toDefinition(this.config, name, tool, this.caller) })
      names.set(name, tool.name)
    }
    this.host.claim(this.config.name, names)
    try {
      this.group.replace([...entries.values()].map((e) => e.definition))
    } catch (error) {
      this.host.claim(this.config.name, new Map([...this.entries.keys()].map((t) => [registeredName(this.config, this.host.separator, t), t])))
      throw error
    }
    this.entries = entries
    this.skipped = Object.freeze(skipped)
  }

  /**
   * One `tools/call`, settled through `target.settle`; see the package README for the error
   * codes. Sent on the direct path (`direct.ts`) when the connection has one, otherwise through
   * the SDK's `Protocol.request`; either way a {@link LinkedCall} per call carries cancellation
   * (see `call.ts`), and the result is checked in one pass (`result.ts`), so a malformed result
   * fails this call with `MCP_PROTOCOL_ERROR` naming the tool and the field.
   */
  private call(target: McpCallTarget, args: JsonObject, exec: ToolExecution): Promise<JsonValue> {
    const client = this.client
    if (client === undefined || this.state !== 'ready') {
      return Promise.reject(new ToolError('MCP_SERVER_UNAVAILABLE', `MCP server "${this.config.name}" is not connected (${this.state})${this.lastError === undefined ? '' : `: ${this.lastError}`}`))
    }
    const caller = exec.signal
    if (caller.aborted) return Promise.reject(caller.reason as unknown)
    const watched = this.config.progress === 'always' || this.host.progressObserved()
    this.lastCall = exec
    const direct = this.direct
    if (direct !== undefined) {
      const call = new McpCall(this, target, exec, watched)
      const promise = call.promise()
      this.links.add(caller, call)
      this.inFlight++
      callInProgress.run(exec, () => direct.send(call, target.tool, args))
      return promise
    }
    return callInProgress.run(exec, () => this.sdkCall(client, target, args, exec, watched))
  }

  /** A direct call settled (see `direct.ts`): it is no longer in flight; settles its promise as {@link sdkCall} would. */
  directSettled(call: McpCall, result: CallToolResult | undefined, error: unknown): void {
    const caller = call.exec.signal
    this.inFlight--
    this.links.unlink(caller, call)
    if (result !== undefined) {
      let value: JsonValue
      try {
        value = call.target.settle(result, call.exec)
      } catch (thrown) {
        call.reject(thrown)
        return
      }
      call.resolve(value)
      return
    }
    // Cancelled: settle with the pipeline's own reason (ABORTED, or TOOL_TIMEOUT from the policy).
    call.reject(caller.aborted ? caller.reason : this.callError(call.target.tool, error))
  }

  /** A progress update of a direct call whose progress is watched. */
  directProgress(call: McpCall, update: DirectProgress): void {
    this.host.progress(call.exec, this.config.name, call.target.registered, update)
  }

  /**
   * One `tools/call` through the SDK (see {@link call}): on a 2026-07-28 connection through
   * `client.callTool` (per-request `_meta`, `Mcp-Param-*` header mirroring from the listed
   * definition, `input_required` rounds), its result checked by `checkCallToolResult` after;
   * on a 2025-line connection through `client.request` with the bridge's one-pass result check as
   * the result schema. The SDK removes its abort listener from `exec.signal` when the request settles.
   */
  private sdkCall(client: Client, target: McpCallTarget, args: JsonObject, exec: ToolExecution, watched: boolean): Promise<JsonValue> {
    const caller = exec.signal
    this.inFlight++
    const timeout = this.config.requestTimeoutMs
    const options = watched
      ? {
          signal: caller,
          timeout,
          resetTimeoutOnProgress: true,
          onprogress: (p: { progress: number; total?: number; message?: string }) => this.host.progress(exec, this.config.name, target.registered, { progress: p.progress, ...(p.total === undefined ? {} : { total: p.total }), ...(p.message === undefined ? {} : { message: p.message }) }),
        }
      : { signal: caller, timeout }
    const request: Promise<CallToolResult> = this.modern
      ? client.callTool({ name: target.tool, arguments: args }, { ...options, toolDefinition: target.announced }).then((result) => {
          const problem = checkCallToolResult(result)
          if (problem !== undefined) throw new MalformedCallToolResult(problem)
          return result
        })
      : client.request({ method: 'tools/call', params: { name: target.tool, arguments: args } }, CALL_TOOL_RESULT, options)
    return request.then(
      (result) => {
        this.inFlight--
        return target.settle(result, exec)
      },
      (error: unknown) => {
        this.inFlight--
        // Cancelled: settle with the pipeline's own reason (ABORTED, or TOOL_TIMEOUT from the policy).
        if (caller.aborted) throw caller.reason
        throw this.callError(target.tool, error)
      },
    )
  }

  private callError(tool: string, error: unknown): ToolError {
    const server = `MCP server "${this.config.name}"`
    if (error instanceof SdkError) {
      if (error.code === SdkErrorCode.ConnectionClosed) return new ToolError('MCP_CONNECTION_CLOSED', `${server} closed the connection during the call to "${tool}"${this.stderr.hint()}`, { cause: error })
      if (error.code === SdkErrorCode.RequestTimeout) return new ToolError('MCP_REQUEST_TIMEOUT', `${server} did not answer the call to "${tool}" within ${this.config.requestTimeoutMs}ms`, { cause: error })
      if (error.code === SdkErrorCode.InvalidResult || error.code === SdkErrorCode.UnsupportedResultType || error.code === SdkErrorCode.InputRequiredRoundsExceeded) return new ToolError('MCP_PROTOCOL_ERROR', `${server} sent an unusable result for "${tool}": ${error.message}`, { cause: error })
    }
    if (error instanceof ProtocolError) return new ToolError('MCP_PROTOCOL_ERROR', `${server} rejected the call to "${tool}": ${error.message} (JSON-RPC error ${error.code})`, { cause: error })
    if (error instanceof MalformedCallToolResult) return new ToolError('MCP_PROTOCOL_ERROR', `${server} sent a malformed result for "${tool}": ${error.problem}`, { cause: error })
    return new ToolError('MCP_TRANSPORT_ERROR', `${server}: the call to "${tool}" failed in transport: ${describeThrown(error)}`, { cause: error })
  }

  /** Stops retrying, closes the client (ending a stdio child) and unregisters nothing (the group goes with the bridge). */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer)
    this.retryTimer = undefined
    await this.dropClient()
    this.state = 'closed'
    this.host.status(this.status())
  }
}
