/**
 * One Restate server plus the fixture service processes of a test file, and the files the tools
 * write (effects log, ledger dir, approvals log) in a temp dir; `close()` stops everything.
 */
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { RestateClient } from '../../src/client'
import { ServiceProcess, freePort, waitFor } from './process'
import { RestateServer } from './server'

const fixture = fileURLToPath(new URL('../fixtures/service.ts', import.meta.url))

export class Harness {
  readonly services: ServiceProcess[] = []
  private constructor(
    readonly server: RestateServer,
    readonly dir: string,
    readonly client: RestateClient,
  ) {}

  static async start(): Promise<Harness> {
    const server = await RestateServer.start()
    const dir = await mkdtemp(join(tmpdir(), 'dsh-restate-files-'))
    await mkdir(join(dir, 'ledger'))
    await writeFile(join(dir, 'effects.log'), '')
    await writeFile(join(dir, 'approvals.log'), '')
    return new Harness(server, dir, new RestateClient({ ingressUrl: server.ingressUrl, adminUrl: server.adminUrl }))
  }

  get effectsFile(): string {
    return join(this.dir, 'effects.log')
  }

  /** Starts one more fixture service process on a fixed free port; resolves with it and its port. */
  async service(): Promise<{ service: ServiceProcess; port: number }> {
    const port = await freePort()
    const service = new ServiceProcess(fixture, {
      PORT: String(port),
      EFFECT_LOG: this.effectsFile,
      LEDGER_DIR: join(this.dir, 'ledger'),
      APPROVAL_LOG: join(this.dir, 'approvals.log'),
    })
    this.services.push(service)
    await service.start()
    return { service, port }
  }

  /** The effects log's lines (`<tool> <key> <pid>`). */
  async effects(): Promise<string[]> {
    return (await readFile(this.effectsFile, 'utf8')).split('\n').filter((line) => line !== '')
  }

  /** How many effect lines each idempotency key has, for keys starting with `prefix`. */
  async effectCounts(prefix: string): Promise<Map<string, number>> {
    const counts = new Map<string, number>()
    for (const line of await this.effects()) {
      const key = line.split(' ')[1]!
      if (key.startsWith(prefix)) counts.set(key, (counts.get(key) ?? 0) + 1)
    }
    return counts
  }

  /** The ledger's entries (one per idempotency key that took effect), for keys starting with `prefix`. */
  async ledger(prefix: string): Promise<string[]> {
    return (await readdir(join(this.dir, 'ledger'))).map(decodeURIComponent).filter((key) => key.startsWith(prefix)).sort()
  }

  /** Waits (bounded) for the pending approval of the call whose key ends with `/<callId>` in batch `batchKey`. */
  async pendingApproval(batchKey: string, callId: string): Promise<{ awakeableId: string; toolName: string; reason?: string; key: string }> {
    return waitFor(`the approval request of ${batchKey}/${callId}`, 20_000, async () => {
      const lines = (await readFile(join(this.dir, 'approvals.log'), 'utf8')).split('\n').filter((l) => l !== '')
      for (const line of lines) {
        const pending = JSON.parse(line) as { awakeableId: string; toolName: string; reason?: string; key: string }
        if (pending.key === `${batchKey}/${callId}`) return pending
      }
      return undefined
    })
  }

  /** Journal entries of one invocation: type, name, raw byte length. */
  async journal(invocationId: string): Promise<{ index: number; entry_type: string; name: string | null; raw_length: number }[]> {
    return this.server.query(`select index, entry_type, name, raw_length from sys_journal where id = '${invocationId}' order by index`)
  }

  async status(invocationId: string): Promise<string | undefined> {
    const rows = await this.server.query<{ status: string }>(`select status from sys_invocation where id = '${invocationId}'`)
    return rows[0]?.status
  }

  async close(): Promise<void> {
    for (const service of this.services) await service.stop().catch(() => undefined)
    await this.server.stop()
    await rm(this.dir, { recursive: true, force: true })
  }
}
