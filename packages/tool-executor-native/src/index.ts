/**
 * `@deepseek-ai/dsh-tool-executor-native` — the native executor as a cordis plugin, plus the
 * provider wire formats (declarations, emissions → raw batch, results → provider messages).
 */
import type { Context } from 'cordis'
import { checkConfigObject, showConfigValue, assertSupportedCordis } from '@deepseek-ai/dsh-tools'
import { PLUGIN_CONFIG_KEYS } from './config-keys'
import { createNativeExecutor, type NativeExecutorConfig } from './executor'

export * from './executor'
export * from './providers'
export * from './stream'

/** The {@link NativeExecutor} plugin's configuration: the executor's, plus what plugin start does. */
export interface NativeExecutorPluginConfig extends NativeExecutorConfig {
  /**
   * `true`: plugin start also awaits the registry pipeline's warm-up (`ctx.tools.pipeline.warmUp()`:
   * a few calls of a private tool through the stages, once per process, ~10–20 ms, nothing
   * observable), so the process's first batch runs compiled stages instead of interpreted ones
   * (measured: the first one-call batch after plugin start, 9–12 → 4–6 ms). Default `false`: plugin
   * start stays synchronous.
   */
  readonly warmUp?: boolean
}

/**
 * The cordis plugin: mounts a native executor in the scope of the context it is loaded on, then,
 * with `warmUp: true`, awaits the pipeline warm-up. Plugin start fails with a `RangeError` for
 * an invalid config (naming the field: see {@link resolveNativeConfig}; `warmUp` not a boolean;
 * an unknown key, `native executor config: /warmup is not a known option (expected
 * maxParallelCalls, onDispose, warmUp; did you mean "warmUp"?)`; a config that is not an object —
 * no config or `null` means the defaults), and with a `ToolRegistrationError` when that scope already has an executor.
 *
 * Start also fails with a `CordisVersionError` (`UNSUPPORTED_CORDIS`) outside cordis
 * `>=4.0.0-rc.10 <5`, naming the version found (`assertSupportedCordis` of `@deepseek-ai/dsh-tools`).
 *
 * @example ctx.plugin(NativeExecutor, { maxParallelCalls: 4 })
 */
export const NativeExecutor = {
  name: 'dsh-tool-executor-native',
  inject: ['tools'],
  apply(ctx: Context, config?: NativeExecutorPluginConfig | null): void | Promise<void> {
    assertSupportedCordis(ctx, 'NativeExecutor')
    if (config === null || config === undefined) config = {}
    checkConfigObject('native executor config', config, PLUGIN_CONFIG_KEYS)
    const { warmUp = false, ...executorConfig } = config
    if (typeof warmUp !== 'boolean') throw new RangeError(`warmUp must be a boolean, got ${showConfigValue(warmUp)}`)
    ctx.tools.mount(createNativeExecutor(executorConfig))
    if (warmUp) return ctx.tools.pipeline.warmUp?.()
  },
}

export default NativeExecutor
