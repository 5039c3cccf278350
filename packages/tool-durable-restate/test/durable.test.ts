/**
 * Batches run inside a real Restate handler (restate-server from npm, the fixture service as a
 * Node 22 process): each body journaled, replays served from the journal, approvals as
 * awakeables resolved over the ingress, a kill -9 of service and server mid-batch, cancellation
 * from Restate, bad input. One server for the file.
 */
import { Context } from 'cordis'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ToolRegistry, type RawToolCall, type ToolResult } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'
import { RestateHttpError } from '../src/client'
import { mountTools } from './fixtures/tools'
import { Harness } from './support/harness'
import { waitFor } from './support/process'

/** What the model sees of a result, and its code. */
function seen(results: readonly ToolResult[]) {
  return results.map((r) => ({
    callId: r.callId,
    text: r.content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join(''),
    code: r.isError ? r.error.info.code : 'ok',
  }))
}

const call = (callId: string, name: string, args: Record<string, unknown>): RawToolCall => ({ callId, name, arguments: JSON.stringify(args) })
const target = { service: 'tools', handler: 'execute' }

let h: Harness
let servicePort: number
beforeAll(async () => {
  h = await Harness.start()
  servicePort = (await h.service()).port
  await h.client.register(`http://127.0.0.1:${servicePort}`)
}, 60_000)
afterAll(async () => {
  await h?.close()
})

describe('a batch in a Restate handler', () => {
  const batch = [
    call('c1', 'charge', { amount: 5 }),
    call('c2', 'lookup', { n: 21 }),
    call('c3', 'lookpu', {}),
    call('c4', 'charge', { amount: 'x' }),
  ]

  test('returns what an in-memory run returns, each body run once and journaled as a step', async () => {
    const results = await h.client.call<ToolResult[]>(target, { calls: batch, key: 'same' }, { idempotencyKey: 'same' })

    const memory = new Context()
    await memory.plugin(ToolRegistry)
    await memory.plugin(NativeExecutor, { maxParallelCalls: 10 })
    mountTools(memory, { effects: `${h.dir}/memory-effects.log` })
    const expected = await memory.tools.execute({ calls: batch })

    expect(seen(results)).toEqual(seen(expected))
    expect(seen(results).map((r) => r.code)).toEqual(['ok', 'ok', 'UNKNOWN_TOOL', 'INVALID_ARGS'])
    expect([...(await h.effectCounts('same/'))]).toEqual([
      ['same/c1', 1],
      ['same/c2', 1],
    ])
  })

  test('the same idempotency key answers from Restate without running any body again', async () => {
    const again = await h.client.call<ToolResult[]>(target, { calls: batch, key: 'same' }, { idempotencyKey: 'same' })
    expect(seen(again).map((r) => r.code)).toEqual(['ok', 'ok', 'UNKNOWN_TOOL', 'INVALID_ARGS'])
    expect([...(await h.effectCounts('same/'))]).toEqual([
      ['same/c1', 1],
      ['same/c2', 1],
    ])
  })

  test('the journal holds each dispatched call as a start and a call step, reserved in batch order', async () => {
    const sent = await h.client.send(target, { calls: batch, key: 'journal' })
    await h.client.attach(sent.invocationId)
    const runs = (await h.journal(sent.invocationId)).filter((e) => e.entry_type === 'Command: Run').map((e) => e.name)
    // Every call's entries are created up front in batch order (the ask step first, as approvals are on);
    // c3 and c4 never dispatch, so their entries stay unexecuted.
    expect(runs).toEqual(['c1', 'c2', 'c3', 'c4'].flatMap((id) => [`dsh:ask:journal/${id}`, `dsh:start:journal/${id}`, `dsh:call:journal/${id}`]))
  })
})

describe('approvals as awakeables', () => {
  test('an ask suspends the invocation until the decision arrives over the ingress; approve runs the call once', async () => {
    const sent = await h.client.send(target, { calls: [call('d1', 'delete_file', { path: '/tmp/a' }), call('d2', 'lookup', { n: 1 })], key: 'approve' })
    const pending = await h.pendingApproval('approve', 'd1')
    expect(pending).toMatchObject({ toolName: 'delete_file', reason: 'delete /tmp/a', key: 'approve/d1' })
    // Nothing holds a process while the approval waits: Restate suspends the invocation.
    await waitFor('the invocation to suspend', 20_000, async () => ((await h.status(sent.invocationId)) === 'suspended' ? true : undefined))
    expect(await h.effectCounts('approve/d1')).toEqual(new Map())

    await h.client.decide(pending.awakeableId, { type: 'approve' })
    const results = await h.client.attach<ToolResult[]>(sent.invocationId)
    expect(seen(results)).toEqual([
      { callId: 'd1', text: 'deleted /tmp/a', code: 'ok' },
      { callId: 'd2', text: '2', code: 'ok' },
    ])
    expect(await h.effectCounts('approve/d1')).toEqual(new Map([['approve/d1', 1]]))
  })

  test('a rejection from outside fails the call with its reason and never runs the body', async () => {
    const sent = await h.client.send(target, { calls: [call('d1', 'delete_file', { path: '/tmp/b' })], key: 'reject' })
    const pending = await h.pendingApproval('reject', 'd1')
    await h.client.decide(pending.awakeableId, { type: 'reject', reason: 'not today' })
    const results = await h.client.attach<ToolResult[]>(sent.invocationId)
    expect(seen(results)[0]!.code).toBe('TOOL_DENIED')
    expect(seen(results)[0]!.text).toContain('not today')
    expect(await h.effectCounts('reject/')).toEqual(new Map())
  })
})

