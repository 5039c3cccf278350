/**
 * A PTC state written by this process resumes in a second process (`fixtures/core-resume-child.ts`)
 * with the same tools: the program replays its journal there, runs the approved sub-call and
 * the rest of the program, and its result equals an unsuspended run's.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, expect, test } from 'vitest'
import type { Harness } from '@deepseek-ai/dsh-tool-testkit'
import { createQuickJsRuntime } from '../src'
import { ptcHarness, runCall, testSuspension } from './fixtures/core-suspend'

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url))
const tsx = fileURLToPath(new URL('../../../node_modules/.bin/tsx', import.meta.url))
const child = fileURLToPath(new URL('./fixtures/core-resume-child.ts', import.meta.url))
const runtime = createQuickJsRuntime()
afterAll(() => runtime.dispose())
let h: Harness | undefined
let dir: string | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
})

const PROGRAM = `
const [a, b] = await Promise.all([tools.read({ text: 'one' }), tools.deploy({ text: 'two' })])
let c
try { c = (await tools.deploy({ text: a.text })).text } catch (e) { c = e.message }
return [a.text, b.text, c]`

interface Printed {
  readonly status: string
  readonly results: unknown[]
  readonly calls: string[]
  readonly state?: { readonly payload: { readonly calls: readonly { readonly subCalls?: readonly { readonly callId: string }[] }[] } }
}

test('suspend here, resume in a second process (approve: suspends again), finish in a third (reject); each body runs once', async () => {
  const direct: string[] = []
  h = await ptcHarness(runtime, direct, (id) => (id === 'run1:code:3' ? { type: 'reject', reason: 'no second deploy' } : { type: 'approve' }))
  const expected = await h.tools.execute({ calls: [runCall(PROGRAM)] })
  expect(direct).toEqual(['read:one', 'deploy:two'])
  await h.dispose()

  const calls: string[] = []
  h = await ptcHarness(runtime, calls)
  const out = await h.tools.executeSuspendable({ calls: [runCall(PROGRAM)], suspension: testSuspension() })
  if (out.status !== 'suspended') throw new Error('expected a suspended batch')
  expect(out.pending[0]?.subCalls?.map((s) => s.callId)).toEqual(['run1:code:2'])
  expect(calls).toEqual(['read:one'])
  dir = mkdtempSync(join(tmpdir(), 'dsh-ptc-suspend-'))
  const file = join(dir, 'state.json')
  const resumeIn = async (state: unknown, decisions: object): Promise<Printed> => {
    writeFileSync(file, JSON.stringify(state))
    const printed = await new Promise<string>((resolve, reject) => {
      execFile(tsx, ['--conditions=dsh-source', child, file, JSON.stringify(decisions)], { cwd: repoRoot, timeout: 60_000 }, (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)))
    })
    return JSON.parse(printed) as Printed
  }
  // Each child has a ledger of its own (in memory): a deployment shares one.
  const second = await resumeIn(out.state, { 'run1:code:2': { type: 'approve' } })
  expect([second.status, second.results, second.calls]).toEqual(['suspended', [null], ['deploy:two']])
  expect(second.state?.payload.calls[0]?.subCalls?.map((s) => s.callId)).toEqual(['run1:code:3'])
  const third = await resumeIn(second.state, { 'run1:code:3': { type: 'reject', reason: 'no second deploy' } })
  expect([third.status, third.results, third.calls]).toEqual(['complete', JSON.parse(JSON.stringify(expected)), []])
  expect(calls).toEqual(['read:one'])
}, 120_000)
