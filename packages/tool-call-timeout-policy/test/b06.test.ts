/**
 * Regression for bug case B06 (`timeout-timer-leak`, read from the real-data fixtures): a
 * timeout built on a timer that is never cleared on success keeps a one-shot Node process
 * alive until the deadline. Expected: the timer is cleared on every settle path and the script
 * exits at once.
 */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, test, vi } from 'vitest'
import { call, createHarness, loadBugCases, type Harness } from '@deepseek-ai/dsh-tool-testkit'
import { TimeoutPolicy } from '../src/index'
import { probeTool } from './fixtures/tools'

interface B06Input {
  readonly tool: { readonly latencyMs: number }
  readonly timeoutMs: number
  readonly process: string
}

const b06 = loadBugCases().find((c) => c.id === 'B06')
const input = b06?.input as unknown as B06Input

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url))
const tsx = fileURLToPath(new URL('../../../node_modules/.bin/tsx', import.meta.url))
const script = fileURLToPath(new URL('./fixtures/one-shot.ts', import.meta.url))

let h: Harness | undefined
afterEach(async () => {
  vi.useRealTimers()
  await h?.dispose()
  h = undefined
})

describe('B06: timeout timer leak (a one-shot script must exit at once)', () => {
  test('the fixture is the timer-leak case: a 5 ms tool under a 30 s budget', () => {
    expect(b06?.kind).toBe('timeout-timer-leak')
    expect(input.tool.latencyMs).toBe(5)
    expect(input.timeoutMs).toBe(30_000)
  })

  test('B06 in process: right after the 5 ms call settles no timer is pending (the 30 s one is cleared)', async () => {
    vi.useFakeTimers()
    h = await createHarness()
    await h.ctx.plugin(TimeoutPolicy, {})
    const { tool } = probeTool({ timeoutMs: input.timeoutMs })
    h.ctx.tools.register(tool)
    const pending = h.execute([call('probe', { ms: input.tool.latencyMs }, 'c1')])
    await vi.advanceTimersByTimeAsync(0)
    expect(vi.getTimerCount()).toBe(2) // the body's sleep and the 30 s deadline
    await vi.advanceTimersByTimeAsync(input.tool.latencyMs)
    expect((await pending)[0]).toMatchObject({ isError: false, value: `slept ${input.tool.latencyMs}ms` })
    expect(vi.getTimerCount()).toBe(0)
  })

  test('B06 as a child process: the one-shot script prints its result and exits on its own (code 0) before the 30 s budget', async () => {
    // A leaked 30 s timer would hold the process open past execFile's 25 s `timeout`, which
    // kills it (exit code null): exit code 0 proves the script ended on its own.
    const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(tsx, ['--conditions=dsh-source', script, String(input.tool.latencyMs), String(input.timeoutMs)], { cwd: repoRoot, timeout: 25_000 }, (_error, out, err) => {
        resolve({ code: child.exitCode, stdout: String(out), stderr: String(err) })
      })
    })
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const printed = JSON.parse(stdout.trim()) as { isError: boolean; content: unknown }
    expect(printed).toMatchObject({ isError: false, content: [{ type: 'text', text: 'answered in 5ms' }] })
  }, 30_000)
})
