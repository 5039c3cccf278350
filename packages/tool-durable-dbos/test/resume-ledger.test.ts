/**
 * `PostgresResumeLedger` through `ctx.tools.resume` across real processes: a batch suspends at an
 * approval in this process; three other processes, each with its own pool on the same
 * PostgreSQL, resume the same signed state at once with the same approval. Exactly one resumes
 * (its results are those of an unsuspended run) and runs the approved call; the other two are
 * refused with `STATE_REPLAYED`; the call's effect happens once.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createSuspension } from '@deepseek-ai/dsh-tools'
import { createHarness } from '@deepseek-ai/dsh-tool-testkit'
import { startCluster, type Cluster } from './cluster'
import { registerRaceTools, RACE_KEY } from './resume-tools'

const here = dirname(fileURLToPath(import.meta.url))
const repo = join(here, '..', '..', '..')
let cluster: Cluster
let dir: string
const children: ChildProcess[] = []

beforeAll(async () => {
  cluster = await startCluster()
  dir = mkdtempSync(join(tmpdir(), 'dsh-resume-race-'))
}, 60_000)

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL')
  await cluster?.stop()
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
}, 60_000)

interface Racer {
  readonly child: ChildProcess
  /** Resolves with the child's last stdout line (its outcome) once it exited. */
  readonly outcome: Promise<string>
}

/** Starts a resume process; resolves once it printed `ready` (bounded: 60 s). */
function startRacer(env: Record<string, string>): Promise<Racer> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=dsh-source', join(here, 'resume-racer.ts')], { cwd: repo, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] })
  children.push(child)
  let out = ''
  let err = ''
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()))
  const outcome = new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => (code === 0 ? resolve(out.trim().split('\n').at(-1)!) : reject(new Error(`resume process exited with ${code}: ${err}`))))
  })
  outcome.catch(() => undefined)
  return new Promise<Racer>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`resume process not ready within 60 s: ${err}`)), 60_000)
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString()
      if (out.startsWith('ready\n')) {
        clearTimeout(timer)
        resolve({ child, outcome })
      }
    })
    child.once('exit', () => clearTimeout(timer))
  })
}

test('three processes resume one state at once: one runs the approved call, two are refused STATE_REPLAYED', { timeout: 180_000 }, async () => {
  const calls = [
    { callId: 'a', name: 'read', arguments: '{"path":"notes.txt"}' },
    { callId: 'b', name: 'write', arguments: '{"text":"hello"}' },
    { callId: 'c', name: 'read', arguments: '{"path":"after.txt"}' },
  ]
  // The reference: the same batch with the approval given at once.
  const direct = await createHarness()
  registerRaceTools(direct.ctx, () => undefined)
  direct.ctx.tools.approval({ request: async () => ({ type: 'approve' }) })
  const expected = await direct.tools.execute({ calls })
  await direct.dispose()

  const h = await createHarness()
  registerRaceTools(h.ctx, () => undefined)
  const out = await h.tools.executeSuspendable({ calls, suspension: createSuspension({ keys: { k1: RACE_KEY }, signWith: 'k1' }) })
  await h.dispose()
  expect(out.status).toBe('suspended')
  if (out.status !== 'suspended') return
  expect(out.pending.map((p) => [p.callId, p.status])).toEqual([
    ['b', 'awaiting-approval'],
    ['c', 'blocked'],
  ])
  const stateFile = join(dir, 'state.json')
  const effects = join(dir, 'effects.log')
  writeFileSync(stateFile, JSON.stringify(out.state))
  writeFileSync(effects, '')

  const env = { DSH_DB_URL: cluster.url('postgres'), DSH_STATE_FILE: stateFile, DSH_EFFECTS: effects }
  const racers = await Promise.all([startRacer(env), startRacer(env), startRacer(env)])
  for (const r of racers) r.child.stdin!.end('go\n')
  const outcomes = (await Promise.all(racers.map((r) => r.outcome))).map((line) => JSON.parse(line) as { status?: string; results?: unknown; refused?: string })

  expect(outcomes.filter((o) => o.refused === 'STATE_REPLAYED')).toHaveLength(2)
  const resumed = outcomes.filter((o) => o.status !== undefined)
  expect(resumed).toHaveLength(1)
  expect(resumed[0]).toEqual({ status: 'complete', results: JSON.parse(JSON.stringify(expected)) })
  const lines = readFileSync(effects, 'utf8').trim().split('\n')
  expect(lines).toHaveLength(1)
  expect(lines[0]).toMatch(/^\d+ hello$/)
})
