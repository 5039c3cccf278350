/**
 * Runs a README example as a reader does (`npm run tsx -- <file>` from the repository root: tsx
 * with the `dsh-source` condition), as a child process with a bounded wait, for the packages'
 * `readme-examples` tests: an example that starts something and never stops it fails the test
 * instead of hanging it (issue 34 item 8).
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/** The repository root (the examples' working directory). */
export const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url))

/** How a run ended. `timedOut`: the child was still running after `timeoutMs` and was killed. */
export interface ExampleRun {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly timedOut: boolean
  readonly stdout: string
  readonly stderr: string
}

/**
 * Runs `file` (a path from the repository root) with `node --conditions=dsh-source --import tsx`
 * in its own process group. After `timeoutMs` (ms) the whole group (the example and anything
 * it started) is killed with SIGKILL and the run reports `timedOut: true`. Never rejects for the
 * example's own failure: the exit code and output say what happened.
 */
export function runExample(file: string, options: { readonly timeoutMs: number; readonly env?: NodeJS.ProcessEnv }): Promise<ExampleRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--conditions=dsh-source', '--import', 'tsx', file], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    })
    let stdout = ''
    let stderr = ''
    let timedOut = false
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => void (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => void (stderr += chunk))
    const killGroup = (): void => {
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {
        // The group is already gone.
      }
    }
    const timer = setTimeout(() => {
      timedOut = true
      killGroup()
    }, options.timeoutMs)
    child.on('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      // Whatever the example left running in its group (a stdio server it never stopped) goes too.
      killGroup()
      resolve({ code, signal, timedOut, stdout, stderr })
    })
  })
}