describe('kill -9 of the service and the server mid-batch', () => {
  test('the batch completes after a restart: finished calls are not run again, an interrupted idempotent call is, a non-idempotent one fails TOOL_OUTCOME_UNKNOWN', { timeout: 90_000 }, async () => {
    const sent = await h.client.send(target, {
      key: 'crash',
      calls: [call('fast', 'charge', { amount: 1 }), call('slow', 'charge', { amount: 2, ms: 60_000 }), call('idem', 'lookup', { n: 4, ms: 2_000 })],
    })
    // Wait until the fast call's outcome is journaled and both slow bodies are running.
    await waitFor('the fast call to be journaled and the slow ones to start', 30_000, async () => {
      const counts = await h.effectCounts('crash/')
      if (counts.get('crash/slow') !== 1 || counts.get('crash/idem') !== 1) return undefined
      const journal = await h.journal(sent.invocationId)
      return journal.filter((e) => e.entry_type === 'Notification: Run').length >= 4 ? true : undefined
    })
    const service = h.services[0]!
    await Promise.all([service.kill(), h.server.kill()])
    await h.server.start()
    await service.start()

    const results = await h.client.attach<ToolResult[]>(sent.invocationId)
    expect(seen(results)).toEqual([
      { callId: 'fast', text: '{"charged":1}', code: 'ok' },
      {
        callId: 'slow',
        text: 'Error: Tool "charge" was interrupted: the worker running it stopped before it finished, so it may or may not have taken effect. Check its effect before calling it again.',
        code: 'TOOL_OUTCOME_UNKNOWN',
      },
      { callId: 'idem', text: '8', code: 'ok' },
    ])
    // Each side effect once, except the idempotent call, which ran again under the same key.
    expect([...(await h.effectCounts('crash/'))].sort()).toEqual([
      ['crash/fast', 1],
      ['crash/idem', 2],
      ['crash/slow', 1],
    ])
  })
})

describe('cancellation from Restate', () => {
  test('cancelling the invocation aborts the running call through its signal and the batch still returns', async () => {
    const sent = await h.client.send(target, { key: 'cancel', calls: [call('long', 'charge', { amount: 1, ms: 60_000 })] })
    await waitFor('the call to start', 20_000, async () => ((await h.effectCounts('cancel/')).get('cancel/long') === 1 ? true : undefined))
    const response = await fetch(`${h.server.adminUrl}/invocations/${sent.invocationId}/cancel`, { method: 'PATCH' })
    expect(response.status).toBe(202)
    const results = await h.client.attach<ToolResult[]>(sent.invocationId)
    // The body saw the abort (it throws 'charge aborted' when its signal aborts) well before its 60 s.
    expect(seen(results)).toEqual([{ callId: 'long', text: 'Error: charge aborted', code: 'TOOL_FAILED' }])
  })
})

describe('bad input', () => {
  test('an input without calls, or with a repeated call id, is a 400 naming the field, never retried', async () => {
    const error = await h.client.call(target, { calls: 5 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RestateHttpError)
    expect((error as RestateHttpError).status).toBe(400)
    expect((error as RestateHttpError).body).toContain('execute: the input must be { \\"calls\\": [...] } (got object)')

    const repeated = await h.client.call(target, { calls: [call('x', 'lookup', { n: 1 }), call('x', 'lookup', { n: 2 })] }).catch((e: unknown) => e)
    expect((repeated as RestateHttpError).status).toBe(400)
    expect((repeated as RestateHttpError).body).toContain(`calls/1/callId \\"x\\" repeats an earlier call's id`)
  })

  test('a step value that is not JSON fails the step naming the tool, the step and the place', async () => {
    const error = await h.client.call({ service: 'probe', handler: 'nonJson' }, null).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RestateHttpError)
    expect((error as RestateHttpError).body).toContain('Tool \\"charge\\": the value of step \\"dsh:call:')
    expect((error as RestateHttpError).body).toContain('is not JSON, so Restate cannot journal it: /value: a BigInt (10n) is not JSON')
  })
})
