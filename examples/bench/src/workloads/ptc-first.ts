/**
 * "PTC first run after plugin start": each sample is a fresh Node process (`../ptc-first-main.ts`)
 * that boots a harness with the `PtcExecutor` plugin (its start awaits the runtime's warm-up)
 * and times its first `run_code` — nothing else has run in that process, as for a user.
 */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { summarize, type Summary } from '../stats'

/** The two first programs: a trivial one and one with one `add` sub-call, with their expected output. */
export const FIRST_RUN_PROGRAMS = {
  trivial: { code: 'return 1', expected: '1' },
  'sub-call': { code: "return (await tools.add({ a: 1, b: 2, label: 'x' })).sum", expected: '3' },
} as const

/** A program of {@link FIRST_RUN_PROGRAMS}. */
export type FirstRunProgram = keyof typeof FIRST_RUN_PROGRAMS

/** The first `run_code` after plugin start, each sample from a fresh process. */
export interface PtcFirstRun {
  /** Plugin start (harness boot including the executor's warm-up), ms, one sample per process. */
  readonly startMs: Summary
  /** The first `run_code` of `return 1` after plugin start, ms. */
  readonly trivialMs: Summary
  /** The first `run_code` of a program with one `add` sub-call after plugin start, ms. */
  readonly subCallMs: Summary
}

/** One sample as the child prints it. */
interface ChildSample {
  readonly startMs: number
  readonly firstMs: number
  readonly text: string
}

/** Parses the child's last output line (throws naming the field when it is malformed). */
export function parseFirstRunSample(stdout: string): ChildSample {
  const line = stdout.trim().split('\n').at(-1) ?? ''
  const raw = JSON.parse(line) as Record<string, unknown>
  for (const key of ['startMs', 'firstMs'] as const) {
    if (typeof raw[key] !== 'number' || !Number.isFinite(raw[key])) throw new Error(`ptc first run: the child printed no number "${key}": ${line}`)
  }
  if (typeof raw.text !== 'string') throw new Error(`ptc first run: the child printed no "text": ${line}`)
  return raw as unknown as ChildSample
}

function runChild(build: 'bundle' | 'source', kind: FirstRunProgram, timeoutMs: number): Promise<ChildSample> {
  // Bundled, this module is part of dist/main.mjs and the child entry sits next to it.
  const args =
    build === 'bundle'
      ? ['--no-warnings', fileURLToPath(new URL('./ptc-first-main.mjs', import.meta.url)), kind]
      : ['--no-warnings', '--import', 'tsx', '--conditions=dsh-source', fileURLToPath(new URL('../ptc-first-main.ts', import.meta.url)), kind]
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { timeout: timeoutMs, encoding: 'utf8', maxBuffer: 1024 * 1024 }, (error, stdout, stderr) => {
      if (error !== null) return reject(new Error(`ptc first run (${kind}): the child failed: ${error.message}${stderr === '' ? '' : `\n${stderr}`}`))
      try {
        resolve(parseFirstRunSample(stdout))
      } catch (parseError) {
        reject(parseError instanceof Error ? parseError : new Error(String(parseError)))
      }
    })
  })
}

/**
 * Starts `boots` fresh processes per program (alternating trivial and one sub-call), each
 * booting the plugin and timing its first run. `build` says which code the children run (the
 * bundle in `dist/`, which `node build.mjs` makes, or the sources through tsx).
 *
 * @throws Error when a child fails, times out, prints a malformed line or a wrong result.
 */
export async function measureFirstRuns(boots: number, build: 'bundle' | 'source', timeoutMs = 120_000): Promise<PtcFirstRun> {
  const start: number[] = []
  const samples: Record<FirstRunProgram, number[]> = { trivial: [], 'sub-call': [] }
  for (let i = 0; i < boots; i++) {
    for (const kind of ['trivial', 'sub-call'] as const) {
      const sample = await runChild(build, kind, timeoutMs)
      if (sample.text !== FIRST_RUN_PROGRAMS[kind].expected) throw new Error(`ptc first run (${kind}): printed ${JSON.stringify(sample.text)}`)
      start.push(sample.startMs)
      samples[kind].push(sample.firstMs)
    }
  }
  return { startMs: summarize(start), trivialMs: summarize(samples.trivial), subCallMs: summarize(samples['sub-call']) }
}
