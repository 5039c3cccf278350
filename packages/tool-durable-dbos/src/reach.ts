/**
 * Checks that DBOS's system database answers before `DBOS.launch()`, whose own connection
 * retries would otherwise wait long with nothing said about where it looked.
 */
import { DBOSClient } from '@dbos-inc/dbos-sdk'

/** The system database did not answer: the message names the URL (password hidden) and why. */
export class SystemDatabaseUnreachableError extends Error {
  override readonly name = 'SystemDatabaseUnreachableError'
  readonly code = 'DURABLE_ENGINE_UNREACHABLE'
  /** The URL that was tried, password replaced by `***`. */
  readonly url: string
  constructor(url: string, detail: string, cause?: unknown) {
    super(`DBOS system database unreachable at ${url}: ${detail}`, cause === undefined ? undefined : { cause })
    this.url = url
  }
}

/** `url` with its password replaced by `***` (what errors and logs may show). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password !== '') u.password = '***'
    return u.toString()
  } catch {
    return '<not a URL>'
  }
}

/**
 * Connects to `systemDatabaseUrl` once and lists at most one workflow, within `timeoutMs`
 * (default 5,000 ms). A server that answers that the database does not exist yet counts as
 * reachable (`DBOS.launch()` creates it).
 *
 * @throws SystemDatabaseUnreachableError (code `DURABLE_ENGINE_UNREACHABLE`) naming the URL.
 */
export async function assertSystemDatabaseReachable(systemDatabaseUrl: string, timeoutMs = 5000): Promise<void> {
  const shown = redactUrl(systemDatabaseUrl)
  let client: DBOSClient | undefined
  let timer: NodeJS.Timeout | undefined
  try {
    const attempt = (async () => {
      client = await DBOSClient.create({ systemDatabaseUrl, systemDatabasePoolSize: 1 })
      await client.listWorkflows({ limit: 1 })
    })()
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new SystemDatabaseUnreachableError(shown, `no answer within ${timeoutMs} ms`)), timeoutMs)
    })
    await Promise.race([attempt, expired])
  } catch (error) {
    if (error instanceof SystemDatabaseUnreachableError) throw error
    // The server answered that the database is not there yet: reachable (DBOS.launch creates it).
    if (hasCode(error, '3D000')) return
    const detail = error instanceof Error ? error.message || error.name : String(error)
    throw new SystemDatabaseUnreachableError(shown, detail, error)
  } finally {
    clearTimeout(timer)
    await client?.destroy().catch(() => undefined)
  }
}

/** Whether `error` (or its cause) carries PostgreSQL error code `code`. */
function hasCode(error: unknown, code: string): boolean {
  for (let e: unknown = error, depth = 0; e !== null && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === code) return true
  }
  return false
}
