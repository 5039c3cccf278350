/** Shared helpers of the Python runtime tests (not a test file). */
import { MAX_TIMER_MS, type JsonValue } from '@deepseek-ai/dsh-tools'
import { validateLimits, type HostFunction, type RunInput, type RunLimits, type RunOutput } from '@deepseek-ai/dsh-tool-executor-ptc'
import type { PythonCodeRuntime } from '../src/index'

/** Pyodide boots in 5–25 s on a loaded 2-core machine without a cached snapshot. */
export const BOOT_MS = 180_000

/**
 * Small size limits with generous time limits, so an ordinary program never times out on a
 * loaded machine; a test of a time limit sets one budget small and keeps the other large.
 */
export const LIMITS = validateLimits({
  computeMs: 20_000,
  wallMs: 40_000,
  memoryBytes: 32 * 1024 * 1024,
  outputBytes: 4_096,
  valueBytes: 65_536,
  maxSubCalls: 5,
})

/** Compute time is the only budget that can run out (300 ms). */
export const COMPUTE_LIMITED = { computeMs: 300, wallMs: 120_000 } as const

/** The largest wall budget the limits allow: a program that stalls only ends early because the runtime sees it can never progress. */
export const NO_WALL = { computeMs: 30_000, wallMs: MAX_TIMER_MS } as const

/** Wall time is the only budget that can run out (600 ms). */
export const WALL_LIMITED = { computeMs: 120_000, wallMs: 600 } as const

export interface RunOptions {
  readonly bindings?: Readonly<Record<string, HostFunction>>
  readonly limits?: Partial<RunLimits>
  readonly signal?: AbortSignal
  readonly onSettle?: () => void
}

/** Runs `program` with {@link LIMITS} unless overridden. */
export function runPython(runtime: PythonCodeRuntime, program: string, options: RunOptions = {}): Promise<RunOutput> {
  const input: RunInput = {
    program,
    bindings: options.bindings ?? {},
    signal: options.signal ?? new AbortController().signal,
    limits: { ...LIMITS, ...options.limits },
    ...(options.onSettle === undefined ? {} : { onSettle: options.onSettle }),
  }
  return runtime.run(input)
}

/** The part of an output tests compare (without timing statistics). */
export function plain(output: RunOutput): { value?: JsonValue; logs: readonly string[]; error?: RunOutput['error']; notes?: readonly string[] } {
  const { stats: _stats, ...rest } = output
  return rest
}
