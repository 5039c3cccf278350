/**
 * The README's commands with real processes: start the agent, kill it (SIGKILL) while turn 1's
 * `pack_order` runs, start it again (turn 1 finishes without packing twice; the interrupted
 * pack is reported as maybe-done), approve the refund from another process, and the workflow
 * finishes.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { startDatabase, type LocalDatabase } from '../src/db'
import { freePort } from '../../../scripts/free-port'

const here = dirname(fileURLToPath(import.meta.url))
const repo = join(here, '..', '..', '..')
const main = join(here, '..', 'src', 'main.ts')
let db: LocalDatabase
let home: string
const children: ChildProcess[] = []


beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'dsh-durable-agent-'))
  // PostgreSQL runs as the postgres user when the test runs as root: it must reach the cluster dir.
  chmodSync(home, 0o755)
  db = await startDatabase(join(home, 'pg'), await freePort())
}, 60_000)

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  await db?.stop()
  rmSync(home, { recursive: true, force: true })
}, 60_000)

/** Runs `main.ts <args>` (node with tsx's loader, so a SIGKILL reaches the agent itself). */
function run(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=dsh-source', main, ...args], {
    cwd: repo,
    env: { ...process.env, DSH_DATABASE_URL: db.url, DSH_AGENT_DIR: home, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.push(child)
  let out = ''
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()))
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const waitFor = async (text: string, timeoutMs = 60_000) => {
    const end = Date.now() + timeoutMs
    while (!out.includes(text)) {
      if (Date.now() > end || child.exitCode !== null) throw new Error(`no "${text}" within ${timeoutMs} ms; output:\n${out}`)
      await new Promise((r) => setTimeout(r, 50))
    }
  }
  return { child, exited, waitFor, output: () => out }
}

test('start, kill -9 mid-turn, restart, approve from another shell: the workflow finishes without repeating work', async () => {
  const first = run(['start', 'order-42'], { DSH_PACK_MS: '60000' })
  await first.waitFor('pack_order started')
  first.child.kill('SIGKILL')
  await first.exited
  const second = run(['start', 'order-42'])
  await second.waitFor('resuming workflow order-42')
  await second.waitFor('waiting for approval of refund {"orderId":"A-42","amount":30}')
  const approve = run(['approve', 'order-42'])
  expect(await approve.exited).toBe(0)
  expect(approve.output()).toContain('approved refund (order-42:2/call_refund)')
  expect(await second.exited).toBe(0)
  expect(second.output()).toContain(
    [
      'turn 1',
      '  call_lookup: order A-42: 1 item, paid 30',
      '  call_pack: TOOL_OUTCOME_UNKNOWN Tool "pack_order" was interrupted: the worker running it stopped before it finished, so it may or may not have taken effect. Check its effect before calling it again.',
      'turn 2',
      '  call_refund: refunded 30 on A-42',
    ].join('\n'),
  )
  expect(readFileSync(join(home, 'effects.log'), 'utf8').split('\n').filter(Boolean)).toEqual(['pack_order started order-42:1/call_pack', 'refund order-42:2/call_refund'])
}, 180_000)
