/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in the root
 * package.json, client mode) against the bridge's conformance client
 * (`examples/conformance-client.ts`), with both requirement sets: `--requirements 2025-11-25` and
 * `--requirements 2026-07-28`: the scenarios each set scores (`conformance list --client
 * --requirements <revision>`), each run on its own at the set's revision (`--scenario <name>
 * --spec-version <revision>`), four at a time — the suite's own `--requirements` run starts every
 * scenario at once, which on a small shared machine pushes clients past its timeouts. Every
 * scored scenario must pass every check. Scenarios a set runs but does not score (extensions,
 * added after the release) are not run.
 * The suite needs Node ≥ 22 (it imports `fs.globSync`); the test uses this Node when it is new
 * enough, otherwise the Node 22 binary the benchmark package installs.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { conformanceNode, runConformanceSuite, TSX as tsx, type SuiteRun } from '../../../scripts/conformance-suite'

const client = fileURLToPath(new URL('../examples/conformance-client.ts', import.meta.url))

const runner = conformanceNode()
let cwd: string
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'dsh-mcp-conformance-'))
})
afterAll(async () => {
  if (cwd !== undefined) await rm(cwd, { recursive: true, force: true })
})

/** Runs the suite with `args` (in the temp dir); resolves with its exit code and output. */
function run(args: readonly string[]): Promise<SuiteRun> {
  return runConformanceSuite(runner!, args, cwd)
}

/** The client scenarios a requirement set scores (`conformance list --client --requirements`). */
async function scored(revision: string): Promise<string[]> {
  const { output } = await run(['list', '--client', '--requirements', revision])
  const section = output.slice(output.indexOf('Client scenarios'), output.indexOf('Run and reported'))
  return [...section.matchAll(/^\s+- (\S+)$/gm)].map((m) => m[1]!)
}

/** How many scenarios run at once (each is a suite process plus a client process). */
const CONCURRENCY = 4

/** Runs one scenario at `revision` (the suite's `--spec-version`): its exit code and `Passed: n/m, k failed` line. */
async function scenario(name: string, revision: string): Promise<{ readonly name: string; readonly ok: boolean; readonly line: string }> {
  const { code, output } = await run(['client', '--command', `${tsx} --conditions=dsh-source ${client}`, '--scenario', name, '--spec-version', revision, '--timeout', '90000'])
  const line = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(output)
  const ok = code === 0 && line !== null && line[1] === line[2] && line[3] === '0' && Number(line[2]) > 0
  return { name, ok, line: line?.[0] ?? output.slice(-400) }
}

/** Runs `names` with at most {@link CONCURRENCY} at a time, in order of the list. */
async function pool(names: readonly string[], revision: string): Promise<{ readonly name: string; readonly ok: boolean; readonly line: string }[]> {
  const results: { readonly name: string; readonly ok: boolean; readonly line: string }[] = []
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < names.length) {
      const i = next++
      results[i] = await scenario(names[i]!, revision)
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
  return results
}

describe.skipIf(runner === undefined)('MCP conformance suite, client mode', () => {
  // The two requirement sets: every scenario a set scores, run scenario by scenario at the set's revision.
  test.each([
    ['2025-11-25', 18],
    ['2026-07-28', 32],
  ] as const)('--requirements %s: every scored scenario passes every check', { timeout: 600_000 }, async (revision, count) => {
    const names = await scored(revision)
    expect(names).toHaveLength(count)
    const results = await pool(names, revision)
    expect(results.filter((r) => !r.ok).map((r) => `${r.name}: ${r.line}`)).toEqual([])
    expect(results.map((r) => r.name)).toEqual(names)
  })
})
