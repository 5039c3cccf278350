/**
 * A round-robin HTTP/2 (h2c) proxy in front of several service processes, per stream: what a
 * Kubernetes Service or a load balancer is in production. Restate multiplexes every invocation
 * over one HTTP/2 connection per deployment, so a TCP-level balancer would send all of them to one
 * worker; this one spreads each invocation attempt (one h2 stream) over the live workers and skips
 * a worker whose connection failed until it answers again.
 */
import http2 from 'node:http2'

interface Backend {
  readonly port: number
  session: http2.ClientHttp2Session | undefined
  /** Epoch ms before which this backend is not tried again (it just failed). */
  downUntil: number
}

export class RoundRobinProxy {
  readonly #backends: Backend[]
  #next = 0
  #enabled: Set<number> | undefined
  readonly #sessions = new Set<http2.ServerHttp2Session>()
  /** Streams forwarded to each backend port (for the test's spread assertions). */
  readonly served = new Map<number, number>()
  private constructor(
    readonly server: http2.Http2Server,
    readonly port: number,
    ports: readonly number[],
  ) {
    this.#backends = ports.map((port) => ({ port, session: undefined, downUntil: 0 }))
  }

  static async start(ports: readonly number[]): Promise<RoundRobinProxy> {
    const server = http2.createServer()
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(0, '127.0.0.1', () => resolve())
    })
    const address = server.address()
    if (typeof address !== 'object' || address === null) throw new Error('proxy has no port')
    const proxy = new RoundRobinProxy(server, address.port, ports)
    server.on('stream', (stream, headers) => proxy.#forward(stream, headers))
    server.on('session', (session) => {
      proxy.#sessions.add(session)
      session.once('close', () => proxy.#sessions.delete(session))
    })
    return proxy
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`
  }

  /** Routes new streams only to these ports (all, by default). */
  only(ports: readonly number[]): void {
    this.#enabled = new Set(ports)
  }

  #pick(): Backend | undefined {
    const now = Date.now()
    for (let i = 0; i < this.#backends.length; i++) {
      const backend = this.#backends[(this.#next + i) % this.#backends.length]!
      if (backend.downUntil <= now && (this.#enabled === undefined || this.#enabled.has(backend.port))) {
        this.#next = (this.#next + i + 1) % this.#backends.length
        return backend
      }
    }
    return undefined
  }

  #session(backend: Backend): http2.ClientHttp2Session {
    if (backend.session !== undefined && !backend.session.closed && !backend.session.destroyed) return backend.session
    const session = http2.connect(`http://127.0.0.1:${backend.port}`)
    const down = () => {
      if (backend.session === session) backend.session = undefined
      backend.downUntil = Date.now() + 500
    }
    session.on('error', down)
    session.on('close', () => {
      if (backend.session === session) backend.session = undefined
    })
    backend.session = session
    return session
  }

  #forward(stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders): void {
    const backend = this.#pick()
    if (backend === undefined) {
      stream.respond({ ':status': 503 })
      stream.end('no live worker')
      return
    }
    this.served.set(backend.port, (this.served.get(backend.port) ?? 0) + 1)
    const forwarded: http2.OutgoingHttpHeaders = {}
    for (const [name, value] of Object.entries(headers)) if (name !== ':scheme' && name !== ':authority' && value !== undefined) forwarded[name] = value
    let upstream: http2.ClientHttp2Stream
    try {
      upstream = this.#session(backend).request(forwarded)
    } catch {
      backend.downUntil = Date.now() + 500
      stream.close(http2.constants.NGHTTP2_REFUSED_STREAM)
      return
    }
    const fail = () => {
      if (!stream.headersSent && !stream.destroyed) {
        stream.respond({ ':status': 502 })
        stream.end()
      } else if (!stream.destroyed) stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR)
    }
    upstream.on('response', (responseHeaders) => {
      const out: http2.OutgoingHttpHeaders = {}
      for (const [name, value] of Object.entries(responseHeaders)) if (value !== undefined) out[name] = value
      if (!stream.destroyed) stream.respond(out)
    })
    upstream.on('error', fail)
    stream.on('error', () => upstream.close(http2.constants.NGHTTP2_CANCEL))
    stream.on('close', () => {
      if (!upstream.closed) upstream.close(http2.constants.NGHTTP2_CANCEL)
    })
    stream.pipe(upstream)
    upstream.pipe(stream)
  }

  /** Closes the listener and every backend session. */
  async close(): Promise<void> {
    for (const backend of this.#backends) backend.session?.destroy()
    for (const session of this.#sessions) session.destroy()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }
}
