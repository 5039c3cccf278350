import { afterEach, describe, expect, test } from 'vitest'
import { createSuspension, defineTool, MemoryResumeLedger, SuspensionError, type ApprovalDecision, type BatchOutcome, type RawToolCall, type ToolResult } from '@deepseek-ai/dsh-tools'
import { createHarness, type Harness } from '@deepseek-ai/dsh-tool-testkit'
import { registerAskPolicy, registerSuspendTools, TEST_KEY as KEY } from './fixtures/suspend-tools'

let h: Harness
let runs: string[]
afterEach(async () => {
  await h?.dispose()
})

const c = (callId: string, name: string, text: string): RawToolCall => ({ callId, name, arguments: JSON.stringify({ text }) })
const texts = (results: readonly (ToolResult | undefined)[]): string[] => results.map((r) => (r === undefined ? 'pending' : r.isError ? `${r.error.info.code}` : String(r.value)))

async function setup(answer: (callId: string) => ApprovalDecision = () => ({ type: 'defer' }), version?: string): Promise<void> {
  runs = []
  h = await createHarness()
  registerSuspendTools(h.ctx, runs, version)
  registerAskPolicy(h.ctx, answer)
}

function suspended(outcome: BatchOutcome): Extract<BatchOutcome, { status: 'suspended' }> {
  if (outcome.status !== 'suspended') throw new Error('expected a suspended outcome')
  return outcome
}

describe('suspension: which calls still run', () => {
  test('a deferred exclusive call blocks every later call; earlier calls complete', async () => {
    await setup()
    const suspension = createSuspension({ keys: { k1: KEY }, signWith: 'k1' })
    const out = suspended(await h.tools.executeSuspendable({ calls: [c('a', 'echo', 'x'), c('b', 'write', 'ask-1'), c('c', 'echo', 'y'), c('d', 'write', 'z')], suspension }))
    expect(texts(out.results)).toEqual(['echo(x)', 'pending', 'pending', 'pending'])
    expect(out.pending.map((p) => [p.callId, p.status, p.blockedBy ?? p.reason])).toEqual([
      ['b', 'awaiting-approval', 'check b'],
      ['c', 'blocked', 'b'],
      ['d', 'blocked', 'b'],
    ])
    expect(out.pending[0]!.arguments).toEqual({ text: 'ask-1' })
    expect(runs).toEqual(['echo:x'])
  })

  test('a deferred parallel-safe call lets later parallel-safe calls run and blocks the next exclusive call and all after it', async () => {
    await setup()
    const suspension = createSuspension({ keys: { k1: KEY }, signWith: 'k1' })
    const out = suspended(await h.tools.executeSuspendable({ calls: [c('a', 'echo', 'ask-a'), c('b', 'echo', 'y'), c('c', 'write', 'w'), c('d', 'echo', 'z')], suspension }))
    expect(texts(out.results)).toEqual(['pending', 'echo(y)', 'pending', 'pending'])
    expect(out.pending.map((p) => `${p.callId}:${p.status}`)).toEqual(['a:awaiting-approval', 'c:blocked', 'd:blocked'])
    expect(runs).toEqual(['echo:y'])
  })

  test('without deferral the outcome is complete and equals execute()', async () => {
    await setup(() => ({ type: 'approve' }))
    const suspension = createSuspension({ keys: { k1: KEY }, signWith: 'k1' })
    const calls = [c('a', 'echo', 'ask-x'), c('b', 'write', 'y')]
    const out = await h.tools.executeSuspendable({ calls, suspension })
    expect(out.status).toBe('complete')
    expect(out.results).toEqual(await h.tools.execute({ calls }))
  })

  test('plain execute(): a deferral fails the call closed', async () => {
    await setup()
    const [r] = await h.tools.execute({ calls: [c('a', 'write', 'ask')] })
    expect(r!.isError && r!.error).toEqual({ message: 'Tool "write" needs approval and its approval was deferred, but this batch cannot suspend', info: { name: 'ApprovalDeferred', code: 'TOOL_DENIED', reason: 'check a', toolName: 'write' } })
    expect(runs).toEqual([])
  })
})

