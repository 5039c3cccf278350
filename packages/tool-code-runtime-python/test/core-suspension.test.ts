/**
 * Python programs over the registry's suspension API (`ctx.tools.executeSuspendable` /
 * `ctx.tools.resume`, the PTC executor's default `coreSuspension`): an `asyncio.gather` with two
 * deferred sub-calls suspends the batch with both pending; the state, as JSON, resumes in a fresh
 * context; approved calls run once and the result equals an unsuspended run; a rejected call
 * raises `ToolCallError` in the program. Pyodide is slow: two tests.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import type { ToolResult } from '@deepseek-ai/dsh-tools'
import { harnessPool, roundTrip, runCall, suspended, testSuspension } from '../../tool-executor-ptc/test/fixtures/core-suspend'
import { createPythonRuntime } from '../src/index'
import { BOOT_MS } from './helpers'

const runtime = createPythonRuntime()
beforeAll(() => runtime.warmUp(), BOOT_MS)
afterAll(() => runtime.dispose())
const pool = harnessPool(runtime)
afterEach(() => pool.disposeAll())
const harness = pool.harness
const text = (r: ToolResult | undefined) => (r?.content ?? []).map((b) => (b.type === 'text' ? b.text : '')).join('')

const PROGRAM = `import asyncio
first = await tools.read(text="config")
a, b = await asyncio.gather(tools.deploy(text="a"), tools.deploy(text="b"))
print(first["text"], a["text"], b["text"])
return [a["text"], b["text"]]`

describe('Python run_code in a suspendable batch', () => {
  test('asyncio.gather with two deferred sub-calls: pending together; resumed from JSON in a fresh context, equal to an unsuspended run', async () => {
    const direct: string[] = []
    const plain = await harness(direct, () => ({ type: 'approve' }))
    const expected = await plain.tools.execute({ calls: [runCall(PROGRAM)] })
    expect(direct).toEqual(['read:config', 'deploy:a', 'deploy:b'])

    const calls: string[] = []
    const first = await harness(calls)
    const suspension = testSuspension()
    const out = suspended(await first.tools.executeSuspendable({ calls: [runCall(PROGRAM)], suspension }))
    expect(out.pending[0]?.subCalls).toEqual([
      { callId: 'run1:code:2', toolName: 'deploy', arguments: { text: 'a' }, reason: 'deploy needs a human' },
      { callId: 'run1:code:3', toolName: 'deploy', arguments: { text: 'b' }, reason: 'deploy needs a human' },
    ])
    expect((out.state.payload.calls[0] as unknown as { journal: { language: string } }).journal.language).toBe('python')
    expect(calls).toEqual(['read:config'])

    const later: string[] = []
    const second = await harness(later)
    const state = roundTrip(out.state)
    const decisions = { 'run1:code:2': { type: 'approve' as const }, 'run1:code:3': { type: 'approve' as const } }
    const resumed = await second.tools.resume({ state, decisions, suspension: testSuspension(suspension.ledger) })
    expect(resumed).toEqual({ status: 'complete', results: expected })
    expect(later).toEqual(['deploy:a', 'deploy:b'])
    // The same state again: refused, nothing runs.
    await expect(second.tools.resume({ state, decisions, suspension: testSuspension(suspension.ledger) })).rejects.toMatchObject({ code: 'STATE_REPLAYED' })
    expect(later).toEqual(['deploy:a', 'deploy:b'])
  }, 120_000)

  test('a rejected sub-call raises ToolCallError in the program with the rejection text', async () => {
    const calls: string[] = []
    const h = await harness(calls)
    const suspension = testSuspension()
    const program = ['try:', '    await tools.deploy(text="x")', 'except ToolCallError as e:', '    return "refused: " + e.message'].join('\n')
    const out = suspended(await h.tools.executeSuspendable({ calls: [runCall(program)], suspension }))
    const resumed = await h.tools.resume({ state: out.state, decisions: { 'run1:code:1': { type: 'reject', reason: 'not on a Friday' } }, suspension })
    expect(text(resumed.results[0])).toBe('refused: not on a Friday')
    expect(calls).toEqual([])
  }, 120_000)
})
