/** The PostgreSQL resume ledger on a real cluster: insert-if-absent per state and per call, shared by two pools (two processes' worth), expired entries taken over. */
import pg from 'pg'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { PostgresResumeLedger } from '@deepseek-ai/dsh-tool-durable-dbos'
import { startCluster, type Cluster } from './cluster'

let cluster: Cluster
let a: pg.Pool
let b: pg.Pool

beforeAll(async () => {
  cluster = await startCluster()
  a = new pg.Pool({ connectionString: cluster.url('postgres'), max: 2 })
  b = new pg.Pool({ connectionString: cluster.url('postgres'), max: 2 })
  // An idle client's connection ends when the cluster stops: pg reports it on the pool.
  for (const pool of [a, b]) pool.on('error', () => undefined)
}, 60_000)
afterAll(async () => {
  await a?.end()
  await b?.end()
  await cluster?.stop()
}, 60_000)

test('a state is consumed and a call claimed once across pools; an expired entry is new again', async () => {
  const one = new PostgresResumeLedger(a)
  const two = new PostgresResumeLedger(b)
  const later = Date.now() + 60_000
  expect(await Promise.all([one.consumeState('s1', later), two.consumeState('s1', later)])).toEqual(expect.arrayContaining([true, false]))
  expect(await one.claimCall('sus', 'c1', later)).toBe(true)
  expect(await two.claimCall('sus', 'c1', later)).toBe(false)
  expect(await two.claimCall('sus', 'c2', later)).toBe(true)
  expect(await one.consumeState('old', Date.now() - 1)).toBe(true)
  expect(await two.consumeState('old', later)).toBe(true)
  expect(await one.consumeState('old', later)).toBe(false)
  expect(() => new PostgresResumeLedger(a, { table: 'x; drop' })).toThrow('PostgresResumeLedger: table must match [a-z_][a-z0-9_]* (at most 63 characters), got "x; drop"')
}, 60_000)
