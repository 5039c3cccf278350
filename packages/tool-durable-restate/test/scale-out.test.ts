/**
 * Scale-out: three service processes behind one Restate server (a per-stream round-robin proxy in
 * front of them is the one registered deployment), 100 batches of 10 calls of an idempotent tool
 * that takes effect once per idempotency key (a ledger file per key). One worker is killed with
 * kill -9 mid-way; every batch completes, every call takes effect exactly once, and the results
 * equal a one-worker run's. Throughputs (1 and 3 workers) are printed for docs/benchmarks.md; no
 * wall-clock assertion.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { RawToolCall, ToolResult } from '@deepseek-ai/dsh-tools'
import { Harness } from './support/harness'
import { waitFor } from './support/process'
import { RoundRobinProxy } from './support/proxy'

const BATCHES = 100
const CALLS = 10
const target = { service: 'tools', handler: 'execute' }

function batch(i: number, ms: number): RawToolCall[] {
  return Array.from({ length: CALLS }, (_, j) => ({ callId: `c${j}`, name: 'record', arguments: JSON.stringify({ n: i * CALLS + j, ms }) }))
}

function seen(results: readonly ToolResult[]) {
  return results.map((r) => ({ callId: r.callId, text: r.content.map((b) => (b.type === 'text' ? b.text : '')).join(''), code: r.isError ? r.error.info.code : 'ok' }))
}

let h: Harness
let proxy: RoundRobinProxy
const ports: number[] = []
beforeAll(async () => {
  h = await Harness.start()
  for (let i = 0; i < 3; i++) ports.push((await h.service()).port)
  proxy = await RoundRobinProxy.start(ports)
  await h.client.register(proxy.url)
}, 90_000)
afterAll(async () => {
  await proxy?.close()
  await h?.close()
})

/** Runs the 100 batches under `prefix` (all submitted at once); resolves with their results and calls per second. */
async function run(prefix: string, ms: number, during?: (done: () => number) => Promise<void>) {
  let done = 0
  const started = performance.now()
  const all = Promise.all(
    Array.from({ length: BATCHES }, async (_, i) => {
      const key = `${prefix}-${i}`
      const results = await h.client.call<ToolResult[]>(target, { calls: batch(i, ms), key }, { idempotencyKey: key })
      done++
      return results
    }),
  )
  if (during !== undefined) await during(() => done)
  const results = await all
  const seconds = (performance.now() - started) / 1000
  return { results: results.map(seen), callsPerSecond: (BATCHES * CALLS) / seconds }
}

