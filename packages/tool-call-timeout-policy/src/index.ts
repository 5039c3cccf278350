/**
 * `@deepseek-ai/dsh-tool-call-timeout-policy` — enforces a tool definition's `timeoutMs` (and
 * an optional default budget) as a `tools/execute` wrapper (docs/design.md, "Known limitations";
 * docs/design.md, "Timeout policy").
 *
 * @example
 * import { TimeoutPolicy } from '@deepseek-ai/dsh-tool-call-timeout-policy'
 * await ctx.plugin(TimeoutPolicy, { defaultTimeoutMs: 30_000 })
 */
export { TimeoutPolicy, TIMEOUT_POLICY_NAME } from './plugin'
export { TimeoutPolicy as default } from './plugin'
export {
  DEFAULT_GRACE_MS,
  TimeoutPolicyConfigError,
  TimeoutPolicyConfigSchema,
  checkTimeoutPolicyConfig,
  resolveTimeoutPolicyConfig,
} from './config'
export type { HardLimitConfig, ResolvedTimeoutPolicyConfig, TimeoutConfigIssue, TimeoutConfigSchemaIssue, TimeoutPolicyConfig, TimeoutPolicyConfigValidator } from './config'
export { budgetFor } from './budget'
export { Deadline, timeoutReason } from './deadline'
export type { DeadlineCause } from './deadline'
export { createTimeoutWrapper, timeoutError } from './wrapper'
export type { ExecuteWrapper, TimeoutWrapperOptions } from './wrapper'
export { emitAbandoned } from './events'
export type { TimeoutPolicyEvents, ToolAbandonedEvent } from './events'
export { timeoutStats } from './stats'
export type { TimeoutStats, TimeoutStatsSnapshot } from './stats'
