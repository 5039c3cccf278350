/**
 * The outside of a durable batch, over plain HTTP (Node's `fetch`, no SDK): start a batch through
 * the Restate ingress, wait for its result, resolve or reject an approval's awakeable, register a
 * service deployment through the admin API. Every failure to reach Restate names the address tried.
 */

/** Restate could not be reached at `url`; `code` `'RESTATE_UNREACHABLE'`. */
export class RestateUnreachableError extends Error {
  override readonly name = 'RestateUnreachableError'
  readonly code = 'RESTATE_UNREACHABLE'
  constructor(
    readonly url: string,
    what: string,
    cause: unknown,
  ) {
    const why = describeCause(cause)
    super(`Restate ${what} at ${url} is unreachable (${why}): is restate-server running, and is that its address?`, { cause })
  }
}

/** Restate answered with an error status; `code` `'RESTATE_HTTP_ERROR'`, `status` the HTTP status. */
export class RestateHttpError extends Error {
  override readonly name = 'RestateHttpError'
  readonly code = 'RESTATE_HTTP_ERROR'
  constructor(
    readonly url: string,
    readonly status: number,
    readonly body: string,
  ) {
    super(`Restate answered HTTP ${status} at ${url}: ${body.slice(0, 500)}`)
  }
}

function describeCause(cause: unknown): string {
  const inner = cause instanceof Error && cause.cause instanceof Error ? cause.cause : cause
  const code = (inner as { code?: unknown } | undefined)?.code
  if (typeof code === 'string') return code
  if (inner instanceof Error) return inner.message
  return String(inner)
}

/** Options of {@link RestateClient}. */
export interface RestateClientOptions {
  /** The ingress, e.g. `http://127.0.0.1:8080`. */
  readonly ingressUrl: string
  /** The admin API, e.g. `http://127.0.0.1:9070` (needed by `register` only). */
  readonly adminUrl?: string
  /** Per-request limit in ms for the short requests (register, resolve, send); default 30,000. */
  readonly timeoutMs?: number
}

/** A decision for an approval awakeable, as the core validates it. */
export type ApprovalDecision = { readonly type: 'approve' } | { readonly type: 'reject'; readonly reason?: string }

/** A handler invocation accepted by the ingress (`/send`). */
export interface SentInvocation {
  readonly invocationId: string
  readonly status: string
}

/** A thin HTTP client of the Restate ingress and admin API. */
export class RestateClient {
  readonly ingressUrl: string
  readonly adminUrl: string | undefined
  readonly #timeoutMs: number

  constructor(options: RestateClientOptions) {
    this.ingressUrl = options.ingressUrl.replace(/\/+$/, '')
    this.adminUrl = options.adminUrl?.replace(/\/+$/, '')
    this.#timeoutMs = options.timeoutMs ?? 30_000
  }

  async #request(what: string, url: string, init: RequestInit & { timeoutMs?: number | null }): Promise<string> {
    let response: Response
    const timeout = init.timeoutMs === null ? undefined : AbortSignal.timeout(init.timeoutMs ?? this.#timeoutMs)
    try {
      response = await fetch(url, { ...init, ...(timeout === undefined ? {} : { signal: timeout }) })
    } catch (error) {
      throw new RestateUnreachableError(url, what, error)
    }
    const body = await response.text()
    if (!response.ok) throw new RestateHttpError(url, response.status, body)
    return body
  }

  #path(service: string, handler: string, key: string | undefined): string {
    const keyPart = key === undefined ? '' : `/${encodeURIComponent(key)}`
    return `${this.ingressUrl}/${encodeURIComponent(service)}${keyPart}/${encodeURIComponent(handler)}`
  }

  /**
   * Calls a handler and waits for its result (no time limit: a batch may wait on approvals for
   * days; pass `signal` to stop waiting, which does not cancel the invocation). `idempotencyKey`
   * makes a repeated call attach to the first invocation instead of starting another.
   */
  async call<Out>(target: { service: string; handler: string; key?: string }, input: unknown, options: { idempotencyKey?: string; signal?: AbortSignal } = {}): Promise<Out> {
    const url = this.#path(target.service, target.handler, target.key)
    const body = await this.#request('ingress', url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(options.idempotencyKey === undefined ? {} : { 'idempotency-key': options.idempotencyKey }) },
      body: JSON.stringify(input),
      timeoutMs: null,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    })
    return JSON.parse(body) as Out
  }

  /** Starts a handler without waiting (`/send`); attach later with {@link attach}. */
  async send(target: { service: string; handler: string; key?: string }, input: unknown, options: { idempotencyKey?: string } = {}): Promise<SentInvocation> {
    const url = `${this.#path(target.service, target.handler, target.key)}/send`
    const body = await this.#request('ingress', url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(options.idempotencyKey === undefined ? {} : { 'idempotency-key': options.idempotencyKey }) },
      body: JSON.stringify(input),
    })
    return JSON.parse(body) as SentInvocation
  }

  /** Waits for an invocation's result (no time limit unless `signal`). */
  async attach<Out>(invocationId: string, options: { signal?: AbortSignal } = {}): Promise<Out> {
    const url = `${this.ingressUrl}/restate/invocation/${encodeURIComponent(invocationId)}/attach`
    const body = await this.#request('ingress', url, { method: 'GET', timeoutMs: null, ...(options.signal === undefined ? {} : { signal: options.signal }) })
    return JSON.parse(body) as Out
  }

  /** Answers a pending approval: resolves its awakeable with the decision. */
  async decide(awakeableId: string, decision: ApprovalDecision): Promise<void> {
    const url = `${this.ingressUrl}/restate/awakeables/${encodeURIComponent(awakeableId)}/resolve`
    await this.#request('ingress', url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(decision) })
  }

  /** Registers (re-registers with `force`) the service deployment at `uri`; returns its deployment id. */
  async register(uri: string, options: { force?: boolean } = {}): Promise<string> {
    if (this.adminUrl === undefined) throw new Error('RestateClient.register needs adminUrl (the admin API, e.g. http://127.0.0.1:9070)')
    const url = `${this.adminUrl}/deployments`
    const body = await this.#request('admin API', url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ uri, force: options.force ?? false }),
    })
    return (JSON.parse(body) as { id: string }).id
  }
}
