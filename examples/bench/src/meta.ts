/**
 * The machine, runtime and package versions a result was measured with.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import os from 'node:os'

/** Where and with what a run was measured. */
export interface RunMeta {
  /** ISO 8601 start time. */
  readonly date: string
  readonly mode: 'full' | 'smoke'
  readonly node: string
  readonly v8: string
  readonly platform: string
  readonly cpu: string
  readonly cores: number
  /** Total memory, bytes. */
  readonly memoryBytes: number
  /** 1-minute load average at the start and at the end (other processes compete on 2 cores). */
  readonly loadStart: number
  readonly loadEnd?: number
  /**
   * The host's speed at the start and at the end: {@link hostProbeMs}, ms. Absolute times in a
   * report scale with it (the same code on the same VM has measured 1.5–3× slower when the
   * host was busy); ratios measured side by side much less.
   */
  readonly probeStartMs?: number
  readonly probeEndMs?: number
  /** Whether `global.gc` was exposed (heap figures and GC between samples need it). */
  readonly gcExposed: boolean
  /** Whether the measured code is the esbuild bundle (`dist/`) or the TypeScript sources. */
  readonly build: 'bundle' | 'source'
  /** `git rev-parse --short HEAD` (+ `-dirty`), when available. */
  readonly commit?: string
  /** Installed versions: ours and the peers. */
  readonly packages: Readonly<Record<string, string>>
}

/** Packages whose versions are reported. */
export const REPORTED_PACKAGES = [
  '@deepseek-ai/dsh-tools',
  '@deepseek-ai/dsh-tool-executor-native',
  '@deepseek-ai/dsh-tool-executor-ptc',
  'ai',
  '@openai/agents-core',
  'zod',
  'ajv',
  'cordis',
  'tinybench',
] as const

function versionOf(name: string): string {
  try {
    // Both src/ and dist/ sit one level below the package root.
    const pkg = JSON.parse(readFileSync(new URL(`../node_modules/${name}/package.json`, import.meta.url), 'utf8')) as { version?: unknown }
    return typeof pkg.version === 'string' ? pkg.version : 'unknown'
  } catch {
    return 'unknown'
  }
}

/** `git rev-parse --short HEAD` of this checkout, `-dirty` with uncommitted changes to tracked files; `undefined` outside git. */
export function gitCommit(): string | undefined {
  try {
    const cwd = new URL('..', import.meta.url)
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() !== ''
    return dirty ? `${head}-dirty` : head
  } catch {
    return undefined
  }
}

/**
 * A fixed plain-JavaScript workload (10^8 iterations of an integer loop), timed three times;
 * the fastest, ms. Only the CPU and its contention move it, not our code.
 */
export function hostProbeMs(): number {
  let best = Number.POSITIVE_INFINITY
  for (let round = 0; round < 3; round++) {
    const start = performance.now()
    let x = 0
    for (let i = 0; i < 1e8; i++) x += i % 7
    const ms = performance.now() - start
    if (x !== 299_999_995) throw new Error(`host probe: wrong sum ${x}`)
    best = Math.min(best, ms)
  }
  return best
}

/** Collects the run's metadata. */
export function collectMeta(mode: 'full' | 'smoke', build: 'bundle' | 'source'): RunMeta {
  const cpus = os.cpus()
  const commit = gitCommit()
  return {
    date: new Date().toISOString(),
    mode,
    node: process.version,
    v8: process.versions.v8,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memoryBytes: os.totalmem(),
    loadStart: os.loadavg()[0] ?? 0,
    probeStartMs: hostProbeMs(),
    gcExposed: typeof (globalThis as { gc?: unknown }).gc === 'function',
    build,
    ...(commit === undefined ? {} : { commit }),
    packages: Object.fromEntries(REPORTED_PACKAGES.map((name) => [name, versionOf(name)])),
  }
}
