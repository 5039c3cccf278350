/**
 * The native executor: each visible tool is a function the model calls (docs/design.md,
 * "Native executor and provider formats"). `describe` returns the visible schemas unchanged, in prompt
 * order; `execute` runs the batch through the shared pipeline with the native concurrency
 * contract.
 */
import { checkConfigObject, showConfigValue, validateMaxParallel, type ExecutorBatch, type ExecutorDescription, type DescribeInput, type ToolExecutor, type ToolResult } from '@deepseek-ai/dsh-tools'
import { NATIVE_CONFIG_KEYS } from './config-keys'

/** Configuration of the native executor. */
export interface NativeExecutorConfig {
  /** Parallel-safe calls overlap up to this many bodies (integer 1–1000; default 10; `1` = serial). */
  readonly maxParallelCalls?: number
  /**
   * What unmounting does to batches still running: `drain` (default) lets them settle normally
   * and disposal waits for them; `cancel` aborts them, so unstarted calls settle as
   * `ABORTED_BEFORE_DISPATCH` and running bodies see their signal fire.
   */
  readonly onDispose?: 'drain' | 'cancel'
}

/** The validated configuration, frozen, with defaults filled in (see {@link NativeExecutorConfig}). */
export interface ResolvedNativeConfig {
  /** Integer 1–1000. */
  readonly maxParallelCalls: number
  readonly onDispose: 'drain' | 'cancel'
}

/**
 * Validates a native executor configuration (`undefined` or `null`: the defaults, maxParallelCalls 10 and onDispose `drain`).
 *
 * @throws RangeError naming the field: `maxParallelCalls` not an integer from 1 to 1000, or
 *   `onDispose` not `drain`/`cancel`; a config that is not an object (`native executor config:
 *   must be an object, got 4`) or has an unknown key (`native executor config: /maxParallel is
 *   not a known option (expected maxParallelCalls, onDispose; did you mean "maxParallelCalls"?)`).
 */
export function resolveNativeConfig(config: NativeExecutorConfig | null = {}): ResolvedNativeConfig {
  // null (as cordis may pass it) means the defaults, as for the registry's config.
  config ??= {}
  checkConfigObject('native executor config', config, NATIVE_CONFIG_KEYS)
  const maxParallelCalls = validateMaxParallel(config.maxParallelCalls, 'maxParallelCalls')
  const onDispose = config.onDispose ?? 'drain'
  if (onDispose !== 'drain' && onDispose !== 'cancel') throw new RangeError(`onDispose must be "drain" or "cancel", got ${showConfigValue(onDispose)}`)
  return Object.freeze({ maxParallelCalls, onDispose })
}

/**
 * The reason batches are aborted with when a `cancel` executor unmounts: `name` is
 * `AbortError`, `code` is `EXECUTOR_DISPOSED`.
 */
export class ExecutorDisposedError extends Error {
  override readonly name = 'AbortError'
  readonly code = 'EXECUTOR_DISPOSED'
  constructor() {
    super('the native executor was unmounted while the batch ran')
  }
}

/** The native executor as mounted: a {@link ToolExecutor} named `native` with its resolved configuration. */
export interface NativeToolExecutor extends ToolExecutor {
  readonly name: 'native'
  /** The validated configuration (`executeToolStream` takes its pool bound from it). */
  readonly config: ResolvedNativeConfig
  /**
   * Runs `run` as one of this executor's batches for unmounting (`executeToolStream` runs its
   * stream batches through it): `drain` disposal waits for it; `cancel` disposal aborts the
   * signal `run` gets (reason {@link ExecutorDisposedError}, `EXECUTOR_DISPOSED`), which is
   * `undefined` under `drain`. Resolves or rejects as `run` does.
   */
  track<T>(run: (dispose: AbortSignal | undefined) => Promise<T>): Promise<T>
}

/**
 * Creates a native executor. Mount it with `ctx.tools.mount(createNativeExecutor(config))`, or
 * use the {@link NativeExecutor} plugin.
 *
 * @throws RangeError for an invalid configuration (see {@link resolveNativeConfig}).
 */
export function createNativeExecutor(config?: NativeExecutorConfig): NativeToolExecutor {
  const resolved = resolveNativeConfig(config)
  const inFlight = new Set<Promise<unknown>>()
  const cancel = new AbortController()
  return {
    name: 'native',
    config: resolved,
    describe(input: DescribeInput): ExecutorDescription {
      return { tools: input.schemas, sections: [] }
    },
    async track<T>(run: (dispose: AbortSignal | undefined) => Promise<T>): Promise<T> {
      const running = run(resolved.onDispose === 'cancel' ? cancel.signal : undefined)
      inFlight.add(running)
      try {
        return await running
      } finally {
        inFlight.delete(running)
      }
    },
    async execute(batch: ExecutorBatch): Promise<readonly ToolResult[]> {
      const signal = resolved.onDispose === 'cancel' ? AbortSignal.any([batch.signal, cancel.signal]) : batch.signal
      const running = batch.pipeline.runBatch(signal === batch.signal ? batch : { ...batch, signal }, { maxParallel: resolved.maxParallelCalls })
      inFlight.add(running)
      try {
        return await running
      } finally {
        inFlight.delete(running)
      }
    },
    async dispose(): Promise<void> {
      if (resolved.onDispose === 'cancel') cancel.abort(new ExecutorDisposedError())
      await Promise.allSettled([...inFlight])
    },
  }
}
