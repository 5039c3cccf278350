/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, server mode, pinned in
 * this package) against `examples/conformance-server.ts`: every scenario the package claims, for
 * each protocol revision, one suite run per scenario (three at a time). The suite needs
 * Node ≥ 22 (it imports `fs.globSync`); the test uses this Node when it is new enough, otherwise
 * the Node 22 binary the benchmark package installs from npm.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { conformanceNode, runConformanceSuite, TSX as tsx, type SuiteRun } from '../../../scripts/conformance-suite'

const serverScript = fileURLToPath(new URL('../examples/conformance-server.ts', import.meta.url))

/** The scenarios this package passes, per revision (every check of each). */
export const SCENARIOS: Readonly<Record<'2025-11-25' | '2026-07-28', readonly string[]>> = {
  '2025-11-25': [
    'server-initialize',
    'ping',
    'tools-list',
    'tools-call-simple-text',
    'tools-call-image',
    'tools-call-audio',
    'tools-call-embedded-resource',
    'tools-call-mixed-content',
    'tools-call-error',
    'tools-call-with-progress',
    'tools-call-elicitation',
    'elicitation-sep1034-defaults',
    'elicitation-sep1330-enums',
    'server-sse-multiple-streams',
    'dns-rebinding-protection',
  ],
  '2026-07-28': [
    'server-stateless',
    'tools-list',
    'tools-call-simple-text',
    'tools-call-image',
    'tools-call-audio',
    'tools-call-embedded-resource',
    'tools-call-mixed-content',
    'tools-call-error',
    'tools-call-with-progress',
    'server-sse-multiple-streams',
    'dns-rebinding-protection',
    'caching',
    'input-required-result-basic-elicitation',
    'input-required-result-request-state',
    'input-required-result-multiple-input-requests',
    'input-required-result-multi-round',
    'input-required-result-missing-input-response',
    'input-required-result-result-type',
    'input-required-result-tampered-state',
    'input-required-result-capability-check',
    'input-required-result-ignore-extra-params',
    'input-required-result-validate-input',
  ],
}

const runner = conformanceNode()
let cwd: string
let server: ChildProcess | undefined
let url: string

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'dsh-mcp-server-conformance-'))
  if (runner === undefined) return
  // PORT=0: the server picks a free port and prints its URL.
  server = spawn(tsx, ['--conditions=dsh-source', serverScript], { env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] })
  url = await new Promise<string>((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => reject(new Error(`conformance server did not start within 20 s: ${out}`)), 20_000)
    server!.stdout!.on('data', (c: Buffer) => {
      out += c.toString('utf8')
      const m = /listening (\S+)/.exec(out)
      if (m !== null) {
        clearTimeout(timer)
        resolve(m[1]!)
      }
    })
    server!.stderr!.on('data', (c: Buffer) => (out += c.toString('utf8')))
    server!.once('exit', (code) => (clearTimeout(timer), reject(new Error(`conformance server exited (${code}): ${out}`))))
  })
}, 30_000)

afterAll(async () => {
  if (server !== undefined && server.exitCode === null) {
    const exited = new Promise((resolve) => server!.once('exit', resolve))
    server.kill('SIGTERM')
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))])
    if (server.exitCode === null) server.kill('SIGKILL')
  }
  if (cwd !== undefined) await rm(cwd, { recursive: true, force: true })
})

/** Runs one server scenario; resolves with the suite's exit code and output. */
function scenario(name: string, revision: string): Promise<SuiteRun> {
  return runConformanceSuite(runner!, ['server', '--url', url, '--scenario', name, '--spec-version', revision], cwd)
}

describe.skipIf(runner === undefined).each(Object.keys(SCENARIOS) as (keyof typeof SCENARIOS)[])('MCP conformance suite, server mode, %s', (revision) => {
  test.concurrent.each(SCENARIOS[revision].map((s) => [s]))('%s passes every check', { timeout: 120_000 }, async (name) => {
    const { code, output } = await scenario(name, revision)
    const m = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(output)
    expect(m, output).not.toBeNull()
    expect({ passed: Number(m![1]), failed: Number(m![3]), warnings: Number(m![4]) }, output).toEqual({ passed: Number(m![2]), failed: 0, warnings: 0 })
    expect(code).toBe(0)
  })
})
