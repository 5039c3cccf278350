/**
 * The registry's `resultBudget` configuration check (internal): each field validated with a
 * `RangeError` naming its JSON pointer, defaults applied.
 */
import { checkConfigObject, showConfigValue } from '../unknown-keys'
import { toolNameProblem } from '../registry/names'
import { createMemoryResultStore } from './store'
import type { ResolvedResultBudget, ResultBudgetConfig } from './types'

const BUDGET_KEYS = ['toolMaxChars', 'batchMaxChars', 'store', 'readTool'] as const satisfies readonly (keyof ResultBudgetConfig)[]

/**
 * The validated budget configuration: `undefined` gives no tool or batch budget and a fresh
 * in-memory store (for tools with their own `resultBudget`).
 *
 * @throws RangeError `tools config: /resultBudget/batchMaxChars must be a non-negative integer
 *   (0 disables it), got -1` (and likewise for the other fields, or an unknown key).
 */
export function validateBudgetConfig(config: ResultBudgetConfig | undefined): ResolvedResultBudget {
  if (config === undefined) return Object.freeze({ toolMaxChars: 0, batchMaxChars: 0, store: createMemoryResultStore(), readTool: undefined })
  checkConfigObject('tools config', config, BUDGET_KEYS, '/resultBudget')
  const chars = (key: 'toolMaxChars' | 'batchMaxChars'): number => {
    const v = config[key] ?? 0
    if (!Number.isInteger(v) || v < 0) throw new RangeError(`tools config: /resultBudget/${key} must be a non-negative integer (0 disables it), got ${showConfigValue(v)}`)
    return v
  }
  const toolMaxChars = chars('toolMaxChars')
  const batchMaxChars = chars('batchMaxChars')
  const store = config.store ?? createMemoryResultStore()
  const s = store as unknown as Record<string, unknown>
  for (const method of ['put', 'get', 'delete'] as const) {
    if (s === null || typeof s !== 'object' || typeof s[method] !== 'function') throw new RangeError(`tools config: /resultBudget/store must be a ResultStore with a ${method}() method, got ${showConfigValue(store)}`)
  }
  const readTool = config.readTool
  if (readTool !== undefined && (typeof readTool !== 'string' || toolNameProblem(readTool) !== undefined)) {
    throw new RangeError(`tools config: /resultBudget/readTool must be a tool name (the paging tool's, e.g. "read_result"), got ${showConfigValue(readTool)}`)
  }
  return Object.freeze({ toolMaxChars, batchMaxChars, store, readTool })
}
