/**
 * The registry's configuration check (the plugin's config, {@link ToolRegistryConfig}): each
 * field validated with its `RangeError` text, defaults applied, the result frozen as the
 * pipeline's configuration.
 */
import { DEFAULT_CONTENT_LIMITS } from '../content'
import { DEFAULT_PROGRESS_INTERVAL_MS } from '../progress'
import type { PipelineConfig } from '../pipeline'
import type { ToolRegistryConfig } from './types'
import { checkConfigObject, showConfigValue } from '../unknown-keys'
import { validateBudgetConfig } from '../budget/config'

/** The platform's timer limit in ms (setTimeout clamps above it). */
export const MAX_TIMER_MS = 2_147_483_647

const TOP_KEYS = ['maxArgumentBytes', 'repair', 'contentLimits', 'unknownKeys', 'progressIntervalMs', 'resultBudget'] as const satisfies readonly (keyof ToolRegistryConfig)[]
const LIMIT_KEYS = ['maxChars', 'maxLines'] as const
const REPAIR_KEYS = ['jsonStrings', 'numericStrings', 'nullAsAbsent'] as const

/**
 * Validates the registry's config and applies the defaults. `undefined` and `null` mean no
 * config (all defaults); an unknown key anywhere (`/maxArgumentByte`, `/contentLimits/maxChar`)
 * or a non-object where an object belongs is a `RangeError` too.
 */
export function validateConfig(config: ToolRegistryConfig | undefined | null): PipelineConfig {
  if (config === null) config = undefined
  if (config !== undefined) {
    checkConfigObject('tools config', config, TOP_KEYS)
    if (config.contentLimits !== undefined) checkConfigObject('tools config', config.contentLimits, LIMIT_KEYS, '/contentLimits')
    if (config.repair !== undefined) checkConfigObject('tools config', config.repair, REPAIR_KEYS, '/repair')
  }
  const maxArgumentBytes = config?.maxArgumentBytes ?? 1_048_576
  if (!Number.isInteger(maxArgumentBytes) || maxArgumentBytes < 2) {
    throw new RangeError(`tools config: maxArgumentBytes must be an integer of at least 2 bytes, got ${showConfigValue(maxArgumentBytes)}`)
  }
  const limits = { ...DEFAULT_CONTENT_LIMITS, ...config?.contentLimits }
  for (const key of ['maxChars', 'maxLines'] as const) {
    const v = limits[key]
    if (!Number.isInteger(v) || v < 0) throw new RangeError(`tools config: contentLimits.${key} must be a non-negative integer (0 disables it), got ${showConfigValue(v)}`)
  }
  const repair = { ...config?.repair }
  for (const [key, v] of Object.entries(repair)) {
    if (v !== undefined && typeof v !== 'boolean') throw new RangeError(`tools config: repair.${key} must be a boolean, got ${showConfigValue(v)}`)
  }
  const unknownKeys = config?.unknownKeys ?? 'allow'
  if (unknownKeys !== 'allow' && unknownKeys !== 'reject') throw new RangeError(`tools config: unknownKeys must be "allow" or "reject", got ${showConfigValue(unknownKeys)}`)
  const progressIntervalMs = config?.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS
  if (typeof progressIntervalMs !== 'number' || !Number.isFinite(progressIntervalMs) || progressIntervalMs < 0 || progressIntervalMs > MAX_TIMER_MS) {
    throw new RangeError(`tools config: progressIntervalMs must be a number of ms from 0 to ${MAX_TIMER_MS}, got ${showConfigValue(progressIntervalMs)}`)
  }
  const resultBudget = validateBudgetConfig(config?.resultBudget)
  return Object.freeze({ maxArgumentBytes, repair: Object.freeze(repair), contentLimits: Object.freeze(limits), unknownKeys, progressIntervalMs, resultBudget })
}
