/**
 * Deterministic replay of suspended Python programs through the whole pipeline: an
 * `asyncio.gather` with several deferred sub-calls suspends `run_code` with all of them pending;
 * resuming replays the journal (and `random` / `time`), runs the approved calls once, and a
 * program that asks for another call than the journal holds fails with `PTC_REPLAY_DIVERGED`.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import type { ToolResult } from '@deepseek-ai/dsh-tools'
import { createPtcExecutor, RUN_CODE, type PtcRunState } from '@deepseek-ai/dsh-tool-executor-ptc'
import { getEventListeners } from 'node:events'
import { createHarness, Gate, gatedTool, type Harness } from '@deepseek-ai/dsh-tool-testkit'
import { countedTool, TestSuspension } from '../../tool-executor-ptc/test/suspension-adapter'
import { createPythonRuntime } from '../src/index'
import { BOOT_MS } from './helpers'

const runtime = createPythonRuntime()
beforeAll(() => runtime.warmUp(), BOOT_MS)
afterAll(() => runtime.dispose())

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

const text = (r: ToolResult | undefined) => (r?.content ?? []).map((b) => (b.type === 'text' ? b.text : '')).join('')
const runCall = (code: string) => ({ callId: 'run1', name: RUN_CODE, arguments: JSON.stringify({ code, description: 'test program' }) })

async function setup(ask: readonly string[] = ['deploy']) {
  const suspension = new TestSuspension()
  h = await createHarness({ executor: createPtcExecutor({ runtime, suspension, limits: { wallMs: 30_000, computeMs: 20_000 } }) })
  const calls: string[] = []
  for (const name of ['read', 'deploy']) h.ctx.tools.register(countedTool(name, calls))
  suspension.install(h, ask)
  return { suspension, calls }
}

const PROGRAM = `import asyncio, random, time
seed = random.randint(1, 10**9)
stamp = time.time_ns()
first = await tools.read(text="config")
a, b = await asyncio.gather(tools.deploy(text=f"a {seed}"), tools.deploy(text=f"b {stamp}"))
print(first["text"], a["text"] == f"deploy(a {seed})", b["text"] == f"deploy(b {stamp})")
return "done"`

describe('Python programs suspend and replay', () => {
  test('asyncio.gather with two deferred calls: both pending; resume runs each once and the program continues', async () => {
    const { suspension, calls } = await setup()
    const [first] = await h!.execute([runCall(PROGRAM)])
    expect(first?.isError && first.error.message).toBe('suspended with 2 pending')
    const state = suspension.state('run1')
    expect([state.language, state.journal.map((e) => e.callId), state.pending.map((p) => p.callId)]).toEqual(['python', ['run1:code:1'], ['run1:code:2', 'run1:code:3']])
    suspension.resume('run1', { 'run1:code:2': { type: 'approve' }, 'run1:code:3': { type: 'approve' } })
    const [done] = await h!.execute([runCall(PROGRAM)])
    expect(text(done)).toBe('read(config) True True\ndone')
    const [a, b] = state.pending.map((p) => (p.arguments as { text: string }).text)
    expect(calls).toEqual(['read:config', `deploy:${a}`, `deploy:${b}`])
  })

  test('a journal that does not match the program diverges at that step, naming both calls', async () => {
    const { suspension, calls } = await setup()
    await h!.execute([runCall(PROGRAM)])
    const state = suspension.state('run1')
    const tampered: PtcRunState = { ...state, journal: [{ ...state.journal[0]!, name: 'deploy' }] }
    suspension.resume('run1', {}, tampered)
    const [r] = await h!.execute([runCall(PROGRAM)])
    expect(r?.isError && [r.error.info?.code, r.error.message]).toEqual(['PTC_REPLAY_DIVERGED', 'replay diverged at sub-call 1: expected deploy {"text":"config"}, got read {"text":"config"}'])
    expect(calls).toEqual(['read:config'])
  })

  test('abort during a replay: the approved call is aborted, nothing runs again, nothing is left behind', async () => {
    const { suspension, calls } = await setup(['gated'])
    const gate = new Gate()
    h!.ctx.tools.register(gatedTool(gate))
    const program = 'a = await tools.read(text="x")\nreturn (await tools.gated(id=a["text"]))["id"]'
    await h!.execute([runCall(program)])
    suspension.resume('run1', { 'run1:code:2': { type: 'approve' } })
    const controller = new AbortController()
    const running = h!.execute([runCall(program)], { signal: controller.signal })
    await gate.started(1)
    controller.abort(new Error('user left'))
    const [r] = await running
    expect(r?.isError && r.error.info?.code).toBe('ABORTED')
    expect([gate.aborted, calls]).toEqual([['run1:code:2'], ['read:x']])
    expect([getEventListeners(controller.signal, 'abort').length, runtime.stats().activeRuns]).toEqual([0, 0])
  })
})
