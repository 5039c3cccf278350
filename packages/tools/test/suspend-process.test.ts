import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, expect, test } from 'vitest'
import { createSuspension } from '@deepseek-ai/dsh-tools'
import { createHarness, type Harness } from '@deepseek-ai/dsh-tool-testkit'
import { registerAskPolicy, registerSuspendTools, TEST_KEY } from './fixtures/suspend-tools'

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url))
const tsx = fileURLToPath(new URL('../../../node_modules/.bin/tsx', import.meta.url))
const child = fileURLToPath(new URL('./fixtures/resume-child.ts', import.meta.url))
let h: Harness | undefined
let dir: string | undefined
afterEach(async () => {
  await h?.dispose()
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
})

test('a state written by this process resumes in a second process with the same tools; results equal an unsuspended run', async () => {
  const calls = [
    { callId: 'a', name: 'echo', arguments: '{"text":"x"}' },
    { callId: 'b', name: 'write', arguments: '{"text":"ask-1"}' },
    { callId: 'c', name: 'echo', arguments: { text: 'ask-2' } },
    { callId: 'd', name: 'write', arguments: '{"text":"z"}' },
  ]
  const runs: string[] = []
  h = await createHarness()
  registerSuspendTools(h.ctx, runs)
  registerAskPolicy(h.ctx, (id) => (id === 'b' ? { type: 'approve' } : { type: 'reject', reason: 'not now' }))
  const direct = await h.tools.execute({ calls })
  await h.dispose()

  const parentRuns: string[] = []
  h = await createHarness()
  registerSuspendTools(h.ctx, parentRuns)
  registerAskPolicy(h.ctx, () => ({ type: 'defer' }))
  const suspension = createSuspension({ keys: { k1: TEST_KEY }, signWith: 'k1' })
  const out = await h.tools.executeSuspendable({ calls, suspension })
  expect(out.status).toBe('suspended')
  expect(parentRuns).toEqual(['echo:x'])
  dir = mkdtempSync(join(tmpdir(), 'dsh-suspend-'))
  const file = join(dir, 'state.json')
  writeFileSync(file, JSON.stringify(out.status === 'suspended' ? out.state : null))
  const decisions = JSON.stringify({ b: { type: 'approve' }, c: { type: 'reject', reason: 'not now' } })
  const printed = await new Promise<string>((resolve, reject) => {
    execFile(tsx, ['--conditions=dsh-source', child, file, decisions], { cwd: repoRoot, timeout: 60_000 }, (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)))
  })
  const resumed = JSON.parse(printed) as { status: string; results: unknown; runs: string[] }
  expect(resumed.status).toBe('complete')
  expect(resumed.results).toEqual(JSON.parse(JSON.stringify(direct)))
  expect(resumed.runs).toEqual(['write:ask-1', 'write:z'])
}, 90_000)
