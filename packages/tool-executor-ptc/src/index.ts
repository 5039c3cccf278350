/**
 * `@deepseek-ai/dsh-tool-executor-ptc` — programmatic tool calling: one `run_code` tool, a
 * generated TypeScript SDK, and programs run in a QuickJS WebAssembly sandbox (docs/design.md,
 * "PTC executor").
 */
import { assertSupportedCordis } from '@deepseek-ai/dsh-tools'
import type { Context } from 'cordis'
import { createPtcExecutor, type PtcExecutorConfig } from './executor'

export * from './executor'
export { coreSuspension } from './core-suspension'
export { ProgramSettledError } from './bridge'
export * from './runtime/types'
export * from './runtime/quickjs'
export { ModulePool } from './runtime/module-pool'
export type { ModulePoolOptions, ModulePoolStats, PreparedContext, SandboxModule } from './runtime/module-pool'
export { abortError, messageOf, STALLED_MESSAGE } from './runtime/execution'
export { clip, isParked, safeString, SubCallParked } from './runtime/host-call'
export { MAX_NOTES, noteLines } from './runtime/notes'
export { checkDeterminism, newSeed } from './runtime/determinism'
export * from './replay'
export * from './runtime/worker-script'
export * from './limits'
export * from './sdk'
export * from './render'
export * from './strip'

/**
 * The cordis plugin: mounts a PTC executor in the scope of the context it is loaded on.
 * Plugin start fails with a `RangeError` for an invalid config (an unknown key included, see
 * {@link createPtcExecutor}; no config or `null` means the defaults) and a `ToolRegistrationError`
 * when that scope already has an executor. It waits for the runtime's warm-up, then the
 * registry pipeline's (`ToolPipeline.warmUp`), unless `warmUp: false`.
 *
 * Start also fails with a `CordisVersionError` (`UNSUPPORTED_CORDIS`) outside cordis
 * `>=4.0.0-rc.10 <5`, naming the version found (`assertSupportedCordis` of `@deepseek-ai/dsh-tools`).
 *
 * @example ctx.plugin(PtcExecutor, { maxParallelSubCalls: 10, limits: { wallMs: 30_000 } })
 */
export const PtcExecutor = {
  name: 'dsh-tool-executor-ptc',
  inject: ['tools'],
  async apply(ctx: Context, config?: PtcExecutorConfig | null): Promise<void> {
    assertSupportedCordis(ctx, 'PtcExecutor')
    const executor = createPtcExecutor(config ?? undefined)
    ctx.tools.mount(executor)
    if (config?.warmUp !== false) {
      await executor.warmUp()
      // The stages a program's sub-calls run through (prepare, policy, dispatch, finalize): compiled
      // now rather than on the first sub-call (first run with one sub-call, median 23.6 → 19.0 ms; see the README).
      await ctx.tools.pipeline.warmUp?.()
    }
  },
}

export default PtcExecutor
