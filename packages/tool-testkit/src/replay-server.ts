/**
 * A local HTTP server that replays recorded model-API responses — JSON bodies and SSE streams —
 * so the official SDK clients (`openai`, `@anthropic-ai/sdk`, `@google/genai`, …) can be pointed
 * at it with their `baseURL` option and run for real with no network. It listens on 127.0.0.1
 * only (an ephemeral port), answers requests in order from a script, and records every request
 * (method, path, headers, parsed JSON body) so a test can assert what the client sent.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { JsonValue } from '@deepseek-ai/dsh-tools'

/** One SSE event: `data` (JSON, or a raw string such as `[DONE]`) and an optional `event:` name. */
export interface ReplaySseEvent {
  readonly event?: string
  readonly data: JsonValue
}

/**
 * One scripted answer:
 * - `json`: a JSON body with `status` (default 200);
 * - `sse`: `text/event-stream` with one `data:` line per event. `namedEvents: true` adds an
 *   `event: <data.type>` line to each object event that has a string `type` (Anthropic's and
 *   the Responses API's framing); `done: true` ends with `data: [DONE]` (Chat Completions).
 *   A stream cut mid-way is simply a script whose events stop early.
 */
export type ReplayResponse =
  | { readonly kind: 'json'; readonly status?: number; readonly body: JsonValue }
  | {
      readonly kind: 'sse'
      readonly events: readonly (JsonValue | ReplaySseEvent)[]
      readonly namedEvents?: boolean
      readonly done?: boolean
      /**
       * Awaited before event `index` is written (0-based; `events.length` before the closing
       * `[DONE]` and the end of the body): a test holds the stream at a chosen point with it. The
       * stream stops when the client has gone (it aborted) by then. A gate that rejects ends the
       * body there, as a cut connection. Absent: every event is written at once.
       */
      readonly beforeEvent?: (index: number) => void | Promise<void>
    }

/** A request the server received; `body` is the parsed JSON (or the raw text when not JSON, `undefined` when empty). */
export interface RecordedRequest {
  readonly method: string
  /** Path and query, e.g. `/v1/chat/completions` or `/v1beta/models/m:streamGenerateContent?alt=sse`. */
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: JsonValue | undefined
}

/** A running replay server. */
export interface ReplayServer {
  /** `http://127.0.0.1:<port>`: pass it (plus the API's path prefix) as the client's base URL. */
  readonly origin: string
  /** Every request so far, in arrival order. */
  readonly requests: readonly RecordedRequest[]
  /** How many scripted answers are left. */
  readonly remaining: number
  /** Stops listening and closes open connections; resolves when the server is closed. */
  close(): Promise<void>
}

/**
 * Starts a replay server answering the n-th request with `script[n]` (or with
 * `script(request, n)` when it is a function). A request beyond the script gets HTTP 500 with
 * `{ error: { message: "replay script exhausted after N responses" } }`.
 */
export async function startReplayServer(script: readonly ReplayResponse[] | ((request: RecordedRequest, index: number) => ReplayResponse)): Promise<ReplayServer> {
  const requests: RecordedRequest[] = []
  const server = createServer((req, res) => {
    void answer(req, res)
  })
  const answer = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const text = Buffer.concat(chunks).toString('utf8')
    const headers: Record<string, string> = {}
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers[name] = value
    const request: RecordedRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers, body: parseBody(text) }
    const index = requests.length
    requests.push(request)
    const reply = typeof script === 'function' ? script(request, index) : script[index]
    if (reply === undefined) {
      res.writeHead(500, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: { message: `replay script exhausted after ${index} responses` } }))
      return
    }
    if (reply.kind === 'json') {
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' })
      res.end(JSON.stringify(reply.body))
      return
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    const gate = reply.beforeEvent
    if (gate === undefined) {
      for (const item of reply.events) res.write(sseFrame(item, reply.namedEvents === true))
      if (reply.done === true) res.write('data: [DONE]\n\n')
      res.end()
      return
    }
    res.flushHeaders()
    try {
      for (let i = 0; i <= reply.events.length; i++) {
        await gate(i)
        if (res.destroyed) return
        if (i < reply.events.length) res.write(sseFrame(reply.events[i] as JsonValue | ReplaySseEvent, reply.namedEvents === true))
      }
    } catch {
      res.destroy()
      return
    }
    if (reply.done === true) res.write('data: [DONE]\n\n')
    res.end()
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    get remaining() {
      return typeof script === 'function' ? Number.POSITIVE_INFINITY : Math.max(0, script.length - requests.length)
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()))
        server.closeAllConnections()
      }),
  }
}

function parseBody(text: string): JsonValue | undefined {
  if (text === '') return undefined
  try {
    return JSON.parse(text) as JsonValue
  } catch {
    return text
  }
}

function isSseEvent(item: JsonValue | ReplaySseEvent): item is ReplaySseEvent {
  return typeof item === 'object' && item !== null && !Array.isArray(item) && 'data' in item && Object.keys(item).every((k) => k === 'data' || k === 'event')
}

function sseFrame(item: JsonValue | ReplaySseEvent, named: boolean): string {
  const event = isSseEvent(item) ? item : { data: item }
  const data = typeof event.data === 'string' ? event.data : JSON.stringify(event.data)
  let name = event.event
  if (name === undefined && named && typeof event.data === 'object' && event.data !== null && !Array.isArray(event.data) && typeof event.data.type === 'string') name = event.data.type
  return `${name === undefined ? '' : `event: ${name}\n`}data: ${data}\n\n`
}
