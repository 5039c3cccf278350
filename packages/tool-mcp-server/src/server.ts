/**
 * The SDK `Server` one client session (2025-11-25) or one request (2026-07-28) is served by:
 * `tools/list` from `resolve()` of the session's agent scope per request, and `tools/call`
 * through `ctx.tools.execute` — the full pipeline — with approvals and body input turned into
 * `input_required` rounds (which the SDK's legacy shim sends as real requests to 2025 clients).
 */
import type { Context } from 'cordis'
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  inputRequired,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type InputRequests,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server'
import { CallRun, digest, type ProgressParams, type SignedState } from './call-run'
import { registerCallInput, type McpClientView } from './input'
import type { McpAuthInfo, ResolvedOptions } from './options'
import { toCallResult } from './result'
import { openSession, type SessionHandle } from './session'
import { decodeCursor, encodeCursor, listedTool } from './tools-list'

let callSeq = 0

/** The cache hint of the always-empty prompt and resource lists. */
const EMPTY_LIST_HINT = { ttlMs: 0, cacheScope: 'public' } as const

/** What building a server needs from the served context. */
export interface ServeContext {
  readonly served: Context
  readonly options: ResolvedOptions
  readonly codec: RequestStateCodec<SignedState>
  /** Reports an error the server contained (a session hook's throw, a failed notification). */
  readonly report: (stage: string, error: unknown) => void
}

/** How a server instance finds its session. */
export interface ServerBinding {
  readonly era: 'legacy' | 'modern'
  readonly kind: 'http-session' | 'http-request' | 'stdio'
  readonly auth?: McpAuthInfo
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The client as the request declares it (2026-07-28 `_meta` envelope) or as it initialized (2025). */
function clientView(server: Server, reqCtx: ServerContext, era: 'legacy' | 'modern'): McpClientView {
  if (era === 'modern') {
    const env = (reqCtx.mcpReq.envelope ?? {}) as Record<string, unknown>
    const info = env[CLIENT_INFO_META_KEY]
    const caps = env[CLIENT_CAPABILITIES_META_KEY]
    return {
      protocolVersion: typeof env[PROTOCOL_VERSION_META_KEY] === 'string' ? (env[PROTOCOL_VERSION_META_KEY] as string) : '2026-07-28',
      ...(isObject(info) && typeof info.name === 'string' ? { clientInfo: { name: info.name, version: String(info.version ?? '') } } : {}),
      capabilities: isObject(caps) ? caps : {},
    }
  }
  const info = server.getClientVersion()
  return {
    protocolVersion: server.getNegotiatedProtocolVersion() ?? '2025-11-25',
    ...(info === undefined ? {} : { clientInfo: { name: info.name, version: info.version } }),
    capabilities: (server.getClientCapabilities() ?? {}) as Record<string, unknown>,
  }
}

/**
 * Builds the SDK server for one session (legacy) or one request (modern). The session opens at
 * the first request that needs it and closes with the server.
 */
export function buildServer(sc: ServeContext, binding: ServerBinding, onClose?: () => void): Server {
  const { served, options, codec } = sc
  const server = new Server(
    { name: options.name, version: options.version },
    {
      // Prompts and resources: always empty lists, so a client that asks finds nothing rather than an error.
      capabilities: { tools: { listChanged: true }, prompts: {}, resources: {} },
      ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
      cacheHints: { 'tools/list': options.listCacheHint, 'prompts/list': EMPTY_LIST_HINT, 'resources/list': EMPTY_LIST_HINT, 'resources/templates/list': EMPTY_LIST_HINT },
      requestState: { verify: (state, ctx) => codec.verify(state, ctx) },
    },
  )
  let session: Promise<SessionHandle> | undefined
  const sessionFor = (reqCtx: ServerContext): Promise<SessionHandle> => {
    // A 2026-07-28 request is its own session: the client may change between requests.
    // A session hook that threw is not remembered: the next request tries again.
    session ??= openSession(served, options, binding.kind, clientView(server, reqCtx, binding.era), binding.auth).catch((error: unknown) => {
      session = undefined
      throw error
    })
    return session
  }
  server.onclose = () => {
    const s = session
    session = undefined
    if (s !== undefined) void s.then((h) => h.dispose()).catch((error: unknown) => sc.report('session dispose', error))
    onClose?.()
  }

  server.setRequestHandler('prompts/list', () => ({ prompts: [] }))
  server.setRequestHandler('resources/list', () => ({ resources: [] }))
  server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: [] }))

  server.setRequestHandler('tools/list', async (request, reqCtx) => {
    const { agent } = (await sessionFor(reqCtx)).session
    const cursor = request.params?.cursor
    const offset = cursor === undefined ? 0 : decodeCursor(cursor)
    if (offset === undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid cursor ${JSON.stringify(cursor)}: not one this server issued`)
    const set = await served.tools.resolve({ agent, signal: reqCtx.mcpReq.signal })
    try {
      const schemas = served.tools.schemas(agent, set)
      const definitions = set.definitions
      const page = schemas.slice(offset, offset + options.pageSize).map((s, i) => listedTool(s, definitions[offset + i]!))
      const next = offset + options.pageSize
      return { tools: page, ...(next < schemas.length ? { nextCursor: encodeCursor(next) } : {}) }
    } finally {
      set.dispose()
    }
  })

  server.setRequestHandler('tools/call', async (request, reqCtx) => {
    const handle = await sessionFor(reqCtx)
    const { agent, client } = handle.session
    const name = request.params.name
    const args = request.params.arguments ?? {}
    const argsDigest = digest(args)
    const previous = reqCtx.mcpReq.requestState<SignedState>()
    if (previous !== undefined && (!isObject(previous) || previous.t !== name || previous.a !== argsDigest)) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid or expired requestState', { reason: 'invalid_request_state' })
    }
    const token = request.params._meta?.progressToken
    const send =
      token === undefined
        ? undefined
        : (progress: ProgressParams) => {
            reqCtx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, ...progress } }).catch((error: unknown) => sc.report('progress', error))
          }
    const answers = isObject(reqCtx.mcpReq.inputResponses) ? reqCtx.mcpReq.inputResponses : {}
    const run = new CallRun(name, binding.era === 'modern' ? clientView(server, reqCtx, 'modern') : client, answers, previous as SignedState | undefined, send)
    const callId = `mcp-call-${++callSeq}`
    const release = registerCallInput(callId, run.input)
    handle.runs.set(callId, run)
    try {
      const set = await served.tools.resolve({ agent, signal: reqCtx.mcpReq.signal })
      let result
      try {
        ;[result] = await served.tools.execute({ calls: [{ callId, name, arguments: args as Record<string, never> }], agent, toolSet: set, signal: reqCtx.mcpReq.signal })
      } finally {
        set.dispose()
      }
      if (run.unsupported !== undefined) {
        throw new ProtocolError(ProtocolErrorCode.MissingRequiredClientCapability, `Tool "${name}" needs the client capability "${run.unsupported}", which the client did not declare`, {
          requiredCapabilities: { [run.unsupported]: {} },
        })
      }
      if (run.needsInput) {
        return inputRequired({ inputRequests: run.requests as unknown as InputRequests, requestState: await codec.mint(run.nextState(argsDigest), reqCtx) })
      }
      return toCallResult(result!, served.tools.get(name, agent) ?? undefined) as never
    } finally {
      handle.runs.delete(callId)
      release()
    }
  })
  return server
}
