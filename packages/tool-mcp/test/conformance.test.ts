/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, client mode) against
 * the bridge's conformance client (`examples/conformance-client.ts`): the scenarios about
 * initialisation and tools. The suite needs Node ≥ 22 (it imports `fs.globSync`); the test uses
 * this Node when it is new enough, otherwise the Node 22 binary the benchmark package installs.
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

/** Runs one client scenario; resolves with the suite's exit code and output. */
function scenario(name: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(runner!, [suite, 'client', '--command', `${tsx} --conditions=dsh-source ${client}`, '--scenario', name], { cwd, env: { ...process.env, NO_COLOR: '1' } })
    let output = ''
    child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')))
    child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')))
    child.once('error', reject)
    child.once('close', (code) => resolve({ code, output }))
  })
}

describe.skipIf(runner === undefined)('MCP conformance suite, client mode (initialisation and tools)', () => {
  test.each([
    ['initialize', 1],
    ['tools_call', 1],
    ['sse-retry', 3],
  ] as const)('%s passes every check', { timeout: 120_000 }, async (name, checks) => {
    const { code, output } = await scenario(name)
    expect(output).toContain(`Passed: ${checks}/${checks}, 0 failed`)
    expect(code).toBe(0)
  })
})
