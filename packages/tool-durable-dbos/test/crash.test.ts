/**
 * Real processes on a real PostgreSQL: a worker is killed with SIGKILL in the middle of a batch
 * and restarted with the same executor id; DBOS recovers the workflow and the batch finishes
 * without repeating finished work. Also: an approval that waits across a kill, and an engine
 * that is not there.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { DBOSClient } from '@dbos-inc/dbos-sdk'
import { assertSystemDatabaseReachable, pendingDecision, sendDecision, SystemDatabaseUnreachableError } from '@deepseek-ai/dsh-tool-durable-dbos'
import { durableMessages, type ToolResult } from '@deepseek-ai/dsh-tools'
import { freePort, startCluster, type Cluster } from './cluster'
import { effects, enqueue, kill9, lines, logDir, removeDir, result, startWorker, stopWorker, until, type Worker } from './workers'

let cluster: Cluster
let client: DBOSClient
let url: string
const running: Worker[] = []
const dirs: string[] = []

beforeAll(async () => {
  cluster = await startCluster()
  url = cluster.url('dsh_crash')
}, 60_000)

afterAll(async () => {
  for (const w of running) await stopWorker(w)
  await client?.destroy()
  await cluster?.stop()
  for (const d of dirs) removeDir(d)
}, 60_000)

const shown = (r: ToolResult) => (r.isError ? `${r.error.info.code}: ${r.error.message}` : (r.content[0] as { text: string }).text)

describe('DBOS adapter, crash and recovery', () => {
  test('kill -9 mid-batch: finished calls are not repeated, the interrupted non-idempotent call fails TOOL_OUTCOME_UNKNOWN, the idempotent one re-runs once', async () => {
    const dir = logDir()
    dirs.push(dir)
    let worker = await startWorker('w1', url, dir)
    running.push(worker)
    client = await DBOSClient.create({ systemDatabaseUrl: url })
    await enqueue(client, 'crash-a', [
      { callId: 'c1', name: 'once', arguments: { n: 1, ms: 1 } },
      { callId: 'c2', name: 'once', arguments: { n: 2, ms: 60_000 } },
      { callId: 'c3', name: 'once', arguments: { n: 3, ms: 1 } },
    ])
    await enqueue(client, 'crash-b', [{ callId: 'c1', name: 'effect', arguments: { batch: 7, n: 21, ms: 60_000 } }])
    await until(() => lines(dir, 'once.log').includes('begin crash-a:1/c2') && lines(dir, 'attempts.log').includes('effect crash-b:1/c1'), 30_000, 'both slow calls to start')
    await kill9(worker)
    worker = await startWorker('w1', url, dir, { DSH_FAST: '1' })
    running.push(worker)
    const a = await result(client, 'crash-a')
    const b = await result(client, 'crash-b')
    expect(a.map(shown)).toEqual(['done 1', `TOOL_OUTCOME_UNKNOWN: ${durableMessages.outcomeUnknown('once')}`, 'done 3'])
    expect(lines(dir, 'once.log')).toEqual(['begin crash-a:1/c1', 'end crash-a:1/c1', 'begin crash-a:1/c2', 'begin crash-a:1/c3', 'end crash-a:1/c3'])
    expect(b.map(shown)).toEqual(['7:42'])
    expect(lines(dir, 'attempts.log')).toEqual(['effect crash-b:1/c1', 'effect crash-b:1/c1'])
    expect(effects(dir)).toEqual(['crash-b:1/c1'])
    await stopWorker(worker)
  }, 120_000)

  test('an approval waits durably across a kill -9 and is answered later from another process', async () => {
    const dir = logDir()
    dirs.push(dir)
    let worker = await startWorker('w2', url, dir)
    running.push(worker)
    client ??= await DBOSClient.create({ systemDatabaseUrl: url })
    await enqueue(client, 'approve-a', [
      { callId: 'c1', name: 'effect', arguments: { batch: 1, n: 1, ms: 1 } },
      { callId: 'c2', name: 'transfer', arguments: { amount: 30 } },
    ])
    await until(() => lines(dir, 'attempts.log').length === 1, 30_000, 'the first call')
    let pending = null
    for (let i = 0; i < 100 && pending === null; i++) pending = await pendingDecision(client, 'approve-a', 0.2)
    expect(pending).toEqual({ key: 'approve-a:1/c2', callId: 'c2', toolName: 'transfer', arguments: { amount: 30 }, reason: 'moves money' })
    await kill9(worker)
    worker = await startWorker('w2', url, dir)
    running.push(worker)
    await sendDecision(client, 'approve-a', pending!.key, { type: 'approve' })
    const results = await result(client, 'approve-a')
    expect(results.map(shown)).toEqual(['1:2', 'moved 30'])
    expect(lines(dir, 'attempts.log')).toEqual(['effect approve-a:1/c1', 'transfer approve-a:1/c2'])
    expect(await pendingDecision(client, 'approve-a')).toBeNull()
    await expect(sendDecision(client, 'approve-a', 'x', { type: 'ok' } as never)).rejects.toThrow(`sendDecision(): decision must be { type: 'approve' } or { type: 'reject', reason?: string }, got {"type":"ok"}`)
    await stopWorker(worker)
  }, 120_000)

  test('an unreachable system database is a clear error naming where it looked', async () => {
    const port = await freePort()
    const at = `postgresql://postgres:***@127.0.0.1:${port}/nowhere`
    const error = await assertSystemDatabaseReachable(`postgresql://postgres:secret@127.0.0.1:${port}/nowhere`, 2000).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SystemDatabaseUnreachableError)
    expect((error as Error).message.startsWith(`DBOS system database unreachable at ${at}: `)).toBe(true)
    expect((error as Error).message).not.toContain('secret')
    await expect(assertSystemDatabaseReachable(url)).resolves.toBeUndefined()
  }, 30_000)
})
