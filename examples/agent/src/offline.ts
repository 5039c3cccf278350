/**
 * The bundled offline endpoint: a local replay server on 127.0.0.1 that answers each Chat
 * Completions request with the next recorded response of `recordings/offline.json` (or
 * `recordings/offline-ptc.json` for the PTC executor), so the agent runs with no network and no key.
 */
import { readFileSync } from 'node:fs'
import type { JsonValue } from '@deepseek-ai/dsh-tools'
import { startReplayServer, type ReplayServer } from '@deepseek-ai/dsh-tool-testkit'

/** The recorded responses of one executor's run, in order. */
export function offlineResponses(executor: 'native' | 'ptc' = 'native'): JsonValue[] {
  const file = new URL(executor === 'ptc' ? '../recordings/offline-ptc.json' : '../recordings/offline.json', import.meta.url)
  return (JSON.parse(readFileSync(file, 'utf8')) as { responses: JsonValue[] }).responses
}

/** Starts the replay server; pass `${server.origin}/v1` as the base URL. */
export function startOfflineServer(executor: 'native' | 'ptc' = 'native'): Promise<ReplayServer> {
  return startReplayServer(offlineResponses(executor).map((body) => ({ kind: 'json' as const, body })))
}
