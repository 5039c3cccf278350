/**
 * `run_code` over the registry's suspension API (`coreSuspension`, `exec.suspension`): a
 * program whose sub-call is deferred suspends the batch of `ctx.tools.executeSuspendable`; the
 * signed state resumes with `ctx.tools.resume` in a fresh context, replays the journal and
 * continues; every sub-call body runs once.
 */
import { getEventListeners } from 'node:events'
import { afterAll, afterEach, describe, expect, test } from 'vitest'
import { MemoryResumeLedger, SuspensionError, type SuspendedState, type ToolResult } from '@deepseek-ai/dsh-tools'
import { Gate, gatedTool } from '@deepseek-ai/dsh-tool-testkit'
import { createQuickJsRuntime, type PtcRunState } from '../src'
import { harnessPool, roundTrip, runCall, suspended, testSuspension } from './fixtures/core-suspend'
import { countedTool } from './suspension-adapter'

const runtime = createQuickJsRuntime()
afterAll(() => runtime.dispose())
const pool = harnessPool(runtime)
afterEach(() => pool.disposeAll())
const harness = pool.harness
const text = (r: ToolResult | undefined) => (r?.content ?? []).map((b) => (b.type === 'text' ? b.text : '[image]')).join('\n')

const PROGRAM = `
const a = await tools.read({ text: 'config' })
console.log('read', a.text)
const d = await tools.deploy({ text: 'v2' })
const n = await tools.notify({ text: 'done' })
return { a: a.text, d: d.text, n: n.text }`

