/**
 * Deterministic replay of suspended programs through the whole pipeline (`replay.ts`,
 * `bridge.ts`): a sub-call whose approval is deferred suspends `run_code`; resuming replays the
 * journal, runs the approved call once and continues; divergence, partial decisions,
 * `Promise.all` with several deferred calls, abort during a replay.
 */
import { getEventListeners } from 'node:events'
import { afterAll, afterEach, describe, expect, test } from 'vitest'
import type { ToolResult } from '@deepseek-ai/dsh-tools'
import { createHarness, Gate, gatedTool, type Harness } from '@deepseek-ai/dsh-tool-testkit'
import { canonicalJson, createPtcExecutor, createQuickJsRuntime, Replayer, RUN_CODE, type PtcRunState } from '../src'
import { countedTool, TestSuspension } from './suspension-adapter'

let h: Harness
afterEach(async () => {
  await h?.dispose()
})

const text = (r: ToolResult | undefined) => (r?.content ?? []).map((b) => (b.type === 'text' ? b.text : '[image]')).join('\n')
const runCall = (code: string, callId = 'run1') => ({ callId, name: RUN_CODE, arguments: JSON.stringify({ code, description: 'test program' }) })

const runtime = createQuickJsRuntime()
afterAll(() => runtime.dispose())

async function setup(ask: readonly string[]) {
  const suspension = new TestSuspension()
  h = await createHarness({ executor: createPtcExecutor({ runtime, limits: { wallMs: 10_000, computeMs: 5_000 }, suspension }) })
  const calls: string[] = []
  for (const name of ['read', 'deploy', 'notify']) h.ctx.tools.register(countedTool(name, calls))
  suspension.install(h, ask)
  return { suspension, calls }
}

const SEQUENTIAL = `
const a = await tools.read({ text: 'config' })
const r = Math.random()
const t = Date.now()
console.log('read', a.text)
const d = await tools.deploy({ text: 'v2 ' + r + ' ' + t })
const n = await tools.notify({ text: 'done' })
return { a: a.text, d: d.text.startsWith('deploy(v2 ' + r + ' ' + t + ')'), n: n.text }`

