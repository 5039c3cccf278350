/**
 * `@deepseek-ai/dsh-tool-executor-native` — the native executor as a cordis plugin, plus the
 * provider wire formats (declarations, emissions → raw batch, results → provider messages).
 */
import type { Context } from 'cordis'
import '@deepseek-ai/dsh-tools'
import { createNativeExecutor, type NativeExecutorConfig } from './executor'

export * from './executor'
export * from './providers'

/**
 * The cordis plugin: mounts a native executor in the scope of the context it is loaded on.
 * Plugin start fails with a `RangeError` for an invalid config, and with a
 * `ToolRegistrationError` when that scope already has an executor.
 *
 * @example ctx.plugin(NativeExecutor, { maxParallelCalls: 4 })
 */
export const NativeExecutor = {
  name: 'dsh-tool-executor-native',
  inject: ['tools'],
  apply(ctx: Context, config?: NativeExecutorConfig): void {
    ctx.tools.mount(createNativeExecutor(config))
  },
}

export default NativeExecutor
