/**
 * A real Restate server for tests: the `restate-server` binary from npm
 * (`@restatedev/restate-server`, BSL-licensed), started on 127.0.0.1 with random ports in a temp
 * dir, every wait bounded, stopped (and its dir removed) by `stop()`. `kill()` is a `kill -9` of
 * the server process itself (not npm's wrapper), and `start()` again brings the same node back on
 * the same ports with the same data, as a restarted production node would.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { arch, platform, tmpdir } from 'node:os'
import { join } from 'node:path'
import { killChild, stopChild, waitFor } from './process'

const require = createRequire(import.meta.url)

/** The platform binary inside the npm package (its `bin` is a Node wrapper we do not want to kill). */
export function restateServerBinary(): string {
  const wrapper = createRequire(require.resolve('@restatedev/restate-server/package.json'))
  return wrapper.resolve(`@restatedev/restate-server-${platform()}-${arch()}/bin/restate-server`)
}

/** Small, quiet, offline: 2 partitions, 256 MiB of RocksDB, no telemetry, fast invocation retries. */
const CONFIG = `disable-telemetry = true
default-num-partitions = 2
rocksdb-total-memory-size = "256 MiB"
log-format = "json"
log-filter = "warn,restate=info"

[default-retry-policy]
initial-interval = "100ms"
exponentiation-factor = 2.0
max-interval = "1s"
max-attempts = 200
on-max-attempts = "pause"

# An invocation waiting on an awakeable suspends after 2 s without activity (default 1 min).
[worker.invoker]
inactivity-timeout = "2s"
`

interface Ports {
  ingress: number
  admin: number
  fabric: number
}

export class RestateServer {
  #child: ChildProcess | undefined
  #ports: Ports | undefined
  #log = ''
  private constructor(readonly dir: string) {}

  /** Creates the temp dir and starts the server on random ports; resolves when ingress and admin answer. */
  static async start(): Promise<RestateServer> {
    const server = new RestateServer(await mkdtemp(join(tmpdir(), 'dsh-restate-')))
    await writeFile(join(server.dir, 'restate.toml'), CONFIG)
    try {
      await server.start()
    } catch (error) {
      await server.stop()
      throw error
    }
    return server
  }

  get ingressUrl(): string {
    return `http://127.0.0.1:${this.#required().ingress}`
  }
  get adminUrl(): string {
    return `http://127.0.0.1:${this.#required().admin}`
  }
  get pid(): number | undefined {
    return this.#child?.pid
  }
  /** Everything the server printed since the last start (for failure messages). */
  get log(): string {
    return this.#log
  }

  #required(): Ports {
    if (this.#ports === undefined) throw new Error('the Restate server has not started')
    return this.#ports
  }

  /** Starts (or restarts, on the ports of the first start) the server; resolves when it answers. */
  async start(): Promise<void> {
    if (this.#child !== undefined) throw new Error('the Restate server is already running')
    const args = ['--config-file', join(this.dir, 'restate.toml'), '--base-dir', join(this.dir, 'data'), '--listen-mode', 'tcp', '--bind-ip', '127.0.0.1', '--node-name', 'dsh-test', '--no-logo']
    const env: NodeJS.ProcessEnv = { ...process.env, DO_NOT_TRACK: '1' }
    const again = this.#ports
    if (again === undefined) args.push('--use-random-ports', 'true')
    else {
      args.push('--bind-port', String(again.fabric))
      env.RESTATE_INGRESS__BIND_ADDRESS = `127.0.0.1:${again.ingress}`
      env.RESTATE_ADMIN__BIND_ADDRESS = `127.0.0.1:${again.admin}`
    }
    this.#log = ''
    const child = spawn(restateServerBinary(), args, { cwd: this.dir, env, stdio: ['ignore', 'pipe', 'pipe'] })
    this.#child = child
    child.stdout!.on('data', (chunk: Buffer) => (this.#log += chunk.toString('utf8')))
    child.stderr!.on('data', (chunk: Buffer) => (this.#log += chunk.toString('utf8')))
    child.once('exit', () => {
      if (this.#child === child) this.#child = undefined
    })
    const ports = await waitFor('the Restate server to listen', 20_000, () => {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`restate-server exited (${child.exitCode ?? child.signalCode}):\n${this.#log.slice(-2000)}`)
      return listening(this.#log)
    })
    this.#ports = again ?? ports
    await waitFor('the Restate admin API and ingress to answer', 20_000, async () => {
      const [admin, ingress] = await Promise.all([probe(`${this.adminUrl}/health`), probe(`${this.ingressUrl}/restate/health`)])
      return admin && ingress ? true : undefined
    })
  }

  /** `kill -9` of the server process; resolves once it is gone. */
  kill(): Promise<void> {
    return killChild(this.#child)
  }

  /** Stops the server (SIGTERM, then SIGKILL after 5 s) and removes its temp dir. */
  async stop(): Promise<void> {
    await stopChild(this.#child)
    await rm(this.dir, { recursive: true, force: true })
  }

  /** Registers (or re-registers, `force`) a service deployment at `uri` through the admin API. */
  async register(uri: string): Promise<string> {
    const response = await fetch(`${this.adminUrl}/deployments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ uri, force: true }),
      signal: AbortSignal.timeout(20_000),
    })
    const body = await response.text()
    if (!response.ok) throw new Error(`registering ${uri} failed: HTTP ${response.status} ${body}`)
    return (JSON.parse(body) as { id: string }).id
  }

  /** Runs a SQL query on the admin API's introspection tables (sys_invocation, sys_journal, …). */
  async query<Row>(sql: string): Promise<Row[]> {
    const response = await fetch(`${this.adminUrl}/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: sql }),
      signal: AbortSignal.timeout(20_000),
    })
    const body = await response.text()
    if (!response.ok) throw new Error(`query failed: HTTP ${response.status} ${body}`)
    return (JSON.parse(body) as { rows: Row[] }).rows
  }
}

/** The ports from the server's JSON log lines, once both the ingress and the admin API listen. */
function listening(log: string): Ports | undefined {
  const ports: Partial<Ports> = {}
  for (const line of log.split('\n')) {
    if (!line.startsWith('{')) continue
    let entry: { span?: { server_name?: string; 'server.port'?: number } }
    try {
      entry = JSON.parse(line) as typeof entry
    } catch {
      continue
    }
    const port = entry.span?.['server.port']
    if (port === undefined) continue
    if (entry.span?.server_name === 'http-ingress-server') ports.ingress = port
    else if (entry.span?.server_name === 'admin-api-server') ports.admin = port
    else if (entry.span?.server_name === 'message-fabric-server') ports.fabric = port
  }
  return ports.ingress !== undefined && ports.admin !== undefined && ports.fabric !== undefined ? (ports as Ports) : undefined
}

async function probe(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) })
    await response.body?.cancel()
    return response.ok
  } catch {
    return false
  }
}