describe('run_code in a suspendable batch (TypeScript)', () => {
  test('a deferred sub-call suspends the batch; resumed in a fresh context with approve, the result equals an unsuspended run', async () => {
    const direct: string[] = []
    const plain = await harness(direct, () => ({ type: 'approve' }))
    const expected = await plain.tools.execute({ calls: [runCall(PROGRAM)] })
    expect(direct).toEqual(['read:config', 'deploy:v2', 'notify:done'])

    const calls: string[] = []
    const first = await harness(calls)
    const suspension = testSuspension()
    const out = suspended(await first.tools.executeSuspendable({ calls: [runCall(PROGRAM)], suspension }))
    expect(out.results).toEqual([undefined])
    expect(out.pending).toEqual([
      {
        callId: 'run1',
        index: 0,
        toolName: 'run_code',
        arguments: { code: PROGRAM, description: 'test program' },
        status: 'awaiting-approval',
        subCalls: [{ callId: 'run1:code:2', toolName: 'deploy', arguments: { text: 'v2' }, reason: 'deploy needs a human' }],
      },
    ])
    expect(calls).toEqual(['read:config'])
    const entry = out.state.payload.calls[0] as unknown as { journal: PtcRunState }
    expect(entry.journal.program).toBe(PROGRAM)
    expect(entry.journal.journal).toEqual([{ step: 1, callId: 'run1:code:1', name: 'read', arguments: { text: 'config' }, outcome: { ok: true, value: { text: 'read(config)' } } }])
    expect(entry.journal.pending).toEqual([{ step: 2, callId: 'run1:code:2', name: 'deploy', arguments: { text: 'v2' } }])

    const later: string[] = []
    const second = await harness(later)
    const resumed = await second.tools.resume({ state: roundTrip(out.state), decisions: { 'run1:code:2': { type: 'approve' } }, suspension: testSuspension(suspension.ledger) })
    expect(resumed).toEqual({ status: 'complete', results: expected })
    expect(text(resumed.results[0])).toBe(`read read(config)\n${JSON.stringify({ a: 'read(config)', d: 'deploy(v2)', n: 'notify(done)' }, null, 2)}`)
    // Each body ran once over both processes: read in the first, deploy and notify in the resume.
    expect(later).toEqual(['deploy:v2', 'notify:done'])
  })

  test('reject: the sub-call gets the rejection inside the program; nothing runs', async () => {
    const calls: string[] = []
    const h = await harness(calls)
    const suspension = testSuspension()
    const program = `try { await tools.deploy({ text: 'x' }) } catch (e) { return 'refused: ' + e.message }`
    const out = suspended(await h.tools.executeSuspendable({ calls: [runCall(program)], suspension }))
    const resumed = await h.tools.resume({ state: roundTrip(out.state), decisions: { 'run1:code:1': { type: 'reject', reason: 'not on a Friday' } }, suspension })
    expect(resumed.status).toBe('complete')
    expect(text(resumed.results[0])).toBe('refused: not on a Friday')
    expect(calls).toEqual([])
  })

  test('Promise.all with two deferred sub-calls: pending together; a partial decision suspends again; then complete', async () => {
    const calls: string[] = []
    const h = await harness(calls)
    const suspension = testSuspension()
    const program = `
const [x, y, z] = await Promise.all([tools.deploy({ text: 'a' }), tools.read({ text: 'b' }), tools.deploy({ text: 'c' })])
return [x.text, y.text, z.text]`
    const out = suspended(await h.tools.executeSuspendable({ calls: [runCall(program)], suspension }))
    expect(out.pending[0]?.subCalls?.map((s) => [s.callId, s.arguments])).toEqual([
      ['run1:code:1', { text: 'a' }],
      ['run1:code:3', { text: 'c' }],
    ])
    expect(calls).toEqual(['read:b'])
    const again = suspended(await h.tools.resume({ state: roundTrip(out.state), decisions: { 'run1:code:1': { type: 'approve' } }, suspension }))
    expect(again.pending[0]?.subCalls).toEqual([{ callId: 'run1:code:3', toolName: 'deploy', arguments: { text: 'c' }, reason: 'deploy needs a human' }])
    expect(calls).toEqual(['read:b', 'deploy:a'])
    // The approved sub-call of the first state is no pending call any more.
    await expect(h.tools.resume({ state: again.state, decisions: { 'run1:code:1': { type: 'approve' } }, suspension })).rejects.toMatchObject({ code: 'DECISION_INVALID', pointer: '/decisions/run1:code:1' })
    const done = await h.tools.resume({ state: again.state, decisions: { 'run1:code:3': { type: 'approve' } }, suspension })
    expect(done.status).toBe('complete')
    expect(text(done.results[0])).toBe(JSON.stringify(['deploy(a)', 'read(b)', 'deploy(c)'], null, 2))
    expect(calls).toEqual(['read:b', 'deploy:a', 'deploy:c'])
  })

  test('resume twice: STATE_REPLAYED; a sub-call claimed by another resume: ALREADY_EXECUTED inside the program', async () => {
    const calls: string[] = []
    const h = await harness(calls)
    const ledger = new MemoryResumeLedger()
    const suspension = testSuspension(ledger)
    const program = `try { return (await tools.deploy({ text: 'once' })).text } catch (e) { return 'failed: ' + e.message }`
    const out = suspended(await h.tools.executeSuspendable({ calls: [runCall(program)], suspension }))
    const decisions = { 'run1:code:1': { type: 'approve' as const } }
    const first = await h.tools.resume({ state: out.state, decisions, suspension })
    expect(text(first.results[0])).toBe('deploy(once)')
    const replay = await h.tools.resume({ state: out.state, decisions, suspension }).catch((e: unknown) => e)
    expect(replay).toBeInstanceOf(SuspensionError)
    expect((replay as SuspensionError).code).toBe('STATE_REPLAYED')

    // Another suspension of the same program whose sub-call a concurrent resume already claimed.
    const other = suspended(await h.tools.executeSuspendable({ calls: [runCall(program)], suspension }))
    ledger.claimCall(other.state.payload.suspensionId, 'run1:code:1', other.state.payload.expiresAt)
    const claimed = await h.tools.resume({ state: other.state, decisions, suspension })
    expect(text(claimed.results[0])).toBe('failed: Tool "deploy" was already run by another resume of this batch; it was not run again and its outcome is not known here')
    expect(calls).toEqual(['deploy:once'])
  })

  test('a journal that does not match the program: PTC_REPLAY_DIVERGED naming k, expected and got; nothing runs', async () => {
    const calls: string[] = []
    const h = await harness(calls)
    const suspension = testSuspension()
    const out = suspended(await h.tools.executeSuspendable({ calls: [runCall(PROGRAM)], suspension }))
    // A state whose journal another program wrote (signed with the deployment key: a key holder's change).
    const payload = JSON.parse(JSON.stringify(out.state.payload)) as { calls: { journal: PtcRunState }[] }
    const journal = payload.calls[0]!.journal
    payload.calls[0]!.journal = { ...journal, journal: [{ ...journal.journal[0]!, arguments: { text: 'secrets' } }] }
    const forged = suspension.sign(payload as unknown as SuspendedState['payload'])
    const resumed = await h.tools.resume({ state: forged, decisions: { 'run1:code:2': { type: 'approve' } }, suspension })
    const r = resumed.results[0]
    expect(r?.isError && [r.error.info.code, r.error.message]).toEqual(['PTC_REPLAY_DIVERGED', 'replay diverged at sub-call 1: expected read {"text":"secrets"}, got read {"text":"config"}'])
    expect(calls).toEqual(['read:config'])
  })

  test('a program that behaves differently on replay (it reads the registered tool names): PTC_REPLAY_DIVERGED; nothing runs', async () => {
    const calls: string[] = []
    const first = await harness(calls)
    const suspension = testSuspension()
    const program = `const names = Object.keys(tools).sort().join(','); await tools.read({ text: names }); return (await tools.deploy({ text: names })).text`
    const out = suspended(await first.tools.executeSuspendable({ calls: [runCall(program)], suspension }))
    expect(calls).toEqual(['read:deploy,migrate,notify,read'])
    // The resuming process registers one more tool: the program asks for other arguments at step 1.
    const second = await harness(calls)
    second.ctx.tools.register(countedTool('audit', calls))
    const resumed = await second.tools.resume({ state: roundTrip(out.state), decisions: { 'run1:code:2': { type: 'approve' } }, suspension })
    const r = resumed.results[0]
    expect(r?.isError && [r.error.info.code, r.error.message]).toEqual(['PTC_REPLAY_DIVERGED', 'replay diverged at sub-call 1: expected read {"text":"deploy,migrate,notify,read"}, got read {"text":"audit,deploy,migrate,notify,read"}'])
    expect(calls).toEqual(['read:deploy,migrate,notify,read'])
    expect(runtime.stats().activeRuns).toBe(0)
  })

  test('inside the program, an exclusive sub-call issued beside a deferred one is pending as blocked; it runs after it on resume', async () => {
    const calls: string[] = []
    const h = await harness(calls)
    const suspension = testSuspension()
    const program = `
const d = tools.deploy({ text: 'a' })
const m = tools.migrate({ text: 'b' })
const r = await tools.read({ text: 'c' })
return [(await d).text, (await m).text, r.text]`
    const out = suspended(await h.tools.executeSuspendable({ calls: [runCall(program)], suspension }))
    expect(out.pending[0]?.subCalls).toEqual([
      { callId: 'run1:code:1', toolName: 'deploy', arguments: { text: 'a' }, reason: 'deploy needs a human' },
      { callId: 'run1:code:2', toolName: 'migrate', arguments: { text: 'b' }, blockedBy: 'run1:code:1' },
      { callId: 'run1:code:3', toolName: 'read', arguments: { text: 'c' }, blockedBy: 'run1:code:1' },
    ])
    expect(calls).toEqual([])
    const done = await h.tools.resume({ state: roundTrip(out.state), decisions: { 'run1:code:1': { type: 'approve' } }, suspension })
    expect(text(done.results[0])).toBe(JSON.stringify(['deploy(a)', 'migrate(b)', 'read(c)'], null, 2))
    expect(calls).toEqual(['deploy:a', 'migrate:b', 'read:c'])
  })

  test('a decision for a later sub-call only: the undecided one is asked again and still holds back the exclusive one behind it', async () => {
    const calls: string[] = []
    const h = await harness(calls)
    const suspension = testSuspension()
    const program = `
const [a, c, m] = await Promise.all([tools.deploy({ text: 'a' }), tools.deploy({ text: 'c' }), tools.migrate({ text: 'm' })])
return [a.text, c.text, m.text]`
    const out = suspended(await h.tools.executeSuspendable({ calls: [runCall(program)], suspension }))
    expect(out.pending[0]?.subCalls?.map((r) => [r.callId, r.blockedBy ?? 'awaiting'])).toEqual([
      ['run1:code:1', 'awaiting'],
      ['run1:code:2', 'awaiting'],
      ['run1:code:3', 'run1:code:1'],
    ])
    const again = suspended(await h.tools.resume({ state: roundTrip(out.state), decisions: { 'run1:code:2': { type: 'approve' } }, suspension }))
    expect(again.pending[0]?.subCalls?.map((r) => [r.callId, r.blockedBy ?? 'awaiting'])).toEqual([
      ['run1:code:1', 'awaiting'],
      ['run1:code:3', 'run1:code:1'],
    ])
    expect(calls).toEqual(['deploy:c'])
    const done = await h.tools.resume({ state: again.state, decisions: { 'run1:code:1': { type: 'approve' } }, suspension })
    expect(text(done.results[0])).toBe(JSON.stringify(['deploy(a)', 'deploy(c)', 'migrate(m)'], null, 2))
    expect(calls).toEqual(['deploy:c', 'deploy:a', 'migrate:m'])
  })

  test('a later run_code (exclusive) waiting behind a program that suspends is pending as blocked, and runs on resume', async () => {
    const calls: string[] = []
    const h = await harness(calls)
    const suspension = testSuspension()
    const batch = [runCall(`return (await tools.deploy({ text: 'a' })).text`), runCall(`return (await tools.notify({ text: 'after' })).text`, 'run2')]
    const out = suspended(await h.tools.executeSuspendable({ calls: batch, suspension }))
    expect(out.pending.map((p) => [p.callId, p.status, p.blockedBy])).toEqual([
      ['run1', 'awaiting-approval', undefined],
      ['run2', 'blocked', 'run1'],
    ])
    expect(calls).toEqual([])
    const done = await h.tools.resume({ state: roundTrip(out.state), decisions: { 'run1:code:1': { type: 'approve' } }, suspension })
    expect(done.results.map(text)).toEqual(['deploy(a)', 'notify(after)'])
    expect(calls).toEqual(['deploy:a', 'notify:after'])
  })

  test('abort while resuming: the approved sub-call is aborted, run_code settles ABORTED, nothing else runs', async () => {
    const calls: string[] = []
    const h = await harness(calls)
    const gate = new Gate()
    h.ctx.tools.register(gatedTool(gate))
    h.ctx.on('tools/pre-execute', (exec, next) => (exec.name === 'gated' ? { type: 'ask' } : next()))
    const suspension = testSuspension()
    const program = `const a = await tools.read({ text: 'x' }); const g = await tools.gated({ id: a.text }); await tools.notify({ text: 'late' }); return g.id`
    const out = suspended(await h.tools.executeSuspendable({ calls: [runCall(program)], suspension }))
    expect(out.pending[0]?.subCalls?.map((s) => s.callId)).toEqual(['run1:code:2'])
    const controller = new AbortController()
    const running = h.tools.resume({ state: out.state, decisions: { 'run1:code:2': { type: 'approve' } }, suspension, signal: controller.signal })
    await gate.started(1)
    controller.abort()
    const done = await running
    const r = done.results[0]
    expect(done.status).toBe('complete')
    expect(r?.isError && r.error.info.code).toBe('ABORTED')
    expect([gate.starts, gate.aborted]).toEqual([['run1:code:2'], ['run1:code:2']])
    expect(calls).toEqual(['read:x'])
    expect(getEventListeners(controller.signal, 'abort')).toEqual([])
  })

  test('suspending leaves no abort listener and no run behind; a resume with an aborted signal runs nothing (ABORTED_BEFORE_DISPATCH)', async () => {
    const calls: string[] = []
    const h = await harness(calls)
    const suspension = testSuspension()
    const controller = new AbortController()
    const out = suspended(await h.tools.executeSuspendable({ calls: [runCall(PROGRAM)], suspension, signal: controller.signal }))
    expect([getEventListeners(controller.signal, 'abort').length, runtime.stats().activeRuns]).toEqual([0, 0])
    controller.abort()
    const resumed = await h.tools.resume({ state: out.state, decisions: { 'run1:code:2': { type: 'approve' } }, suspension, signal: controller.signal })
    const r = resumed.results[0]
    expect([resumed.status, r?.isError && r.error.info.code]).toEqual(['complete', 'ABORTED_BEFORE_DISPATCH'])
    expect(calls).toEqual(['read:config'])
  })

  test('outside a suspendable batch a deferred sub-call fails closed inside the program (TOOL_DENIED)', async () => {
    const calls: string[] = []
    const h = await harness(calls)
    const [r] = await h.tools.execute({ calls: [runCall(`try { await tools.deploy({ text: 'a' }) } catch (e) { return e.message }`)] })
    expect(text(r)).toBe('Tool "deploy" needs approval and its approval was deferred, but this batch cannot suspend')
    expect(calls).toEqual([])
  })
})
