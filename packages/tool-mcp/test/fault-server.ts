/**
 * An in-process MCP server built on the SDK's low-level `Server`, for fault tests: raw JSON
 * Schemas, tools whose handlers the test scripts, and a record of what the server saw
 * (cancellations, progress tokens). Each `create()` is one connection (a linked in-memory pair),
 * so the bridge can reconnect to it.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type JSONRPCMessage, type Tool } from '@modelcontextprotocol/sdk/types.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'

/** What a scripted tool handler receives. */
export interface FaultCall {
  readonly args: Record<string, unknown>
  readonly signal: AbortSignal
  readonly progressToken: string | number | undefined
  /** Sends `notifications/progress` for this request. */
  progress(progress: number, total?: number, message?: string): Promise<void>
  /** Closes this connection from the server side (a crash, as the client sees it). */
  crash(): Promise<void>
  /** Sends a request to the client during this call; resolves with its result or its JSON-RPC error. */
  ask(method: string, params: Record<string, unknown>): Promise<{ readonly result?: unknown; readonly error?: { readonly code: unknown; readonly message: string } }>
}

/** A result schema that takes any object (for {@link FaultCall.ask}). */
const AnyResult = { safeParse: (data: unknown) => ({ success: true, data }) }

/** A scripted tool: its announcement plus a handler. */
export interface FaultTool extends Tool {
  readonly handler: (call: FaultCall) => CallToolResult | Promise<CallToolResult>
}

export class FaultServer {
  tools: FaultTool[]
  /** `{ tool, reason }` of every request the server saw cancelled (its handler's signal aborted). */
  readonly cancelled: { readonly tool: string; readonly reason: unknown }[] = []
  /** Connections opened (one per bridge connection attempt). */
  connections = 0
  /** Connections the server saw closed. */
  closes = 0
  /** The server side of the current connection. */
  current: Server | undefined
  /** `tools/list` requests the server answered. */
  listRequests = 0
  /** When set, answers each `tools/list` page (by the request's cursor) instead of listing {@link tools} at once. */
  paginate: ((cursor: string | undefined) => { readonly tools: readonly FaultTool[]; readonly nextCursor?: string }) | undefined
  /** When set, `create()` rejects with it (a server that fails to start). */
  refuse: Error | undefined

  constructor(tools: FaultTool[]) {
    this.tools = tools
  }

  /** The bridge's `create` for a `transport: 'custom'` server. */
  readonly create = async (): Promise<Transport> => {
    if (this.refuse !== undefined) throw this.refuse
    this.connections++
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    const send = serverSide.send.bind(serverSide)
    serverSide.send = (message, options) => send(onWire(message), options)
    const server = new Server({ name: 'fault-server', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } })
    server.setRequestHandler(ListToolsRequestSchema, (request) => {
      this.listRequests++
      const strip = (tools: readonly FaultTool[]) => tools.map(({ handler: _h, ...tool }) => tool)
      if (this.paginate === undefined) return { tools: strip(this.tools) }
      const page = this.paginate(request.params?.cursor)
      return { tools: strip(page.tools), ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }) }
    })
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const tool = this.tools.find((t) => t.name === request.params.name)
      if (tool === undefined) return { isError: true, content: [{ type: 'text', text: `no tool ${request.params.name}` }] }
      extra.signal.addEventListener('abort', () => this.cancelled.push({ tool: tool.name, reason: extra.signal.reason }), { once: true })
      const progressToken = request.params._meta?.progressToken
      return tool.handler({
        args: request.params.arguments ?? {},
        signal: extra.signal,
        progressToken,
        progress: (progress, total, message) =>
          progressToken === undefined
            ? Promise.resolve()
            : extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, ...(total === undefined ? {} : { total }), ...(message === undefined ? {} : { message }) } }),
        crash: () => serverSide.close(),
        ask: async (method, params) => {
          try {
            return { result: await extra.sendRequest({ method, params } as never, AnyResult as never) }
          } catch (error) {
            return { error: { code: (error as { code?: unknown }).code, message: (error as Error).message } }
          }
        },
      })
    })
    await server.connect(serverSide)
    server.onclose = () => void this.closes++
    this.current = server
    return clientSide
  }

  /** Replaces the tool list and tells the connected client (`notifications/tools/list_changed`). */
  async announce(tools: FaultTool[]): Promise<void> {
    this.tools = tools
    await this.current!.sendToolListChanged()
  }
}

/** The `_meta` key of a handler result whose value the server sends in place of the whole result ({@link wire}). */
const WIRE = 'fault/wire'

/**
 * A handler result that puts `raw` on the wire as the `tools/call` result, past the SDK server's
 * own result validation (which would turn a malformed result into a JSON-RPC error): the
 * server validates `{ content: [], _meta: { 'fault/wire': raw } }`, and the transport sends
 * `raw` instead.
 */
export function wire(raw: unknown): CallToolResult {
  return { content: [], _meta: { [WIRE]: raw } }
}

function onWire(message: JSONRPCMessage): JSONRPCMessage {
  if (!('result' in message)) return message
  const meta = (message.result as { _meta?: Record<string, unknown> })._meta
  return meta !== undefined && WIRE in meta ? ({ ...message, result: meta[WIRE] } as JSONRPCMessage) : message
}

/** A text result. */
export function text(value: string): CallToolResult {
  return { content: [{ type: 'text', text: value }] }
}

/** A tool with an empty-object input schema. */
export function tool(name: string, handler: FaultTool['handler'], extra: Partial<Tool> = {}): FaultTool {
  return { name, description: `${name} (fault server)`, inputSchema: { type: 'object', properties: {} }, ...extra, handler }
}

/** Resolves when `signal` aborts (a handler that hangs until cancelled). */
export function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }))
}

/** A one-shot signal between a test and a handler; `reset()` arms it again. */
export class Latch {
  private resolve!: () => void
  private promise!: Promise<void>
  constructor() {
    this.reset()
  }
  open(): void {
    this.resolve()
  }
  wait(): Promise<void> {
    return this.promise
  }
  reset(): void {
    this.promise = new Promise((resolve) => (this.resolve = resolve))
  }
}
