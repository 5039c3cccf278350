/**
 * Property test of PTC suspension over the core (fast-check, seeded): random programs of
 * sequential and `Promise.all` steps over parallel-safe tools, an exclusive one (`migrate`) and
 * one that needs approval (`deploy`); every approval deferred, then decided at random over one
 * to three resumes, each from the JSON state in a fresh context. The final `run_code` result
 * equals an unsuspended run with the same decisions, every body runs exactly as often as there,
 * and no resumed state is accepted twice.
 */
import fc from 'fast-check'
import { afterAll, expect, test } from 'vitest'
import { SuspensionError, type ApprovalDecision, type BatchOutcome, type ResumeDecision, type SuspendedState } from '@deepseek-ai/dsh-tools'
import { createQuickJsRuntime } from '../src'
import { ptcHarness, runCall, testSuspension } from './fixtures/core-suspend'

const runtime = createQuickJsRuntime()
afterAll(() => runtime.dispose())

const TOOLS = ['read', 'deploy', 'notify', 'migrate'] as const
const step = fc.oneof(
  fc.record({ all: fc.constant(false), tools: fc.array(fc.constantFrom(...TOOLS), { minLength: 1, maxLength: 1 }) }),
  fc.record({ all: fc.constant(true), tools: fc.array(fc.constantFrom(...TOOLS), { minLength: 2, maxLength: 3 }) }),
)

/** The program of `steps`: each sub-call's text names its step and place; a failure is caught and reported in the value. */
function program(steps: readonly { all: boolean; tools: readonly string[] }[]): string {
  const lines = ['const out = []', "const call = async (name, text) => { try { return (await tools[name]({ text })).text } catch (e) { return 'error: ' + e.message } }"]
  steps.forEach((s, i) => {
    const calls = s.tools.map((t, j) => `call('${t}', 's${i}.${j}')`)
    lines.push(s.all ? `out.push(...await Promise.all([${calls.join(', ')}]))` : `out.push(await ${calls[0]})`)
  })
  lines.push('return out')
  return lines.join('\n')
}

const roundTrip = (state: SuspendedState): SuspendedState => JSON.parse(JSON.stringify(state)) as SuspendedState
const sorted = (xs: readonly string[]): string[] => [...xs].sort()

test('random programs, deferred approvals decided at random over several resumes: same result as an unsuspended run, every body as often', { timeout: 240_000 }, async () => {
  // How many batches suspended, and how many resumed more than once (the property is not vacuous).
  let suspendedRuns = 0
  let multiRound = 0
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 4 }), fc.array(fc.record({ approve: fc.boolean(), round: fc.integer({ min: 0, max: 2 }) }), { minLength: 12, maxLength: 12 }), async (steps, choices) => {
      const code = program(steps)
      // The k-th sub-call id of the run (`run1:code:<k>`) gets choice k.
      const choiceOf = (id: string) => choices[(Number(id.split(':').at(-1)) - 1) % choices.length]!
      const decisionOf = (id: string): ResumeDecision => (choiceOf(id).approve ? { type: 'approve' } : { type: 'reject', reason: `no ${id}` })

      const directRuns: string[] = []
      const direct = await ptcHarness(runtime, directRuns, (id) => decisionOf(id) as ApprovalDecision)
      const expected = await direct.tools.execute({ calls: [runCall(code)] })
      await direct.dispose()

      const runs: string[] = []
      const suspension = testSuspension()
      const first = await ptcHarness(runtime, runs)
      let outcome: BatchOutcome = await first.tools.executeSuspendable({ calls: [runCall(code)], suspension })
      await first.dispose()
      const spent: SuspendedState[] = []
      for (let round = 0; outcome.status === 'suspended'; round++) {
        expect(round).toBeLessThan(40)
        const open = outcome.pending.flatMap((p) => p.subCalls ?? []).filter((s) => s.blockedBy === undefined)
        // This round decides the calls whose round has come (all of them from round 2 on).
        const now = open.filter((s) => choiceOf(s.callId).round <= round)
        if (now.length === 0) continue
        const state = roundTrip(outcome.state)
        const next = await ptcHarness(runtime, runs)
        outcome = await next.tools.resume({ state, decisions: Object.fromEntries(now.map((s) => [s.callId, decisionOf(s.callId)])), suspension })
        await next.dispose()
        spent.push(state)
      }
      if (spent.length > 0) suspendedRuns++
      if (spent.length > 1) multiRound++
      expect(outcome.results).toEqual(expected)
      expect(sorted(runs)).toEqual(sorted(directRuns))
      // A state once resumed is refused, whichever it was.
      for (const state of spent.slice(0, 1)) {
        const again = await ptcHarness(runtime, runs)
        await expect(again.tools.resume({ state, decisions: {}, suspension })).rejects.toSatisfy((e: unknown) => e instanceof SuspensionError && e.code === 'STATE_REPLAYED')
        await again.dispose()
      }
    }),
    { numRuns: 25, seed: 20261205 },
  )
  expect(suspendedRuns).toBeGreaterThan(10)
  expect(multiRound).toBeGreaterThan(2)
})

test('fuzz: a bit flip anywhere in a PTC state (its program and journal included) is refused; nothing runs; the original still resumes once', { timeout: 120_000 }, async () => {
  const runs: string[] = []
  const suspension = testSuspension()
  const code = "const a = await tools.read({ text: 'x' })\nconst d = await tools.deploy({ text: a.text })\nreturn d.text"
  const h = await ptcHarness(runtime, runs)
  try {
    const out = await h.tools.executeSuspendable({ calls: [runCall(code)], suspension })
    if (out.status !== 'suspended') throw new Error('expected a suspension')
    const text = JSON.stringify(out.state)
    // Flip bits where the PTC entry lives (the program, its journal of sub-call outcomes, the pending sub-call) as often as anywhere else.
    const journalAt = text.indexOf('"journal"')
    expect(journalAt).toBeGreaterThan(0)
    runs.length = 0
    const codes = new Set<string>()
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.integer({ min: 0, max: text.length - 1 }), fc.integer({ min: journalAt, max: text.length - 1 })), fc.integer({ min: 0, max: 6 }), async (at, bit) => {
        const flipped = text.slice(0, at) + String.fromCharCode(text.charCodeAt(at) ^ (1 << bit)) + text.slice(at + 1)
        const error = await h.tools.resume({ state: flipped, decisions: { 'run1:code:2': { type: 'approve' } }, suspension }).then(
          () => undefined,
          (e: unknown) => e,
        )
        expect(error).toBeInstanceOf(SuspensionError)
        codes.add((error as SuspensionError).code)
      }),
      { seed: 30, numRuns: 200 },
    )
    expect(runs).toEqual([])
    expect([...codes]).toEqual(expect.arrayContaining(['STATE_MALFORMED', 'STATE_SIGNATURE_INVALID']))
    const done = await h.tools.resume({ state: text, decisions: { 'run1:code:2': { type: 'approve' } }, suspension })
    expect(done.status).toBe('complete')
    expect(runs).toEqual(['deploy:read(x)'])
  } finally {
    await h.dispose()
  }
})
