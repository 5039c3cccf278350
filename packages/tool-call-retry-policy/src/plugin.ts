/**
 * The cordis plugin: one `tools/execute` wrapper in the scope the plugin is loaded on.
 */
import { assertSupportedCordis } from '@deepseek-ai/dsh-tools'
import type { Context } from 'cordis'
import { resolveRetryPolicyConfig, type RetryPolicyConfig } from './config'
import { emitRetry } from './events'
import { createRetryWrapper } from './wrapper'

/** The plugin's name (its fiber name and logger name). */
export const RETRY_POLICY_NAME = 'dsh-tool-call-retry-policy'

/**
 * The retry policy as a cordis plugin object. Load it on the context of the scope it should
 * govern (deployment, preset or agent); it registers one `tools/execute` wrapper there, removed
 * with the plugin's fiber. Requires the `tools` service.
 *
 * **Order with the timeout policy** (`tools/execute` wrappers nest in registration order, the
 * first loaded outermost):
 * - retry loaded **before** timeout → the timeout is **per attempt**: each attempt gets a fresh
 *   deadline, and a `TOOL_TIMEOUT` attempt is retried (it is transient by default);
 * - timeout loaded **before** retry → the timeout is **one budget for all attempts and waits**:
 *   when it fires during a wait, the wait ends and the call settles as `TOOL_TIMEOUT`.
 *
 * Start also fails with a `CordisVersionError` (`UNSUPPORTED_CORDIS`) outside cordis
 * `>=4.0.0-rc.10 <5`, naming the version found (`assertSupportedCordis` of `@deepseek-ai/dsh-tools`).
 *
 * @throws RetryPolicyConfigError on start (the `await ctx.plugin(...)` rejects) for a bad field.
 *
 * @example
 * await ctx.plugin(RetryPolicy, { maxAttempts: 4, initialDelayMs: 100 })
 * await ctx.plugin(TimeoutPolicy, {}) // after: each attempt has its own deadline
 */
export const RetryPolicy: {
  readonly name: typeof RETRY_POLICY_NAME
  readonly inject: ['tools']
  apply(ctx: Context, config?: RetryPolicyConfig | null): void
} = Object.freeze({
  name: RETRY_POLICY_NAME,
  inject: ['tools'] as ['tools'],
  apply(ctx: Context, config?: RetryPolicyConfig | null): void {
    assertSupportedCordis(ctx, 'RetryPolicy')
    const resolved = resolveRetryPolicyConfig(config)
    const report = (error: unknown): void => {
      try {
        ctx.logger(RETRY_POLICY_NAME).warn('a tools/retry listener threw: %s', error instanceof Error ? (error.stack ?? error.message) : String(error))
      } catch {
        // Reporting must never disturb a call.
      }
    }
    ctx.tools.on('tools/execute', createRetryWrapper({ config: resolved, onRetry: (event) => emitRetry(ctx, event, report) }))
  },
})

export default RetryPolicy
