/**
 * Scale-out on one PostgreSQL: 100 batches of 10 calls spread over worker processes by a DBOS
 * queue. One worker alone gives the reference results; then three workers, one killed with
 * SIGKILL mid-way and restarted with its executor id. Every call's effect applies exactly once
 * (one effect file per idempotency key), every batch completes, and the results equal the
 * single-process run's. Then three workers without a kill, for throughput (printed; the figures
 * in docs/benchmarks.md come from this test — no wall-clock assertion here).
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { DBOSClient } from '@dbos-inc/dbos-sdk'
import type { RawToolCall, ToolResult } from '@deepseek-ai/dsh-tools'
import { startCluster, type Cluster } from './cluster'
import { effects, enqueue, kill9, lines, logDir, removeDir, result, startWorker, stopWorker, until, type Worker } from './workers'

const BATCHES = 100
const CALLS = 10

let cluster: Cluster
let client: DBOSClient
let url: string
const running: Worker[] = []
const dirs: string[] = []

beforeAll(async () => {
  cluster = await startCluster()
  url = cluster.url('dsh_scale')
  client = await DBOSClient.create({ systemDatabaseUrl: url })
}, 60_000)

afterAll(async () => {
  for (const w of running) await stopWorker(w)
  await client?.destroy()
  await cluster?.stop()
  for (const d of dirs) removeDir(d)
}, 60_000)

function batch(b: number): RawToolCall[] {
  return Array.from({ length: CALLS }, (_, n) => ({ callId: `c${n}`, name: 'effect', arguments: { batch: b, n, ms: 20 } }))
}

async function workers(prefix: string, count: number, dir: string): Promise<Worker[]> {
  const started = await Promise.all(Array.from({ length: count }, (_, i) => startWorker(`${prefix}${i + 1}`, url, dir, { DSH_WORKER_CONCURRENCY: '8' })))
  running.push(...started)
  return started
}

/** Enqueues every batch of phase `phase` and returns their results in batch order, with the elapsed ms. */
async function runAll(phase: string, during?: () => Promise<void>): Promise<{ results: (readonly ToolResult[])[]; ms: number }> {
  const t0 = performance.now()
  for (let b = 0; b < BATCHES; b++) await enqueue(client, `${phase}-${b}`, batch(b))
  const pending = Promise.all(Array.from({ length: BATCHES }, (_, b) => result(client, `${phase}-${b}`)))
  await during?.()
  const results = await pending
  return { results, ms: performance.now() - t0 }
}

function expectExactlyOnce(dir: string, phase: string): void {
  const keys = Array.from({ length: BATCHES }, (_, b) => Array.from({ length: CALLS }, (_, n) => `${phase}-${b}:1/c${n}`)).flat()
  expect(effects(dir).sort()).toEqual(keys.sort())
}

test('100 batches of 10 calls over 3 workers, one killed mid-way: exactly-once effects, every batch complete, results as with one worker', async () => {
  const single = logDir()
  dirs.push(single)
  const [alone] = await workers('s', 1, single)
  const reference = await runAll('single')
  await stopWorker(alone!)
  expectExactlyOnce(single, 'single')
  expect(lines(single, 'attempts.log')).toHaveLength(BATCHES * CALLS)

  const dir = logDir()
  dirs.push(dir)
  const three = await workers('m', 3, dir)
  const crashed = await runAll('multi', async () => {
    await until(() => effects(dir).length >= (BATCHES * CALLS) / 4, 120_000, 'a quarter of the effects')
    await kill9(three[1]!)
    running.push(await startWorker('m2', url, dir, { DSH_WORKER_CONCURRENCY: '8' }))
  })
  expectExactlyOnce(dir, 'multi')
  expect(crashed.results).toEqual(reference.results)
  const attempts = lines(dir, 'attempts.log').length
  expect(attempts).toBeGreaterThanOrEqual(BATCHES * CALLS)
  for (const w of running.splice(0)) await stopWorker(w)

  const fast = logDir()
  dirs.push(fast)
  await workers('t', 3, fast)
  const parallel = await runAll('three')
  expectExactlyOnce(fast, 'three')
  expect(parallel.results).toEqual(reference.results)
  const perSecond = (ms: number) => Math.round((BATCHES * CALLS * 1000) / ms)
  console.log(`[scale-out] ${BATCHES}x${CALLS} calls: 1 worker ${perSecond(reference.ms)} calls/s; 3 workers ${perSecond(parallel.ms)} calls/s; 3 workers with a kill -9 ${perSecond(crashed.ms)} calls/s (${attempts - BATCHES * CALLS} bodies re-run after the kill)`)
}, 480_000)
