/**
 * Hostile states and cancellation around suspension: a fuzz of bit flips over a state's JSON
 * text, swapped call ids, states from another key, replays; aborts while suspended and while
 * resuming; no listener left on the caller's signal.
 */
import { getEventListeners } from 'node:events'
import fc from 'fast-check'
import { afterEach, expect, test } from 'vitest'
import { createSuspension, defineTool, SuspensionError, type BatchOutcome } from '@deepseek-ai/dsh-tools'
import { createHarness, type Harness } from '@deepseek-ai/dsh-tool-testkit'
import { registerAskPolicy, registerSuspendTools, TEST_KEY } from './fixtures/suspend-tools'

let h: Harness
let runs: string[]
afterEach(async () => {
  await h?.dispose()
})

async function suspendedState(): Promise<{ text: string; suspension: ReturnType<typeof createSuspension> }> {
  runs = []
  h = await createHarness()
  registerSuspendTools(h.ctx, runs)
  registerAskPolicy(h.ctx, () => ({ type: 'defer' }))
  const suspension = createSuspension({ keys: { k1: TEST_KEY }, signWith: 'k1' })
  const out = await h.tools.executeSuspendable({ calls: [{ callId: 'a', name: 'echo', arguments: '{"text":"go"}' }, { callId: 'b', name: 'write', arguments: '{"text":"ask"}' }, { callId: 'c', name: 'write', arguments: '{"text":"after"}' }], suspension })
  if (out.status !== 'suspended') throw new Error('expected a suspension')
  runs.length = 0
  return { text: JSON.stringify(out.state), suspension }
}

test('fuzz: any bit flip of the state text is refused with a SuspensionError, runs nothing and consumes nothing', async () => {
  const { text, suspension } = await suspendedState()
  const codes = new Set<string>()
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 0, max: text.length - 1 }), fc.integer({ min: 0, max: 6 }), async (at, bit) => {
      const flipped = text.slice(0, at) + String.fromCharCode(text.charCodeAt(at) ^ (1 << bit)) + text.slice(at + 1)
      const error = await h.tools.resume({ state: flipped, decisions: {}, suspension }).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(error).toBeInstanceOf(SuspensionError)
      codes.add((error as SuspensionError).code)
    }),
    { seed: 31, numRuns: 300 },
  )
  expect(runs).toEqual([])
  expect([...codes].sort()).toEqual(expect.arrayContaining(['STATE_MALFORMED', 'STATE_SIGNATURE_INVALID']))
  // The original still resumes once.
  const done = await h.tools.resume({ state: text, decisions: { b: { type: 'approve' } }, suspension })
  expect(done.results.map((r) => r && !r.isError && r.value)).toEqual(['echo(go)', 'write(ask)', 'write(after)'])
})

test('swapped call ids and a state from another key are refused; a replay is refused after the first resume', async () => {
  const { text, suspension } = await suspendedState()
  const swapped = JSON.parse(text)
  ;[swapped.payload.calls[1].callId, swapped.payload.calls[2].callId] = [swapped.payload.calls[2].callId, swapped.payload.calls[1].callId]
  await expect(h.tools.resume({ state: swapped, suspension })).rejects.toMatchObject({ code: 'STATE_SIGNATURE_INVALID' })
  const foreign = createSuspension({ keys: { k1: 'f'.repeat(32) }, signWith: 'k1' })
  await expect(h.tools.resume({ state: text, suspension: foreign })).rejects.toMatchObject({ code: 'STATE_SIGNATURE_INVALID' })
  const again = await h.tools.resume({ state: text, suspension })
  expect(again.status).toBe('suspended')
  await expect(h.tools.resume({ state: text, suspension })).rejects.toMatchObject({ code: 'STATE_REPLAYED' })
  expect(runs).toEqual([])
})

test('abort while suspended changes nothing and leaves no listener; resume under an aborted signal: ABORTED_BEFORE_DISPATCH', async () => {
  const { text, suspension } = await suspendedState()
  const controller = new AbortController()
  controller.abort()
  const out = await h.tools.resume({ state: text, decisions: { b: { type: 'approve' } }, suspension, signal: controller.signal })
  expect(out.results.map((r) => r && (r.isError ? r.error.info.code : r.value))).toEqual(['echo(go)', 'ABORTED_BEFORE_DISPATCH', 'ABORTED_BEFORE_DISPATCH'])
  expect(runs).toEqual([])
  expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0)
})

test('abort while resuming: the running body sees it (ABORTED), the blocked call after it never starts; no listener left', async () => {
  runs = []
  h = await createHarness()
  h.ctx.tools.register(
    defineTool({
      name: 'slow',
      description: 'waits for the gate',
      parameters: { text: { type: 'string', required: true } },
      output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
      execute: async ({ text }, exec) => {
        runs.push(`slow:${text}`)
        await new Promise((_, reject) => exec.signal.addEventListener('abort', () => reject(exec.signal.reason), { once: true }))
        return text
      },
    }),
  )
  registerAskPolicy(h.ctx, () => ({ type: 'defer' }))
  const suspension = createSuspension({ keys: { k1: TEST_KEY }, signWith: 'k1' })
  const first = (await h.tools.executeSuspendable({ calls: [{ callId: 'a', name: 'slow', arguments: '{"text":"ask"}' }, { callId: 'b', name: 'slow', arguments: '{"text":"then"}' }], suspension })) as Extract<BatchOutcome, { status: 'suspended' }>
  expect(first.pending.map((p) => p.status)).toEqual(['awaiting-approval', 'blocked'])
  const controller = new AbortController()
  const resuming = h.tools.resume({ state: first.state, decisions: { a: { type: 'approve' } }, suspension, signal: controller.signal })
  while (runs.length === 0) await new Promise((r) => setTimeout(r, 1))
  controller.abort()
  const out = await resuming
  expect(out.results.map((r) => r && r.isError && r.error.info.code)).toEqual(['ABORTED', 'ABORTED_BEFORE_DISPATCH'])
  expect(runs).toEqual(['slow:ask'])
  expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0)
})
