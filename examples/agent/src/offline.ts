/**
 * The bundled offline endpoint: a local replay server on 127.0.0.1 that answers each Chat
 * Completions request with the next recorded response of `recordings/offline.json` (or
 * `recordings/offline-ptc.json` for the PTC executor), so the agent runs with no network and no key.
 * A request with `stream: true` gets the response as a stream of chunks (`completionChunks`).
 */
import { readFileSync } from 'node:fs'
import type { JsonObject, JsonValue } from '@deepseek-ai/dsh-tools'
import { startReplayServer, type RecordedRequest, type ReplayResponse, type ReplayServer } from '@deepseek-ai/dsh-tool-testkit'

/** The recorded responses of one executor's run, in order. */
export function offlineResponses(executor: 'native' | 'ptc' = 'native'): JsonValue[] {
  const file = new URL(executor === 'ptc' ? '../recordings/offline-ptc.json' : '../recordings/offline.json', import.meta.url)
  return (JSON.parse(readFileSync(file, 'utf8')) as { responses: JsonValue[] }).responses
}

interface CompletionShape {
  readonly id?: string
  readonly created?: number
  readonly model?: string
  readonly choices: readonly { readonly finish_reason: string; readonly message: { readonly content?: string | null; readonly tool_calls?: readonly { readonly id: string; readonly function: { readonly name: string; readonly arguments: string } }[] } }[]
}

/**
 * A chat completion as the chunks a streaming server sends: the text, then each tool call (its
 * id and name, then its arguments in two fragments), then the finish reason.
 */
export function completionChunks(completion: JsonValue): JsonObject[] {
  const c = completion as unknown as CompletionShape
  const choice = c.choices[0]!
  const chunk = (delta: JsonObject, finish: string | null = null): JsonObject => ({ id: c.id ?? 'chunk', object: 'chat.completion.chunk', created: c.created ?? 0, model: c.model ?? 'm', choices: [{ index: 0, delta, finish_reason: finish }] })
  const chunks: JsonObject[] = [chunk({ role: 'assistant', ...(choice.message.content ? { content: choice.message.content } : {}) })]
  ;(choice.message.tool_calls ?? []).forEach((call, index) => {
    const args = call.function.arguments
    const half = Math.floor(args.length / 2)
    chunks.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }))
    chunks.push(chunk({ tool_calls: [{ index, function: { arguments: args.slice(0, half) } }] }))
    chunks.push(chunk({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] }))
  })
  chunks.push(chunk({}, choice.finish_reason))
  return chunks
}

/** The reply to `request`: the completion as JSON, or as an SSE stream when the request asked for one. */
export function replyFor(completion: JsonValue, request: RecordedRequest): ReplayResponse {
  const streamed = (request.body as { stream?: unknown } | undefined)?.stream === true
  return streamed ? { kind: 'sse', events: completionChunks(completion), done: true } : { kind: 'json', body: completion }
}

/** Starts the replay server; pass `${server.origin}/v1` as the base URL. */
export function startOfflineServer(executor: 'native' | 'ptc' = 'native'): Promise<ReplayServer> {
  const responses = offlineResponses(executor)
  return startReplayServer((request, index) => {
    const completion = responses[index]
    if (completion === undefined) return { kind: 'json', status: 500, body: { error: { message: `replay script exhausted after ${index} responses` } } }
    return replyFor(completion, request)
  })
}
