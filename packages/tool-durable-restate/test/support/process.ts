/** Bounded waits and child-process helpers shared by the Restate test support. */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'

/** Polls `check` every 50 ms until it returns a value (not undefined); throws after `ms`, naming `what`. */
export async function waitFor<T>(what: string, ms: number, check: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + ms
  let last: unknown
  for (;;) {
    try {
      const value = await check()
      if (value !== undefined) return value
    } catch (error) {
      // A check that throws an Error saying the process died ends the wait at once.
      if (error instanceof Error && /exited/.test(error.message)) throw error
      last = error
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}${last instanceof Error ? ` (last error: ${last.message})` : ''}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Resolves when `child` has exited; rejects after `ms`. */
export function exited(child: ChildProcess, ms: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`process ${child.pid} did not exit within ${ms} ms`)), ms)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
  })
}

/** `kill -9` of `child` (when running); resolves once it is gone. */
export async function killChild(child: ChildProcess | undefined): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return
  child.kill('SIGKILL')
  await exited(child, 10_000)
}

/** SIGTERM, then SIGKILL after 5 s; resolves once `child` is gone. */
export async function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return
  child.kill('SIGTERM')
  try {
    await exited(child, 5_000)
  } catch {
    await killChild(child)
  }
}

const pkg = fileURLToPath(new URL('../../', import.meta.url))
const repo = fileURLToPath(new URL('../../../../', import.meta.url))

/**
 * The Node the Restate services run on: the SDK (1.14+) needs `Promise.withResolvers` (Node 22).
 * This Node when it is 22 or newer, else the Node 22 binary from the npm `node` package (a dev
 * dependency of this package, as of examples/bench).
 */
export function node22(): string {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath
  const local = join(pkg, 'node_modules', '.bin', 'node')
  if (existsSync(local)) return local
  throw new Error(`no Node 22 found: this Node is ${process.version} and ${local} is missing (run npm run bootstrap)`)
}

/** A service process (TypeScript through tsx, workspace sources) that prints `LISTENING <port>` (or `serving tools on port <port>`) when ready. */
export class ServiceProcess {
  #child: ChildProcess | undefined
  #output = ''
  constructor(
    readonly script: string,
    readonly env: Record<string, string>,
  ) {}

  get output(): string {
    return this.#output
  }
  get pid(): number | undefined {
    return this.#child?.pid
  }
  get running(): boolean {
    return this.#child !== undefined
  }

  /** Starts the script on Node 22; resolves with the port it listens on. */
  async start(): Promise<number> {
    if (this.#child !== undefined) throw new Error(`${this.script} is already running`)
    this.#output = ''
    const child = spawn(node22(), ['--conditions=dsh-source', '--import', 'tsx', this.script], {
      cwd: repo,
      env: { ...process.env, ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    this.#child = child
    child.stdout!.on('data', (chunk: Buffer) => (this.#output += chunk.toString('utf8')))
    child.stderr!.on('data', (chunk: Buffer) => (this.#output += chunk.toString('utf8')))
    child.once('exit', () => {
      if (this.#child === child) this.#child = undefined
    })
    return waitFor(`${this.script} to listen`, 30_000, () => {
      const match = /(?:LISTENING|serving tools on port) (\d+)/.exec(this.#output)
      if (match) return Number(match[1])
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${this.script} exited (${child.exitCode ?? child.signalCode}):\n${this.#output.slice(-3000)}`)
      return undefined
    })
  }

  /** `kill -9`; resolves once the process is gone. */
  kill(): Promise<void> {
    return killChild(this.#child)
  }

  /** SIGTERM, then SIGKILL after 5 s. */
  stop(): Promise<void> {
    return stopChild(this.#child)
  }
}

export { freePort } from '../../../../scripts/free-port'