describe('resume', () => {
  test('approve and reject: results equal an unsuspended run with the same decisions; each body runs once', async () => {
    const calls = [c('a', 'echo', 'x'), c('b', 'write', 'ask-1'), c('c', 'echo', 'ask-2'), c('d', 'write', 'z')]
    const decide = (id: string): ApprovalDecision => (id === 'b' ? { type: 'approve' } : { type: 'reject', reason: 'no' })
    await setup(decide)
    const direct = await h.tools.execute({ calls })
    const directRuns = [...runs]
    await h.dispose()

    await setup()
    const suspension = createSuspension({ keys: { k1: KEY }, signWith: 'k1' })
    const out = suspended(await h.tools.executeSuspendable({ calls, suspension }))
    const text = JSON.stringify(out.state)
    const resumed = await h.tools.resume({ state: JSON.parse(text), decisions: { b: { type: 'approve' }, c: { type: 'reject', reason: 'no' } }, suspension })
    expect(resumed.status).toBe('complete')
    expect(resumed.results).toEqual(direct)
    expect(texts(resumed.results)).toEqual(['echo(x)', 'write(ask-1)', 'TOOL_DENIED', 'write(z)'])
    expect(runs).toEqual(directRuns)
    expect(Object.isFrozen(resumed.results) && resumed.results.every((r) => Object.isFrozen(r))).toBe(true)
  })

  test('partial decisions keep it suspended; the derived state finishes it; the first state is refused after', async () => {
    await setup()
    const suspension = createSuspension({ keys: { k1: KEY }, signWith: 'k1' })
    const calls = [c('a', 'echo', 'ask-a'), c('b', 'echo', 'ask-b'), c('c', 'write', 'w')]
    const first = suspended(await h.tools.executeSuspendable({ calls, suspension }))
    const second = suspended(await h.tools.resume({ state: first.state, decisions: { a: { type: 'approve' } }, suspension }))
    expect(texts(second.results)).toEqual(['echo(ask-a)', 'pending', 'pending'])
    expect(second.state.payload.suspensionId).toBe(first.state.payload.suspensionId)
    const done = await h.tools.resume({ state: second.state, decisions: { b: { type: 'approve' } }, suspension })
    expect(texts(done.results)).toEqual(['echo(ask-a)', 'echo(ask-b)', 'write(w)'])
    expect(runs).toEqual(['echo:ask-a', 'echo:ask-b', 'write:w'])
    await expect(h.tools.resume({ state: first.state, decisions: { a: { type: 'approve' } }, suspension })).rejects.toMatchObject({ code: 'STATE_REPLAYED', pointer: '/payload/stateId' })
    expect(runs).toHaveLength(3)
  })

  test('a changed definition fails the call TOOL_CHANGED; a removed tool is UNKNOWN_TOOL; neither runs', async () => {
    await setup(undefined, '1')
    const suspension = createSuspension({ keys: { k1: KEY }, signWith: 'k1' })
    const out = suspended(await h.tools.executeSuspendable({ calls: [c('a', 'write', 'ask'), c('b', 'echo', 'ask')], suspension }))
    await h.dispose()
    runs = []
    h = await createHarness()
    h.ctx.tools.register(defineTool({ name: 'write', description: 'w', version: '2', parameters: { text: { type: 'string', required: true } }, output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] }, execute: () => { runs.push('write'); return 'x' } }))
    const done = await h.tools.resume({ state: out.state, decisions: { a: { type: 'approve' }, b: { type: 'approve' } }, suspension })
    expect(done.results.map((r) => r?.isError && [r.error.info.code, r.error.message])).toEqual([
      ['TOOL_CHANGED', 'Tool "write" changed since this call was suspended (its schemas or version differ); the call was not run'],
      ['UNKNOWN_TOOL', 'Unknown tool "echo". Available tools: write'],
    ])
    expect(runs).toEqual([])
  })
})

