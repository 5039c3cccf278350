/**
 * examples/approvals: `start` and `resume` run as separate child processes (the state only lives
 * in the file between them); the exact output of both, with an approval and with a rejection,
 * and a second resume of the same state refused by the file ledger; and the same with `--ptc`,
 * where the deferred call is a sub-call of the model's `run_code` program.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, test } from 'vitest'

const here = fileURLToPath(new URL('..', import.meta.url))
const tsx = fileURLToPath(new URL('../../../node_modules/.bin/tsx', import.meta.url))
const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function command(args: string[]): { status: number | null; lines: string[] } {
  const out = spawnSync(tsx, ['--conditions=dsh-source', 'src/main.ts', ...args], { cwd: here, encoding: 'utf8', timeout: 60_000, env: { ...process.env, DSH_APPROVALS_KEY: 'a test key of at least thirty-two bytes' } })
  return { status: out.status, lines: out.stdout.trimEnd().split('\n') }
}

function stateFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-approvals-'))
  dirs.push(dir)
  return join(dir, 'approval.json')
}

const STARTED = (file: string) => [
  'user: Deploy v2 if the service is healthy.',
  "model: I'll check the service, then deploy v2. (2 calls)",
  '  call_1 check_status({}) → healthy',
  '  call_2 deploy({"version": "v2"}) → awaiting approval (deploys need a human)',
  `suspended: 1 call awaiting a decision (call_2); state written to ${file}`,
]

describe('examples/approvals', () => {
  test('start suspends and exits; resume in a new process approves, the model continues; a second resume is refused', () => {
    const file = stateFile()
    expect(command(['start', '--state', file])).toEqual({ status: 0, lines: STARTED(file) })
    expect(command(['resume', '--state', file, '--decision', 'approve'])).toEqual({
      status: 0,
      lines: ['resumed with approve', '  call_2 deploy({"version": "v2"}) → deployed v2', 'model: The service was healthy and v2 is deployed.'],
    })
    const again = command(['resume', '--state', file, '--decision', 'approve'])
    expect(again.status).toBe(1)
    expect(again.lines).toHaveLength(1)
    expect(again.lines[0]).toMatch(/^error: STATE_REPLAYED: state [0-9a-f-]{36} was resumed before; resume the state that resume returned \(at \/payload\/stateId\)$/)
  })

  test('a rejection with a reason reaches the model as the call\'s result', () => {
    const file = stateFile()
    expect(command(['start', '--state', file]).status).toBe(0)
    expect(command(['resume', '--state', file, '--decision', 'reject', '--reason', 'not on a Friday'])).toEqual({
      status: 0,
      lines: ['resumed with reject (not on a Friday)', '  call_2 deploy({"version": "v2"}) → Error: not on a Friday', 'model: The service is healthy, but the deploy was not approved, so v1 stays live.'],
    })
  })

  test('--ptc: the program suspends on its deploy sub-call; resume approves it in a new process and the program continues; a second resume is refused', () => {
    const file = stateFile()
    expect(command(['start', '--state', file, '--ptc'])).toEqual({
      status: 0,
      lines: [
        'user: Deploy v2 if the service is healthy.',
        "model: I'll check the service and deploy v2 in one program. (1 call)",
        '  call_1 run_code("check the service, deploy v2") → suspended: call_1:code:2 deploy({"version":"v2"}) awaits approval (deploys need a human)',
        `suspended: 1 call awaiting a decision (call_1:code:2); state written to ${file}`,
      ],
    })
    expect(command(['resume', '--state', file, '--decision', 'approve'])).toEqual({
      status: 0,
      lines: ['resumed with approve', '  call_1 run_code("check the service, deploy v2") → status: healthy | deployed v2', 'model: The service was healthy and v2 is deployed.'],
    })
    const again = command(['resume', '--state', file, '--decision', 'approve'])
    expect([again.status, again.lines.length, again.lines[0]?.startsWith('error: STATE_REPLAYED: ')]).toEqual([1, 1, true])
  })

  test('--ptc: a rejection reaches the program as a failed sub-call', () => {
    const file = stateFile()
    expect(command(['start', '--state', file, '--ptc']).status).toBe(0)
    expect(command(['resume', '--state', file, '--decision', 'reject', '--reason', 'not on a Friday'])).toEqual({
      status: 0,
      lines: ['resumed with reject (not on a Friday)', '  call_1 run_code("check the service, deploy v2") → status: healthy | not deployed: not on a Friday', 'model: The service is healthy, but the deploy was not approved, so v1 stays live.'],
    })
  })
})
