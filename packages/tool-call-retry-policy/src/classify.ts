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
 * annotations (`annotations` on the definition, as an MCP adapter may copy them) with
 * `readOnlyHint: true` or `idempotentHint: true` — MCP's own statements that repeating a call
 * has no additional effect.
 */
export function isRepeatable(definition: AnyToolDefinition): boolean {
  if (definition.idempotent === true) return true
  const annotations = record((definition as { annotations?: unknown }).annotations)
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
