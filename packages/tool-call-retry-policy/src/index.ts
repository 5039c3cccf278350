/**
 * `@deepseek-ai/dsh-tool-call-retry-policy` — retries calls of tools declared safe to repeat,
 * after transient failures, with exponential backoff and jitter, as a `tools/execute` wrapper.
 *
 * @example
 * import { RetryPolicy } from '@deepseek-ai/dsh-tool-call-retry-policy'
 * await ctx.plugin(RetryPolicy, { maxAttempts: 3 })
 */
export { RetryPolicy, RETRY_POLICY_NAME } from './plugin'
export { RetryPolicy as default } from './plugin'
export { RetryPolicyConfigError, backoffDelay, resolveRetryPolicyConfig } from './config'
export type { ResolvedRetryPolicyConfig, RetryFailure, RetryJitter, RetryPolicyConfig } from './config'
export { NEVER_RETRIED, TRANSIENT_CODES, TRANSIENT_STATUSES, isRepeatable, isTransient, retryAfterMs } from './classify'
export { createRetryWrapper } from './wrapper'
export type { ExecuteWrapper, RetryAnnotation, RetryWrapperOptions } from './wrapper'
export { emitRetry } from './events'
export type { RetryPolicyEvents, ToolRetryEvent } from './events'