describe('run_code suspends on a deferred sub-call and resumes by replay', () => {
  test('the state holds the program, the journal and the pending call; resume runs the approved call once', async () => {
    const { suspension, calls } = await setup(['deploy'])
    const [first] = await h.execute([runCall(SEQUENTIAL)])
    expect(first?.isError && first.error.info?.code).toBe('TEST_SUSPENDED')
    expect(calls).toEqual(['read:config'])
    const state = suspension.state('run1')
    expect(state.version).toBe(1)
    expect(state.language).toBe('typescript')
    expect(state.program).toBe(SEQUENTIAL)
    expect(state.journal).toEqual([{ step: 1, callId: 'run1:code:1', name: 'read', arguments: { text: 'config' }, outcome: { ok: true, value: { text: 'read(config)' } } }])
    expect(state.pending.map((p) => [p.step, p.callId, p.name])).toEqual([[2, 'run1:code:2', 'deploy']])
    const deployText = (state.pending[0]?.arguments as { text: string }).text

    suspension.resume('run1', { 'run1:code:2': { type: 'approve' } })
    const [second] = await h.execute([runCall(SEQUENTIAL)])
    expect(text(second)).toBe(`read read(config)\n${JSON.stringify({ a: 'read(config)', d: true, n: 'notify(done)' }, null, 2)}`)
    // Nothing ran twice: read once (first run), deploy once with the frozen text, notify once.
    expect(calls).toEqual(['read:config', `deploy:${deployText}`, 'notify:done'])
  })

  test('a rejected call gets the rejection; the program sees it as a failed tool call', async () => {
    const { suspension, calls } = await setup(['deploy'])
    const program = `try { await tools.deploy({ text: 'x' }) } catch (e) { return 'refused: ' + e.message }`
    await h.execute([runCall(program)])
    suspension.resume('run1', { 'run1:code:1': { type: 'reject', reason: 'not on a Friday' } })
    const [r] = await h.execute([runCall(program)])
    expect(text(r)).toBe('refused: not on a Friday')
    expect(calls).toEqual([])
  })

  test('Promise.all with several deferred calls: all pending together; partial decisions suspend again with the rest', async () => {
    const { suspension, calls } = await setup(['deploy'])
    const program = `
const [x, y, z] = await Promise.all([tools.deploy({ text: 'a' }), tools.read({ text: 'b' }), tools.deploy({ text: 'c' })])
return [x.text, y.text, z.text]`
    await h.execute([runCall(program)])
    const state = suspension.state('run1')
    expect(state.pending.map((p) => [p.callId, p.arguments])).toEqual([
      ['run1:code:1', { text: 'a' }],
      ['run1:code:3', { text: 'c' }],
    ])
    expect(state.journal.map((e) => e.callId)).toEqual(['run1:code:2'])
    suspension.resume('run1', { 'run1:code:1': { type: 'approve' } })
    const [again] = await h.execute([runCall(program)])
    expect(again?.isError && again.error.message).toBe('suspended with 1 pending')
    const second = suspension.state('run1')
    expect(second.pending.map((p) => p.callId)).toEqual(['run1:code:3'])
    expect(second.journal.map((e) => e.callId).sort()).toEqual(['run1:code:1', 'run1:code:2'])
    suspension.resume('run1', { 'run1:code:3': { type: 'approve' } })
    const [done] = await h.execute([runCall(program)])
    expect(text(done)).toBe(JSON.stringify(['deploy(a)', 'read(b)', 'deploy(c)'], null, 2))
    expect(calls).toEqual(['read:b', 'deploy:a', 'deploy:c'])
  })

  test('a program that asks for another call at step k than the journal holds fails with PTC_REPLAY_DIVERGED; nothing runs', async () => {
    const { suspension, calls } = await setup(['deploy'])
    await h.execute([runCall(SEQUENTIAL)])
    const state = suspension.state('run1')
    const tampered: PtcRunState = { ...state, journal: [{ ...state.journal[0]!, arguments: { text: 'secrets' } }] }
    suspension.resume('run1', { 'run1:code:2': { type: 'approve' } }, tampered)
    const [r] = await h.execute([runCall(SEQUENTIAL)])
    expect(r?.isError && [r.error.info?.code, r.error.message]).toEqual(['PTC_REPLAY_DIVERGED', 'replay diverged at sub-call 1: expected read {"text":"secrets"}, got read {"text":"config"}'])
    expect(calls).toEqual(['read:config'])
  })

  test('a program that ends before re-issuing a journaled step diverges', async () => {
    const { suspension, calls } = await setup(['deploy'])
    await h.execute([runCall(SEQUENTIAL)])
    const state = suspension.state('run1')
    const other = `return 1`
    suspension.resume('run1', {}, { ...state, program: other })
    const [r] = await h.execute([runCall(other)])
    expect(r?.isError && [r.error.info?.code, r.error.message]).toEqual(['PTC_REPLAY_DIVERGED', 'replay diverged at sub-call 1: expected read {"text":"config"}, got the end of the program'])
    expect(calls).toEqual(['read:config'])
  })

  test('a malformed state, or one for another program, is refused naming the field', async () => {
    const { suspension } = await setup(['deploy'])
    await h.execute([runCall(SEQUENTIAL)])
    const state = suspension.state('run1')
    suspension.resume('run1', {}, { ...state, journal: [{ ...state.journal[0]!, step: '1' }] })
    const [bad] = await h.execute([runCall(SEQUENTIAL)])
    expect(bad?.isError && [bad.error.info?.code, bad.error.message]).toEqual(['PTC_STATE_INVALID', 'the run_code state is malformed: /journal/0/step must be a positive integer, got "1"'])
    suspension.resume('run1', {}, state)
    const [other] = await h.execute([runCall('return 2')])
    expect(other?.isError && other.error.message).toBe('the run_code state holds another program than the call being resumed')
  })

  test('abort during a replay: the approved call is aborted, nothing else runs again', async () => {
    const { suspension, calls } = await setup(['gated'])
    const gate = new Gate()
    h.ctx.tools.register(gatedTool(gate))
    const program = `const a = await tools.read({ text: 'x' }); return (await tools.gated({ id: a.text })).id`
    await h.execute([runCall(program)])
    suspension.resume('run1', { 'run1:code:2': { type: 'approve' } })
    const controller = new AbortController()
    const running = h.execute([runCall(program)], { signal: controller.signal })
    await gate.started(1)
    controller.abort(new Error('user left'))
    const [r] = await running
    expect(r?.isError && r.error.info?.code).toBe('ABORTED')
    expect([gate.aborted, calls]).toEqual([['run1:code:2'], ['read:x']])
  })
})

