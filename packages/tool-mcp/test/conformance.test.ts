/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in the root
 * package.json, client mode) against the bridge's conformance client
 * (`examples/conformance-client.ts`), with both requirement sets: `--requirements 2025-11-25` and
 * `--requirements 2026-07-28`. Each set is one suite run (the suite runs its scenarios in turn);
 * the two sets run at once. Every scenario the set scores must pass every check; scenarios the
 * suite runs but does not score (extensions, added after the release) are listed, not asserted.
 * The suite needs Node ≥ 22 (it imports `fs.globSync`); the test uses this Node when it is new
 * enough, otherwise the Node 22 binary the benchmark package installs.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'

const require = createRequire(import.meta.url)
const repo = fileURLToPath(new URL('../../../', import.meta.url))
const suite = join(dirname(require.resolve('@modelcontextprotocol/conformance/package.json')), 'dist', 'index.js')
const client = fileURLToPath(new URL('../examples/conformance-client.ts', import.meta.url))
const tsx = join(repo, 'node_modules', '.bin', 'tsx')

function node22(): string | undefined {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath
  const bench = join(repo, 'examples', 'bench', 'node_modules', '.bin', 'node')
  return existsSync(bench) ? bench : undefined
}

const runner = node22()
let cwd: string
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'dsh-mcp-conformance-'))
})
afterAll(async () => {
  if (cwd !== undefined) await rm(cwd, { recursive: true, force: true })
})

/** Runs the suite with `args` (in the temp dir); resolves with its exit code and output. */
function run(args: readonly string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(runner!, [suite, ...args], { cwd, env: { ...process.env, NO_COLOR: '1' } })
    let output = ''
    child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')))
    child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')))
    child.once('error', reject)
    child.once('close', (code) => resolve({ code, output }))
  })
}

/** The client scenarios a requirement set scores (`conformance list --client --requirements`). */
async function scored(revision: string): Promise<string[]> {
  const { output } = await run(['list', '--client', '--requirements', revision])
  const section = output.slice(output.indexOf('Client scenarios'), output.indexOf('Run and reported'))
  return [...section.matchAll(/^\s+- (\S+)$/gm)].map((m) => m[1]!)
}

/** `name → { passed, failed }` from the suite's summary lines (`✓ tools_call: 2 passed, 0 failed`). */
function summary(output: string): Map<string, { passed: number; failed: number }> {
  const lines = output.slice(output.lastIndexOf('SUITE SUMMARY'))
  return new Map([...lines.matchAll(/^[✓✗] (\S+): (\d+) passed, (\d+) failed/gm)].map((m) => [m[1]!, { passed: Number(m[2]), failed: Number(m[3]) }]))
}

describe.skipIf(runner === undefined)('MCP conformance suite, client mode', () => {
  test.concurrent.each(['2025-11-25', '2026-07-28'])('--requirements %s: every scored scenario passes every check', { timeout: 480_000 }, async (revision) => {
    const [names, { output }] = await Promise.all([scored(revision), run(['client', '--command', `${tsx} --conditions=dsh-source ${client}`, '--requirements', revision])])
    expect(names.length).toBe(revision === '2025-11-25' ? 18 : 32)
    const results = summary(output)
    const failing = names.filter((name) => results.get(name) === undefined || results.get(name)!.failed > 0 || results.get(name)!.passed === 0)
    expect(failing, output.slice(output.lastIndexOf('SUITE SUMMARY'))).toEqual([])
  })
})
