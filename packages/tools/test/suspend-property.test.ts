/**
 * Property tests of suspension (fast-check, seeded): random batches of parallel-safe and
 * exclusive calls, random calls deferred, random decisions given over one or more resumes.
 * Resuming gives exactly the results of an unsuspended run with the same decisions, each body
 * runs at most once (exactly once when approved or not asked), and a suspended run never runs a
 * call the barrier rules hold back.
 */
import fc from 'fast-check'
import { expect, test } from 'vitest'
import { createSuspension, type ApprovalDecision, type BatchOutcome, type ResumeDecision } from '@deepseek-ai/dsh-tools'
import { createHarness } from '@deepseek-ai/dsh-tool-testkit'
import { registerAskPolicy, registerSuspendTools, TEST_KEY } from './fixtures/suspend-tools'

interface Spec {
  readonly exclusive: boolean
  readonly ask: boolean
  readonly decision: 'approve' | 'reject'
  /** Which resume (0-based) decides this call. */
  readonly round: number
}

const spec = fc.record({ exclusive: fc.boolean(), ask: fc.boolean(), decision: fc.constantFrom<'approve' | 'reject'>('approve', 'reject'), round: fc.integer({ min: 0, max: 2 }) })

test('suspend at random points, resume with random decisions: same results as an unsuspended run, every call at most once', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(spec, { minLength: 1, maxLength: 8 }), async (specs) => {
      const calls = specs.map((s, i) => ({ callId: `c${i}`, name: s.exclusive ? 'write' : 'echo', arguments: JSON.stringify({ text: `${s.ask ? 'ask' : 'go'}-${i}` }) }))
      const decisionOf = (id: string): ResumeDecision => {
        const s = specs[Number(id.slice(1))]!
        return s.decision === 'approve' ? { type: 'approve' } : { type: 'reject', reason: `no ${id}` }
      }
      // The unsuspended run with the same decisions.
      const directRuns: string[] = []
      const direct = await (async () => {
        const h = await createHarness()
        try {
          registerSuspendTools(h.ctx, directRuns)
          registerAskPolicy(h.ctx, (id) => decisionOf(id) as ApprovalDecision)
          return await h.tools.execute({ calls })
        } finally {
          await h.dispose()
        }
      })()
      const runs: string[] = []
      const h = await createHarness()
      try {
        registerSuspendTools(h.ctx, runs)
        registerAskPolicy(h.ctx, () => ({ type: 'defer' }))
        const suspension = createSuspension({ keys: { k1: TEST_KEY }, signWith: 'k1' })
        let outcome: BatchOutcome = await h.tools.executeSuspendable({ calls, suspension })
        // Barrier rule: nothing at or after the first pending exclusive call, and no exclusive call after a pending one, has run.
        if (outcome.status === 'suspended') {
          const firstPending = outcome.results.findIndex((r) => r === undefined)
          outcome.results.forEach((r, i) => {
            if (i > firstPending && r !== undefined) {
              expect(specs[i]!.exclusive).toBe(false)
              expect(specs.slice(firstPending, i).some((s) => s.exclusive)).toBe(false)
            }
          })
        }
        for (let round = 0; outcome.status === 'suspended'; round++) {
          const decisions: Record<string, ResumeDecision> = {}
          for (const p of outcome.pending) if (p.status === 'awaiting-approval' && (specs[p.index]!.round <= round || round >= 2)) decisions[p.callId] = decisionOf(p.callId)
          const state = JSON.parse(JSON.stringify(outcome.state))
          outcome = await h.tools.resume({ state, decisions, suspension })
          expect(round).toBeLessThan(4)
        }
        expect(outcome.results).toEqual(direct)
        expect([...runs].sort()).toEqual([...directRuns].sort())
        expect(new Set(runs).size).toBe(runs.length)
      } finally {
        await h.dispose()
      }
    }),
    { seed: 30, numRuns: 40 },
  )
}, 120_000)