describe('integrity', () => {
  async function stateOf(): Promise<{ state: Extract<BatchOutcome, { status: 'suspended' }>['state']; suspension: ReturnType<typeof createSuspension> }> {
    await setup()
    const suspension = createSuspension({ keys: { k1: KEY }, signWith: 'k1' })
    const out = suspended(await h.tools.executeSuspendable({ calls: [c('a', 'write', 'ask')], suspension }))
    return { state: out.state, suspension }
  }

  test('tampered, forged, unknown-key, expired, foreign and malformed states and bad decisions are refused with codes and pointers', async () => {
    const { state, suspension } = await stateOf()
    const tampered = JSON.parse(JSON.stringify(state))
    tampered.payload.calls[0].frozenArguments.text = 'rm -rf'
    const refuse = (s: unknown, decisions: unknown = {}, sus = suspension) => h.tools.resume({ state: s as never, decisions: decisions as never, suspension: sus }).catch((e: SuspensionError) => [e.code, e.pointer])
    expect(await refuse(tampered)).toEqual(['STATE_SIGNATURE_INVALID', '/sig'])
    const other = createSuspension({ keys: { k1: 'o'.repeat(32) }, signWith: 'k1' })
    expect(await refuse(state, {}, other)).toEqual(['STATE_SIGNATURE_INVALID', '/sig'])
    expect(await refuse({ ...state, kid: 'k9' })).toEqual(['STATE_UNKNOWN_KEY', '/kid'])
    expect(await refuse({ ...state, version: 2 })).toEqual(['STATE_VERSION_UNSUPPORTED', '/version'])
    expect(await refuse({ ...state, payload: 'x' })).toEqual(['STATE_MALFORMED', '/payload'])
    expect(await refuse('{')).toEqual(['STATE_MALFORMED', ''])
    expect(await refuse(state, { zz: { type: 'approve' } })).toEqual(['DECISION_INVALID', '/decisions/zz'])
    expect(await refuse(state, { a: { type: 'maybe' } })).toEqual(['DECISION_INVALID', '/decisions/a/type'])
    expect(await refuse(state, { a: { type: 'reject', reason: 4 } })).toEqual(['DECISION_INVALID', '/decisions/a/reason'])
    const late = createSuspension({ keys: { k1: KEY }, signWith: 'k1', now: () => Date.now() + 25 * 3600_000 })
    expect(await refuse(state, {}, late)).toEqual(['STATE_EXPIRED', '/payload/expiresAt'])
    const agent = h.agent('a1')
    await expect(h.tools.resume({ state, suspension, agent: agent.agent })).rejects.toMatchObject({ code: 'STATE_FOREIGN', pointer: '/payload/scope' })
    expect(runs).toEqual([])
    // Still resumable after all those refusals: none consumed it.
    const done = await h.tools.resume({ state, decisions: { a: { type: 'approve' } }, suspension })
    expect(texts(done.results)).toEqual(['write(ask)'])
  })

  test('key rotation: a state signed with the old key resumes under a suspension that signs with the new one', async () => {
    const { state } = await stateOf()
    const ledger = new MemoryResumeLedger()
    const rotated = createSuspension({ keys: { k2: 'n'.repeat(32), k1: KEY }, signWith: 'k2', ledger })
    const out = suspended(await h.tools.resume({ state, suspension: rotated }))
    expect(out.state.kid).toBe('k2')
    expect(ledger.size).toBe(1)
  })

  test('a ledger that already holds a call claim: ALREADY_EXECUTED, the body does not run', async () => {
    const { state, suspension } = await stateOf()
    suspension.ledger.claimCall(state.payload.suspensionId, 'a', state.payload.expiresAt)
    const done = await h.tools.resume({ state, decisions: { a: { type: 'approve' } }, suspension })
    expect(done.results[0]!.isError && done.results[0]!.error.info.code).toBe('ALREADY_EXECUTED')
    expect(runs).toEqual([])
  })
})
