/**
 * The native executor's config keys, in the order an unknown-key message lists them (checked with
 * the core's `checkConfigObject`): the executor's, and the plugin's (which adds `warmUp`). Not
 * exported from the package.
 */
import type { NativeExecutorConfig } from './executor'

/** The fields of `NativeExecutorConfig`. */
export const NATIVE_CONFIG_KEYS: readonly string[] = Object.freeze(['maxParallelCalls', 'onDispose'] satisfies (keyof NativeExecutorConfig)[])

/** The fields of the plugin's config: the executor's plus `warmUp`. */
export const PLUGIN_CONFIG_KEYS: readonly string[] = Object.freeze([...NATIVE_CONFIG_KEYS, 'warmUp'])
