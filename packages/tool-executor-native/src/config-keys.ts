/**
 * The native executor's config keys and the check that refuses a misspelt one (shared by
 * `resolveNativeConfig` and the plugin, which adds `warmUp`). Not exported from the package.
 */
import { unknownOption } from '@deepseek-ai/dsh-tools'
import type { NativeExecutorConfig } from './executor'

/** The fields of `NativeExecutorConfig`, in the order an unknown-key message lists them. */
export const NATIVE_CONFIG_KEYS: readonly string[] = Object.freeze(['maxParallelCalls', 'onDispose'] satisfies (keyof NativeExecutorConfig)[])

/** A refused value as its message shows it: a string quoted, an object or function by its kind (not its source), anything else as written (a BigInt too). */
export function shown(value: unknown): string {
  if (Array.isArray(value)) return 'an array'
  if (value !== null && typeof value === 'object') return 'an object'
  if (typeof value === 'string') return JSON.stringify(value)
  return typeof value === 'function' ? 'a function' : String(value)
}

/**
 * Checks that a native executor config (or the plugin's, with `known` adding `warmUp`) is an
 * object of known keys.
 *
 * @throws RangeError `native executor config: must be an object, got <value>` or `native
 *   executor config: /<key> is not a known option (expected …; did you mean "…"?)`.
 */
export function checkNativeConfigKeys(config: unknown, known: readonly string[]): void {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) throw new RangeError(`native executor config: must be an object, got ${shown(config)}`)
  const unknown = unknownOption(config, known)
  if (unknown !== undefined) throw new RangeError(`native executor config: ${unknown.pointer} ${unknown.detail}`)
}