describe('leaks', () => {
  test('suspending and replaying leave no abort listener and no run behind', async () => {
    const { suspension } = await setup(['deploy'])
    const controller = new AbortController()
    await h.execute([runCall(SEQUENTIAL)], { signal: controller.signal })
    suspension.resume('run1', { 'run1:code:2': { type: 'approve' } })
    const [r] = await h.execute([runCall(SEQUENTIAL)], { signal: controller.signal })
    expect(r?.isError).toBe(false)
    expect([getEventListeners(controller.signal, 'abort').length, runtime.stats().activeRuns]).toEqual([0, 0])
  })
})

describe('Replayer', () => {
  const state = (journal: PtcRunState['journal'], pending: PtcRunState['pending'] = []): PtcRunState => ({ version: 1, language: 'typescript', program: '', journal, pending, determinism: { seed: 1, clock: [], perf: [] } })
  const ok = (step: number, v: string) => ({ step, callId: `r:code:${step}`, name: 't', arguments: { v }, outcome: { ok: true as const, value: v } })

  test('releases journaled replies in the order they settled, whatever order the program asks', async () => {
    // Step 2 settled before step 1 in the first run.
    const replayer = new Replayer(state([ok(2, 'b'), ok(1, 'a')]), new Map())
    const order: string[] = []
    const one = replayer.plan(1, 't', { v: 'a' })
    const two = replayer.plan(2, 't', { v: 'b' })
    if (one.kind !== 'journal' || two.kind !== 'journal') throw new Error('expected journal plans')
    const a = one.ready.then(() => {
      order.push('a')
      one.done()
    })
    const b = two.ready.then(() => {
      order.push('b')
      two.done()
    })
    await Promise.all([a, b])
    expect(order).toEqual(['b', 'a'])
  })

  test('a reply whose predecessor in settlement order is not asked for in the same turn goes one turn later (no hang)', async () => {
    const replayer = new Replayer(state([ok(2, 'b'), ok(1, 'a')]), new Map())
    const one = replayer.plan(1, 't', { v: 'a' })
    if (one.kind !== 'journal') throw new Error('expected a journal plan')
    let released = false
    const waited = one.ready.then(() => {
      released = true
    })
    await Promise.resolve()
    expect(released).toBe(false)
    await waited
    one.done()
    expect(released).toBe(true)
    expect(replayer.unfinished()).toBe('replay diverged at sub-call 2: expected t {"v":"b"}, got the end of the program')
  })

  test('plans a pending step by its decision, a later step live, and names what was never asked for', () => {
    const pending = [{ step: 2, callId: 'r:code:2', name: 'deploy', arguments: { v: 1 } }]
    const replayer = new Replayer(state([ok(1, 'a')], pending), new Map([['r:code:2', { type: 'approve' as const }]]))
    expect(replayer.unfinished()).toBe('replay diverged at sub-call 1: expected t {"v":"a"}, got the end of the program')
    expect(replayer.plan(1, 't', { v: 'a' }).kind).toBe('journal')
    expect(replayer.plan(2, 'deploy', { v: 1 })).toEqual({ kind: 'decided', decision: { type: 'approve' } })
    expect(replayer.plan(3, 'x', {})).toEqual({ kind: 'live' })
    expect(replayer.unfinished()).toBeUndefined()
    expect(new Replayer(state([], pending), new Map()).plan(2, 'deploy', { v: 1 })).toEqual({ kind: 'undecided' })
  })

  test('compares arguments as JSON with keys in any order', () => {
    expect(canonicalJson({ b: [1, { d: 2, c: null }], a: 'x' })).toBe('{"a":"x","b":[1,{"c":null,"d":2}]}')
    const replayer = new Replayer(state([{ ...ok(1, 'a'), arguments: { x: 1, y: 2 } }]), new Map())
    expect(replayer.plan(1, 't', { y: 2, x: 1 }).kind).toBe('journal')
  })
})
