/**
 * Which tools may be repeated and which failures are transient (the defaults of the policy).
 */
import type { AnyToolDefinition } from '@deepseek-ai/dsh-tools'
import type { RetryFailure } from './config'

/**
 * Codes never retried, whatever a custom predicate answers: the model's or a policy's verdicts
 * and cancellations. (`INVALID_ARGS`, denials and blocks never reach a `tools/execute` wrapper
 * from the pipeline itself; a body or inner wrapper that throws one is taken at its word.)
 */
export const NEVER_RETRIED: ReadonlySet<string> = new Set([
  'INVALID_ARGS',
  'INVALID_TOOL_OUTPUT',
  'TOOL_DENIED',
  'TOOL_BLOCKED',
  'ABORTED',
  'ABORTED_BEFORE_DISPATCH',
  'UNKNOWN_TOOL',
])

/** Node.js and undici error codes of connection-level failures that usually pass. */
export const TRANSIENT_CODES: ReadonlySet<string> = new Set([
  'TOOL_TIMEOUT',
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
])

/** HTTP statuses worth another attempt: 408, 425, 429, 500, 502, 503, 504. */
export const TRANSIENT_STATUSES: ReadonlySet<number> = new Set([408, 425, 429, 500, 502, 503, 504])

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined
}

/**
 * The default `repeatable`: the definition declares `idempotent: true`, or it carries MCP tool
 * annotations with `readOnlyHint: true` or `idempotentHint: true` — MCP's own statements that
 * repeating a call has no additional effect. The annotations are read where
 * `@deepseek-ai/dsh-tool-mcp` registers them (`definition.mcp.annotations`, see its
 * `mcpToolInfo`) or where another MCP adapter may copy them (`definition.annotations`).
 */
export function isRepeatable(definition: AnyToolDefinition): boolean {
  if (definition.idempotent === true) return true
  const own = definition as { annotations?: unknown; mcp?: unknown }
  return hintsRepeat(record(own.annotations)) || hintsRepeat(record(record(own.mcp)?.annotations))
}

function hintsRepeat(annotations: Record<string, unknown> | undefined): boolean {
  return annotations !== undefined && (annotations.readOnlyHint === true || annotations.idempotentHint === true)
}

/**
 * The default `retryable`: the error's `code` is in {@link TRANSIENT_CODES}, its `status` or
 * `statusCode` (or `response.status`) is in {@link TRANSIENT_STATUSES}, or it is marked
 * `transient: true` or `retryable: true`. The same test is applied to its `cause` (one level).
 */
export function isTransient(failure: RetryFailure): boolean {
  return transient(failure.error, 0)
}

function transient(error: unknown, depth: number): boolean {
  const e = record(error)
  if (e === undefined) return false
  if (e.transient === true || e.retryable === true) return true
  if (typeof e.code === 'string' && TRANSIENT_CODES.has(e.code)) return true
  const status = e.status ?? e.statusCode ?? record(e.response)?.status
  if (typeof status === 'number' && TRANSIENT_STATUSES.has(status)) return true
  return depth === 0 && e.cause !== undefined && transient(e.cause, 1)
}

/**
 * The wait a failed attempt's server asked for before the next attempt, in whole ms, or
 * `undefined` when it asked for none. Looked up on the error, then on its `cause` (one level):
 *
 * 1. a `retryAfterMs` property (a finite number ≥ 0) — the way a tool body states it;
 * 2. the `retry-after-ms` header (milliseconds; sent by OpenAI- and Azure-style APIs), then the
 *    `retry-after` header (RFC 9110 §10.2.3: delay-seconds, or an HTTP-date counted from `now`,
 *    never below 0), read from `error.headers` or `error.response.headers` — a `Headers` (or
 *    anything with `get(name)`) or a plain record with any header-name case.
 *
 * A value that is neither is ignored. Pure given `now` (ms since the epoch, default `Date.now()`);
 * never throws for a header object whose `get` is well-behaved.
 */
export function retryAfterMs(error: unknown, now: number = Date.now()): number | undefined {
  return advisedWait(error, now, 0)
}

/** `retry-after-ms`: a non-negative decimal number of milliseconds. */
const DECIMAL_MS = /^\s*\d+(\.\d+)?\s*$/
/** `retry-after` as delay-seconds (RFC 9110 §10.2.3): a non-negative integer. */
const DELAY_SECONDS = /^\s*\d+\s*$/
/**
 * An HTTP-date names its day and month ("Sun, 06 Nov 1994 08:49:37 GMT" and the two obsolete
 * forms); `Date.parse` alone would also take "-3" or "2026".
 */
const NAMES_A_DAY = /[a-z]{3}/i

function advisedWait(error: unknown, now: number, depth: number): number | undefined {
  const e = record(error)
  if (e === undefined) return undefined
  const own = e.retryAfterMs
  if (typeof own === 'number' && Number.isFinite(own) && own >= 0) return Math.ceil(own)
  const headers = e.headers ?? record(e.response)?.headers
  if (headers !== undefined) {
    const ms = header(headers, 'retry-after-ms')
    if (ms !== undefined && DECIMAL_MS.test(ms)) return Math.ceil(Number(ms))
    const after = header(headers, 'retry-after')
    if (after !== undefined) {
      if (DELAY_SECONDS.test(after)) return Number(after) * 1000
      const date = NAMES_A_DAY.test(after) ? Date.parse(after) : Number.NaN
      if (Number.isFinite(date)) return Math.max(0, Math.ceil(date - now))
    }
  }
  return depth === 0 && e.cause !== undefined ? advisedWait(e.cause, now, 1) : undefined
}

/** One header's value from a `Headers`-like object (`get(name)`) or a plain record (any key case). */
function header(headers: unknown, name: string): string | undefined {
  const bag = record(headers)
  if (bag === undefined) return undefined
  if (typeof bag.get === 'function') {
    const value: unknown = (bag.get as (key: string) => unknown).call(headers, name)
    return typeof value === 'string' ? value : undefined
  }
  for (const key of Object.keys(bag)) {
    if (key.toLowerCase() !== name) continue
    const value = bag[key]
    if (typeof value === 'string') return value
    if (typeof value === 'number' && Number.isFinite(value)) return String(value)
    if (Array.isArray(value) && typeof value[0] === 'string') return value[0]
    return undefined
  }
  return undefined
}
