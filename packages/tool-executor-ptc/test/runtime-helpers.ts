/** Shared helpers of the runtime tests (not a test file). */
import { afterAll, beforeAll } from 'vitest'
import type { JsonValue } from '@deepseek-ai/dsh-tools'
import { validateLimits, type RunLimits } from '../src/limits'
import { createQuickJsRuntime, type QuickJsCodeRuntime } from '../src/runtime/quickjs'
import type { HostFunction, RunInput, RunOutput } from '../src/runtime/types'

/**
 * Small size limits for every test. Time limits are generous here so that an ordinary program
 * never times out on a loaded machine; a test of a time limit sets one budget small and keeps
 * the other large ({@link COMPUTE_LIMITED}, {@link WALL_LIMITED}), so which one fires never
 * depends on machine speed.
 */
export const SMALL_LIMITS = validateLimits({
  computeMs: 5_000,
  wallMs: 10_000,
  memoryBytes: 8 * 1024 * 1024,
  outputBytes: 4_096,
  valueBytes: 65_536,
  maxSubCalls: 100,
})

/** Compute time is the only budget that can run out (200 ms). */
export const COMPUTE_LIMITED = { computeMs: 200, wallMs: 30_000 } as const

/** Wall time is the only budget that can run out (400 ms). */
export const WALL_LIMITED = { computeMs: 30_000, wallMs: 400 } as const

/** A small heap with generous time limits, for tests whose kind must not depend on machine speed (memory bombs). */
export const MEMORY_LIMITS = validateLimits({ ...SMALL_LIMITS, memoryBytes: 4 * 1024 * 1024, computeMs: 30_000, wallMs: 60_000 })

export { sleep } from '@deepseek-ai/dsh-tool-testkit'

export interface RunOptions {
  readonly bindings?: Readonly<Record<string, HostFunction>>
  readonly limits?: Partial<RunLimits>
  readonly signal?: AbortSignal
  readonly onSettle?: () => void
}

/** Runs `program` with small limits unless overridden. */
export function runProgram(runtime: QuickJsCodeRuntime, program: string, options: RunOptions = {}): Promise<RunOutput> {
  const input: RunInput = {
    program,
    bindings: options.bindings ?? {},
    signal: options.signal ?? new AbortController().signal,
    limits: { ...SMALL_LIMITS, ...options.limits },
    ...(options.onSettle === undefined ? {} : { onSettle: options.onSettle }),
  }
  return runtime.run(input)
}

/** The part of an output tests compare (without timing statistics). */
export function plain(output: RunOutput): { value?: JsonValue; logs: readonly string[]; error?: RunOutput['error'] } {
  const { stats: _stats, ...rest } = output
  return rest
}

/**
 * A QuickJS runtime on the main thread (where `vi.mock` of engine modules applies), warmed up
 * before and disposed after the file or `describe` block that calls this.
 */
export function mainThreadRuntime(): QuickJsCodeRuntime {
  const runtime = createQuickJsRuntime({ thread: 'main' })
  beforeAll(async () => {
    await runtime.warmUp(SMALL_LIMITS.memoryBytes)
  })
  afterAll(() => {
    runtime.dispose()
  })
  return runtime
}

/** `tools.add({ a, b })` → `{ sum: a + b }`. */
export const addTool: HostFunction = async (arg) => {
  const { a, b } = arg as { a: number; b: number }
  return { sum: a + b }
}

/** `tools.fail(…)`: rejects as a failed tool call does (`ToolCallError`, tool "fail", message "disk full"). */
export const failingTool: HostFunction = async () => {
  throw { name: 'ToolCallError', toolName: 'fail', message: 'disk full' }
}
