/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in the root
 * package.json) as the MCP packages' tests run it: its entry file, the Node binary that can run
 * it, and one run as a child process. The suite needs Node ≥ 22 (it imports `fs.globSync`): this
 * Node when it is new enough, otherwise the Node 22 binary the benchmark package installs from
 * npm (`node` in `examples/bench`), so `.ci/run` on a Node 20 machine still runs it.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const repo = fileURLToPath(new URL('../', import.meta.url))

/** The suite's CLI entry (`dist/index.js` of the pinned package). */
export const CONFORMANCE_SUITE = join(dirname(require.resolve('@modelcontextprotocol/conformance/package.json')), 'dist', 'index.js')

/** The repository's tsx binary (the suite starts the project's TypeScript clients and servers with it). */
export const TSX = join(repo, 'node_modules', '.bin', 'tsx')

/** A Node ≥ 22 binary to run the suite with, or `undefined` when there is none (the tests then skip). */
export function conformanceNode(): string | undefined {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath
  const bench = join(repo, 'examples', 'bench', 'node_modules', '.bin', 'node')
  return existsSync(bench) ? bench : undefined
}

/** How a suite run ended: its exit code and its stdout and stderr together, colour codes removed. */
export interface SuiteRun {
  readonly code: number | null
  readonly output: string
}

/** Runs the suite with `args` in `cwd` with `node` (from {@link conformanceNode}); never rejects for the suite's own failure. */
export function runConformanceSuite(node: string, args: readonly string[], cwd: string): Promise<SuiteRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, [CONFORMANCE_SUITE, ...args], { cwd, env: { ...process.env, NO_COLOR: '1' } })
    let output = ''
    child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')))
    child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')))
    child.once('error', reject)
    child.once('close', (code) => resolve({ code, output: output.replace(/\x1b\[[0-9;]*m/g, '') }))
  })
}