describe('scale-out behind one Restate server', () => {
  test('100 batches of 10 calls on 1 worker, then on 3 with one killed mid-way: exactly once, same results', { timeout: 240_000 }, async () => {
    // One worker: the proxy sends everything to the first process.
    // Fresh keys per attempt (vitest retries once on this shared machine).
    const tag = Date.now().toString(36)
    const [one, three_, kill] = [`one${tag}`, `three${tag}`, `kill${tag}`]
    proxy.only([ports[0]!])
    const single = await run(one, 20)

    proxy.only(ports)
    const three = await run(three_, 20)

    proxy.only(ports)
    // Longer bodies here, so the killed worker surely has calls in flight.
    const killed = await run(kill, 200, async () => {
      // Kill the second worker once a third of the bodies have started: its own are then in flight.
      await waitFor('a third of the bodies to start', 60_000, async () => {
        const started = [...(await h.effectCounts(`${kill}-`)).values()].length
        return started >= (BATCHES * CALLS) / 3 ? true : undefined
      })
      await h.services[1]!.kill()
    })

    expect(three.results).toEqual(single.results)
    expect(killed.results).toEqual(single.results)
    expect(single.results.flat().every((r) => r.code === 'ok')).toBe(true)
    // Exactly once: one ledger entry per call key, for every call of every batch.
    for (const prefix of [one, three_, kill]) {
      const expected = Array.from({ length: BATCHES }, (_, i) => Array.from({ length: CALLS }, (_, j) => `${prefix}-${i}/c${j}`)).flat().sort()
      expect(await h.ledger(`${prefix}-`)).toEqual(expected)
    }
    // The work was spread: every worker served streams in the 3-worker runs.
    for (const port of ports) expect(proxy.served.get(port) ?? 0).toBeGreaterThan(0)
    // Bodies in flight on the killed worker ran again elsewhere (the tool is idempotent), yet took effect once.
    const attempts = [...(await h.effectCounts(`${kill}-`)).values()].reduce((a, b) => a + b, 0)
    expect(attempts).toBeGreaterThan(BATCHES * CALLS)
    console.log(
      `[scale-out] calls/s: 1 worker ${single.callsPerSecond.toFixed(0)}, 3 workers ${three.callsPerSecond.toFixed(0)}, ` +
        `3 workers with one killed ${killed.callsPerSecond.toFixed(0)}; body attempts in the kill run: ${attempts} for ${BATCHES * CALLS} calls`,
    )
  })

  test('figures for docs/benchmarks.md: per-call overhead durable vs in-memory, journal bytes per call', { timeout: 120_000 }, async () => {
    const { Context } = await import('cordis')
    const { ToolRegistry } = await import('@deepseek-ai/dsh-tools')
    const { NativeExecutor } = await import('@deepseek-ai/dsh-tool-executor-native')
    const { mountTools } = await import('./fixtures/tools')
    const memory = new Context()
    await memory.plugin(ToolRegistry)
    await memory.plugin(NativeExecutor, { maxParallelCalls: 10 })
    mountTools(memory, { effects: `${h.dir}/memory-effects.log` })
    proxy.only([ports[0]!])
    const one = (i: number): RawToolCall[] => [{ callId: 'c0', name: 'lookup', arguments: JSON.stringify({ n: i }) }]
    const N = 60
    for (let i = 0; i < 5; i++) await h.client.call(target, { calls: one(i), key: `warm-${i}` })
    let t = performance.now()
    for (let i = 0; i < N; i++) await memory.tools.execute({ calls: one(i) })
    const memoryMs = (performance.now() - t) / N
    t = performance.now()
    const ids: string[] = []
    for (let i = 0; i < N; i++) {
      const sent = await h.client.send(target, { calls: one(i), key: `solo-${i}` })
      await h.client.attach(sent.invocationId)
      ids.push(sent.invocationId)
    }
    const durableMs = (performance.now() - t) / N
    expect(durableMs).toBeGreaterThan(memoryMs)
    const rows = await h.server.query<{ bytes: number }>(`select sum(raw_length) as bytes from sys_journal where id in (${ids.map((id) => `'${id}'`).join(',')})`)
    const input = await h.server.query<{ bytes: number }>(`select sum(raw_length) as bytes from sys_journal where entry_type = 'Command: Input' and id in (${ids.map((id) => `'${id}'`).join(',')})`)
    const tenIds = await h.server.query<{ id: string }>(`select id from sys_invocation where idempotency_key like 'one%' limit 10`)
    const ten = await h.server.query<{ bytes: number; entries: number }>(`select sum(raw_length) as bytes, count(*) as entries from sys_journal where id in (${tenIds.map((r) => `'${r.id}'`).join(',')})`)
    console.log(
      `[bench] one-call batch, sequential: in-memory ${memoryMs.toFixed(3)} ms, Restate ${durableMs.toFixed(2)} ms (ratio ${(durableMs / memoryMs).toFixed(0)}x); ` +
        `journal bytes per one-call batch ${(rows[0]!.bytes / N).toFixed(0)} (input entry ${(input[0]!.bytes / N).toFixed(0)}); ` +
        `10-call batches: ${(ten[0]!.bytes / (tenIds.length * CALLS)).toFixed(0)} bytes and ${(ten[0]!.entries / (tenIds.length * CALLS)).toFixed(1)} entries per call`,
    )
  })
})
