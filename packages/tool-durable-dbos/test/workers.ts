/** Starting, killing and driving worker processes (`worker.ts`) from a test. */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, existsSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { DBOSClient } from '@dbos-inc/dbos-sdk'
import type { RawToolCall, ToolResult } from '@deepseek-ai/dsh-tools'

const here = dirname(fileURLToPath(import.meta.url))
const repo = join(here, '..', '..', '..')

export const QUEUE = 'dsh-batches'

export interface Worker {
  readonly id: string
  readonly child: ChildProcess
  /** Resolves once the process exited (after a kill). */
  readonly exited: Promise<void>
}

/** Starts a worker as executor `id`; resolves once it printed `ready` (at most `timeoutMs`). */
export function startWorker(id: string, url: string, logDir: string, env: Record<string, string> = {}, timeoutMs = 60_000): Promise<Worker> {
  // Node itself with tsx's loader (not the tsx CLI, which would put a second process between the
  // test and the worker, and a SIGKILL would not reach the worker).
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=dsh-source', join(here, 'worker.ts')], {
    cwd: repo,
    env: { ...process.env, ...env, DSH_DB_URL: url, DSH_LOG_DIR: logDir, DSH_EXECUTOR: id },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  let stderr = ''
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  return new Promise<Worker>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`worker ${id} not ready within ${timeoutMs} ms; stderr: ${stderr}`))
    }, timeoutMs)
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) {
        clearTimeout(timer)
        resolve({ id, child, exited })
      }
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`worker ${id} exited with ${code} before ready; stderr: ${stderr}`))
    })
  })
}

/** `kill -9`, then waits for the exit. */
export async function kill9(worker: Worker): Promise<void> {
  worker.child.kill('SIGKILL')
  await worker.exited
}

/** SIGTERM (DBOS shuts down), then waits for the exit; SIGKILL after 10 s. */
export async function stopWorker(worker: Worker): Promise<void> {
  if (worker.child.exitCode !== null || worker.child.signalCode !== null) return
  worker.child.kill('SIGTERM')
  const timer = setTimeout(() => worker.child.kill('SIGKILL'), 10_000)
  await worker.exited
  clearTimeout(timer)
}

/** A fresh log dir with `effects/`. */
export function logDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-durable-log-'))
  mkdirSync(join(dir, 'effects'))
  return dir
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true })
}

export function lines(dir: string, file: string): string[] {
  const path = join(dir, file)
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter((l) => l !== '') : []
}

export function effects(dir: string): string[] {
  return readdirSync(join(dir, 'effects'))
    .filter((f) => !f.endsWith('.tmp'))
    .map((f) => readFileSync(join(dir, 'effects', f), 'utf8').trim())
}

/** Enqueues one batch workflow. */
export async function enqueue(client: DBOSClient, workflowID: string, calls: readonly RawToolCall[]): Promise<void> {
  await client.enqueue({ queueName: QUEUE, workflowName: 'dsh.tools.batch', workflowID, appVersion: 'dsh-test' }, calls)
}

/** The batch's results (waits for the workflow). */
export function result(client: DBOSClient, workflowID: string): Promise<readonly ToolResult[]> {
  return client.retrieveWorkflow<readonly ToolResult[]>(workflowID).getResult()
}

/** Polls `check` every 50 ms until it is true, at most `timeoutMs`. */
export async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}
