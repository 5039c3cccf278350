/**
 * Composition with a retry wrapper (ARCHITECTURE §7: "Registration order decides 'timeout
 * around retries' versus 'timeout per attempt'"). In `tools/execute` the listener registered
 * first is the outermost; a wrapper may call `next()` again once the previous attempt settled.
 */
import { describe, expect, test, vi } from 'vitest'
import { defineTool, type ToolExecution, type JsonValue } from '@deepseek-ai/dsh-tools'
import { call, sleep } from '@deepseek-ai/dsh-tool-testkit'
import { TimeoutPolicy } from '../src/index'
import { codeOf, textOf, useFakeTimerHarness } from './fixtures/tools'

const harness = useFakeTimerHarness()

/** One attempt as the body saw it. */
interface Attempt {
  readonly n: number
  outcome: string
}

/**
 * A tool with `timeoutMs: 100` whose attempt `n` follows `script[n - 1]`: sleep `ms` observing
 * the signal, then `fail` (throw) or `ok` (return). An abort rejects with the signal's reason.
 */
function scriptedTool(script: readonly (readonly [ms: number, end: 'fail' | 'ok'])[]) {
  const attempts: Attempt[] = []
  const tool = defineTool({
    name: 'flaky',
    description: 'Fails or hangs on early attempts.',
    parameters: {},
    output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
    timeoutMs: 100,
    async execute(_args, exec) {
      const n = attempts.length + 1
      const attempt: Attempt = { n, outcome: 'running' }
      attempts.push(attempt)
      const [ms, end] = script[n - 1] ?? [0, 'ok']
      try {
        await sleep(ms, exec.signal)
      } catch (reason) {
        attempt.outcome = `aborted by ${(reason as Error).name}`
        throw reason
      }
      attempt.outcome = end
      if (end === 'fail') throw new Error(`attempt ${n} failed`)
      return `ok on attempt ${n}`
    },
  })
  return { tool, attempts }
}

/** A small retry wrapper: up to `max` attempts; gives up when its own view of the signal is aborted. */
function retryWrapper(max: number, seen: string[]) {
  return async (exec: ToolExecution, next: () => Promise<JsonValue>): Promise<JsonValue> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await next()
      } catch (error) {
        const code = (error as { code?: unknown }).code
        seen.push(`attempt ${attempt}: ${typeof code === 'string' ? code : (error as Error).message}`)
        if (attempt >= max || exec.signal.aborted) throw error
      }
    }
  }
}

async function run(order: 'retry-outside' | 'timeout-outside', script: Parameters<typeof scriptedTool>[0], advanceMs: number) {
  const h = await harness()
  const { tool, attempts } = scriptedTool(script)
  h.ctx.tools.register(tool)
  const seen: string[] = []
  if (order === 'retry-outside') {
    h.ctx.on('tools/execute', retryWrapper(5, seen))
    await h.ctx.plugin(TimeoutPolicy, {})
  } else {
    await h.ctx.plugin(TimeoutPolicy, {})
    h.ctx.on('tools/execute', retryWrapper(5, seen))
  }
  // Registered last, so innermost: records the signal each attempt's body is derived from.
  const deadlines: AbortSignal[] = []
  h.ctx.on('tools/execute', (exec, next) => {
    deadlines.push(exec.signal)
    return next()
  })
  const pending = h.execute([call('flaky', {}, 'c1')])
  await vi.advanceTimersByTimeAsync(advanceMs)
  const [result] = await pending
  const distinct = [...new Set(deadlines)]
  return {
    result,
    attempts,
    seen,
    distinctSignals: distinct.length,
    /** Per distinct deadline: `fired` (aborted by its TimeoutError) or `quiet`. */
    fired: distinct.map((s) => (s.aborted ? `fired: ${(s.reason as Error).name}` : 'quiet')),
  }
}

describe('retry registered first (outside), timeout inside: a deadline per attempt', () => {
  test('two fast failures then a 60 ms success: every attempt gets a fresh 100 ms deadline, none fires', async () => {
    const { result, attempts, seen, distinctSignals, fired } = await run('retry-outside', [[40, 'fail'], [40, 'fail'], [60, 'ok']], 140)
    expect(result).toMatchObject({ isError: false, value: 'ok on attempt 3' })
    expect(attempts.map((a) => a.outcome)).toEqual(['fail', 'fail', 'ok'])
    expect(seen).toEqual(['attempt 1: attempt 1 failed', 'attempt 2: attempt 2 failed'])
    expect(distinctSignals).toBe(3)
    expect(fired).toEqual(['quiet', 'quiet', 'quiet'])
  })

  test('two hanging attempts: each attempt\'s own deadline fires, the retry sees TOOL_TIMEOUT and tries again', async () => {
    const { result, attempts, seen, distinctSignals, fired } = await run('retry-outside', [[1_000, 'ok'], [1_000, 'ok'], [10, 'ok']], 210)
    expect(result).toMatchObject({ isError: false, value: 'ok on attempt 3' })
    expect(attempts.map((a) => a.outcome)).toEqual(['aborted by TimeoutError', 'aborted by TimeoutError', 'ok'])
    expect(seen).toEqual(['attempt 1: TOOL_TIMEOUT', 'attempt 2: TOOL_TIMEOUT'])
    expect(distinctSignals).toBe(3)
    expect(fired).toEqual(['fired: TimeoutError', 'fired: TimeoutError', 'quiet'])
  })
})

describe('timeout registered first (outside), retry inside: one deadline around all retries', () => {
  test('two fast failures then a 60 ms attempt: the single deadline fires during attempt 3 → TOOL_TIMEOUT', async () => {
    const { result, attempts, seen, distinctSignals, fired } = await run('timeout-outside', [[40, 'fail'], [40, 'fail'], [60, 'ok']], 100)
    expect(codeOf(result)).toBe('TOOL_TIMEOUT')
    expect(textOf(result)).toBe('Error: tool call timed out after 100ms')
    expect(attempts.map((a) => a.outcome)).toEqual(['fail', 'fail', 'aborted by TimeoutError'])
    // The retry gave up because its signal (the one deadline) had fired.
    expect(seen).toEqual(['attempt 1: attempt 1 failed', 'attempt 2: attempt 2 failed', 'attempt 3: tool call timed out after 100ms'])
    expect(distinctSignals).toBe(1)
    expect(fired).toEqual(['fired: TimeoutError'])
  })

  test('a hanging first attempt: the deadline fires once and no retry follows', async () => {
    const { result, attempts, seen, fired } = await run('timeout-outside', [[1_000, 'ok'], [10, 'ok']], 100)
    expect(codeOf(result)).toBe('TOOL_TIMEOUT')
    expect(attempts.map((a) => a.outcome)).toEqual(['aborted by TimeoutError'])
    expect(seen).toEqual(['attempt 1: tool call timed out after 100ms'])
    expect(fired).toEqual(['fired: TimeoutError'])
  })
})
