/**
 * Configuration of the retry policy: how many attempts, the backoff curve, its jitter, which
 * tools may be repeated and which failures are transient.
 */
import { MAX_TIMER_MS, showConfigValue, unknownOption, type AnyToolDefinition, type ToolExecution } from '@deepseek-ai/dsh-tools'
import { isRepeatable, isTransient } from './classify'

/** How the backoff delay is randomised (AWS Architecture Blog, "Exponential Backoff And Jitter"). */
export type RetryJitter =
  /** `random(0, delay)`: spreads retries the most (default). */
  | 'full'
  /** `delay / 2 + random(0, delay / 2)`: never shorter than half the delay. */
  | 'equal'
  /** Exactly `delay` (deterministic; for tests and single clients). */
  | 'none'

/** What a `retryable` predicate receives about a failed attempt. */
export interface RetryFailure {
  /** What the attempt threw (the body's error, or a wrapper's such as `TOOL_TIMEOUT`). */
  readonly error: unknown
  /** The error's string `code` when it has one (`TOOL_TIMEOUT`, `ECONNRESET`, …). */
  readonly code: string | undefined
  /** The attempt that failed, 1-based. */
  readonly attempt: number
  readonly exec: ToolExecution
}

/** `ctx.plugin(RetryPolicy, config)`. Every field is optional. */
export interface RetryPolicyConfig {
  /** Attempts in total, the first included: an integer from 1 to 100. Default 3. */
  readonly maxAttempts?: number
  /** Delay before the first retry, in ms (before jitter; 0 to 2,147,483,647). Default 200. */
  readonly initialDelayMs?: number
  /** Each further retry waits this factor longer (1 to 1,000). Default 2. */
  readonly multiplier?: number
  /** Cap of one delay, in ms (before jitter; from `initialDelayMs` to 2,147,483,647). Default 5,000. */
  readonly maxDelayMs?: number
  /** Default `full`. */
  readonly jitter?: RetryJitter
  /** A number in [0, 1) for the jitter; default `Math.random`. */
  readonly random?: () => number
  /**
   * Whether calls of a tool may be repeated at all. Default: the definition declares
   * `idempotent: true`, or carries MCP tool annotations with `readOnlyHint: true` or
   * `idempotentHint: true` (see {@link isRepeatable}).
   */
  readonly repeatable?: (definition: AnyToolDefinition) => boolean
  /**
   * Whether a failed attempt is worth another one. Default {@link isTransient}: `TOOL_TIMEOUT`,
   * Node network error codes, HTTP 408/425/429/5xx statuses, errors marked `transient: true` or
   * `retryable: true`. Whatever it answers, an abort (the caller's or the body's own
   * `AbortError`) and the codes in `NEVER_RETRIED` are never retried.
   */
  readonly retryable?: (failure: RetryFailure) => boolean
  /**
   * Whether a retry waits as long as the failed attempt's server asked (`retryAfterMs` on the
   * error, or its `retry-after-ms` / `retry-after` header — RFC 9110 §10.2.3; see
   * `retryAfterMs`) instead of the backoff curve. Default `true`. Not a boolean: plugin start
   * throws `RetryPolicyConfigError` (`/respectRetryAfter must be a boolean, got <type>`).
   */
  readonly respectRetryAfter?: boolean
  /**
   * The longest server-advised wait the policy accepts, in ms (0 to 2,147,483,647). An attempt
   * whose server asks for longer is not retried: its failure is the result at once. Default
   * 60,000. Out of range: plugin start throws `RetryPolicyConfigError`
   * (`/maxRetryAfterMs must be a number from 0 to 2147483647, got <value>`).
   */
  readonly maxRetryAfterMs?: number
}

/** The validated configuration. */
export interface ResolvedRetryPolicyConfig {
  readonly maxAttempts: number
  readonly initialDelayMs: number
  readonly multiplier: number
  readonly maxDelayMs: number
  readonly jitter: RetryJitter
  readonly random: () => number
  readonly repeatable: (definition: AnyToolDefinition) => boolean
  readonly retryable: (failure: RetryFailure) => boolean
  readonly respectRetryAfter: boolean
  readonly maxRetryAfterMs: number
}

/**
 * Thrown by {@link resolveRetryPolicyConfig} (and so at plugin start: `await ctx.plugin(RetryPolicy,
 * …)` rejects) for a bad field: message `retry policy config: <pointer> <what was expected>`,
 * e.g. `/maxAttempts`. A `RangeError` with `name: 'RetryPolicyConfigError'` and `pointer`; no `code`.
 */
export class RetryPolicyConfigError extends RangeError {
  override readonly name = 'RetryPolicyConfigError'
  constructor(
    /** JSON pointer of the field, e.g. `/maxAttempts`. */
    readonly pointer: string,
    detail: string,
  ) {
    super(`retry policy config: ${pointer === '' ? '' : `${pointer} `}${detail}`)
  }
}

