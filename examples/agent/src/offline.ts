/**
 * The bundled offline endpoint: a local replay server on 127.0.0.1 that answers each Chat
 * Completions request with the next recorded response of `recordings/offline.json`, so the
 * agent runs with no network and no key.
 */
import { readFileSync } from 'node:fs'
import type { JsonValue } from '@deepseek-ai/dsh-tools'
import { startReplayServer, type ReplayServer } from '@deepseek-ai/dsh-tool-testkit'

/** The recorded responses, in order. */
export function offlineResponses(): JsonValue[] {
  const file = new URL('../recordings/offline.json', import.meta.url)
  return (JSON.parse(readFileSync(file, 'utf8')) as { responses: JsonValue[] }).responses
}

/** Starts the replay server; pass `${server.origin}/v1` as the base URL. */
export function startOfflineServer(): Promise<ReplayServer> {
  return startReplayServer(offlineResponses().map((body) => ({ kind: 'json' as const, body })))
}
