/**
 * The cordis plugin (docs/design.md, "Timeout policy"): one `tools/execute` wrapper in the scope the plugin is
 * loaded on, disposed with the plugin's fiber.
 */
import { assertSupportedCordis } from '@deepseek-ai/dsh-tools'
import type { Context, Plugin } from 'cordis'
import { TimeoutPolicyConfigSchema, resolveTimeoutPolicyConfig, type TimeoutPolicyConfig } from './config'
import { emitAbandoned } from './events'
import { createTimeoutWrapper } from './wrapper'

/** The plugin's name (its fiber name and logger name). */
export const TIMEOUT_POLICY_NAME = 'dsh-tool-call-timeout-policy'

/**
 * The timeout policy as a cordis plugin object.
 *
 * Load it on the context of the scope it should govern — the deployment (`ctx`), a preset or
 * an agent (a context from `createScope` / `createAgent`): it registers one `tools/execute`
 * wrapper there, so it limits calls of that scope and its descendants only (listeners are
 * scope-filtered by the registry). Disposing the plugin removes the wrapper; calls already
 * running keep their deadline until they settle.
 *
 * Requires the `tools` service (`inject: ['tools']`): it starts once the registry is mounted.
 *
 * Start also fails with a `CordisVersionError` (`UNSUPPORTED_CORDIS`) outside cordis
 * `>=4.0.0-rc.10 <5`, naming the version found (`assertSupportedCordis` of `@deepseek-ai/dsh-tools`).
 *
 * @throws on start (the `await ctx.plugin(...)` rejects) for an invalid config: cordis's
 *   `ValidationError` from {@link TimeoutPolicyConfigSchema}, listing each bad field (JSON
 *   pointer) and what was expected; a direct `apply` call throws `TimeoutPolicyConfigError`.
 *
 * @example
 * await ctx.plugin(TimeoutPolicy, {})                                        // enforce definitions' timeoutMs
 * await agentCtx.plugin(TimeoutPolicy, { defaultTimeoutMs: 30_000 })         // plus a default, one agent only
 * await ctx.plugin(TimeoutPolicy, { hardLimit: { graceMs: 2_000 } })         // abandon signal-ignoring bodies
 */
export const TimeoutPolicy: {
  readonly name: typeof TIMEOUT_POLICY_NAME
  readonly inject: ['tools']
  readonly Config: typeof TimeoutPolicyConfigSchema
  apply(ctx: Context, config?: TimeoutPolicyConfig): void
} = Object.freeze({
  name: TIMEOUT_POLICY_NAME,
  inject: ['tools'] as ['tools'],
  Config: TimeoutPolicyConfigSchema,
  apply(ctx: Context, config?: TimeoutPolicyConfig): void {
    assertSupportedCordis(ctx, 'TimeoutPolicy')
    const resolved = resolveTimeoutPolicyConfig(config)
    const report = (error: unknown): void => {
      try {
        ctx.logger(TIMEOUT_POLICY_NAME).warn('a tools/abandoned listener threw: %s', error instanceof Error ? (error.stack ?? error.message) : String(error))
      } catch {
        // Reporting must never disturb a call.
      }
    }
    const wrapper = createTimeoutWrapper({
      config: resolved,
      onAbandoned: (event) => emitAbandoned(ctx, event, report),
    })
    ctx.tools.on('tools/execute', wrapper)
  },
})

// Compile-time check: the plugin is a cordis plugin object whose Config is a Standard Schema.
TimeoutPolicy satisfies Plugin.Object<TimeoutPolicyConfig | undefined>

export default TimeoutPolicy