/** The documented fields, in the order an unknown-key message lists them. */
const KNOWN_KEYS = ['maxAttempts', 'initialDelayMs', 'multiplier', 'maxDelayMs', 'jitter', 'random', 'repeatable', 'retryable', 'respectRetryAfter', 'maxRetryAfterMs'] as const satisfies readonly (keyof RetryPolicyConfig)[]

function number(config: RetryPolicyConfig, key: 'initialDelayMs' | 'maxDelayMs' | 'multiplier' | 'maxRetryAfterMs', fallback: number, min: number, max: number): number {
  const value = config[key] ?? fallback
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw new RetryPolicyConfigError(`/${key}`, `must be a number from ${min} to ${max}, got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`)
  }
  return value
}

function fn<T>(config: RetryPolicyConfig, key: 'random' | 'repeatable' | 'retryable', fallback: T): T {
  const value = config[key]
  if (value === undefined) return fallback
  if (typeof value !== 'function') throw new RetryPolicyConfigError(`/${key}`, `must be a function, got ${typeof value}`)
  return value as T
}

/**
 * Validates a config and fills in the defaults (`undefined` or `null`: every default).
 *
 * @throws RetryPolicyConfigError naming the field (JSON pointer) and what was expected; also for
 *   a non-object config and for an unknown key (`/maxAttempt is not a known option (expected
 *   maxAttempts, …; did you mean "maxAttempts"?)`), which would otherwise leave the default.
 */
export function resolveRetryPolicyConfig(config: RetryPolicyConfig | null = {}): ResolvedRetryPolicyConfig {
  // null means the defaults, as for the other plugins' configs.
  config ??= {}
  if (typeof config !== 'object' || Array.isArray(config)) throw new RetryPolicyConfigError('', `must be an object, got ${Array.isArray(config) ? 'an array' : typeof config}`)
  const unknown = unknownOption(config, KNOWN_KEYS)
  if (unknown !== undefined) throw new RetryPolicyConfigError(unknown.pointer, unknown.detail)
  const maxAttempts = config.maxAttempts ?? 3
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1 || maxAttempts > 100) {
    throw new RetryPolicyConfigError('/maxAttempts', `must be an integer from 1 to 100, got ${showConfigValue(maxAttempts)}`)
  }
  const jitter = config.jitter ?? 'full'
  if (jitter !== 'full' && jitter !== 'equal' && jitter !== 'none') throw new RetryPolicyConfigError('/jitter', `must be "full", "equal" or "none", got ${showConfigValue(jitter)}`)
  const initialDelayMs = number(config, 'initialDelayMs', 200, 0, MAX_TIMER_MS)
  const maxDelayMs = number(config, 'maxDelayMs', 5_000, 0, MAX_TIMER_MS)
  if (maxDelayMs < initialDelayMs) throw new RetryPolicyConfigError('/maxDelayMs', `must be at least initialDelayMs (${initialDelayMs}), got ${maxDelayMs}`)
  const respectRetryAfter = config.respectRetryAfter ?? true
  if (typeof respectRetryAfter !== 'boolean') throw new RetryPolicyConfigError('/respectRetryAfter', `must be a boolean, got ${typeof respectRetryAfter}`)
  return Object.freeze({
    maxAttempts,
    initialDelayMs,
    multiplier: number(config, 'multiplier', 2, 1, 1_000),
    maxDelayMs,
    jitter,
    random: fn(config, 'random', Math.random),
    repeatable: fn(config, 'repeatable', isRepeatable),
    retryable: fn(config, 'retryable', isTransient),
    respectRetryAfter,
    maxRetryAfterMs: number(config, 'maxRetryAfterMs', 60_000, 0, MAX_TIMER_MS),
  })
}

/**
 * The delay before retry `retry` (1 = the first retry) in ms, whole milliseconds:
 * `min(maxDelayMs, initialDelayMs × multiplier^(retry−1))`, then jittered per `config.jitter`
 * (`full`: `[0, delay]`; `equal`: `[delay/2, delay]`; `none`: exactly `delay`) with
 * `config.random()` clamped to `[0, 1]` — the "capped exponential backoff with jitter" of the AWS
 * Architecture Blog. Pure given `random`; never throws (`config` is expected to come from
 * {@link resolveRetryPolicyConfig}).
 */
export function backoffDelay(config: ResolvedRetryPolicyConfig, retry: number): number {
  const base = Math.min(config.maxDelayMs, config.initialDelayMs * config.multiplier ** (retry - 1))
  if (config.jitter === 'none') return Math.round(base)
  const r = Math.min(Math.max(config.random(), 0), 1)
  return Math.round(config.jitter === 'full' ? base * r : base / 2 + (base / 2) * r)
}
