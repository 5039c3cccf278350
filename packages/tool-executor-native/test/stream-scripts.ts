/**
 * Synthetic provider streams for the eager-start tests: one turn of tool calls in each
 * provider's SSE shape, every call's arguments in two fragments, and the SDK request that reads
 * it from a replay server. `cutAfter` ends the script early: after call `call`'s first argument
 * fragment (its arguments incomplete), with no finish.
 */
import OpenAI from 'openai'
import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import type { JsonObject, JsonValue } from '@deepseek-ai/dsh-tools'
import type { ReplayResponse } from '@deepseek-ai/dsh-tool-testkit'
import type { StreamProvider } from '../src'

/** A call of a scripted turn. */
export interface ScriptCall {
  readonly id: string
  readonly name: string
  readonly args: JsonObject
}

/** A scripted stream: its events, and where each call's arguments are complete (the event index after which it may start). */
export interface Script {
  readonly events: readonly JsonValue[]
  /** The reply for the replay server (with `beforeEvent` to gate it). */
  readonly reply: (beforeEvent?: (index: number) => void | Promise<void>) => ReplayResponse
}

/** Splits a call's argument text in two fragments. */
function halves(args: JsonObject): [string, string] {
  const text = JSON.stringify(args)
  const at = Math.floor(text.length / 2)
  return [text.slice(0, at), text.slice(at)]
}

/** The events of a turn with `calls`; with `cut`, the script stops after call `cut`'s first fragment. */
export function script(provider: StreamProvider, calls: readonly ScriptCall[], cut?: number): Script {
  const upTo = cut === undefined ? calls.length : cut + 1
  const events: JsonValue[] = []
  const chat = provider === 'openai-chat' || provider === 'deepseek' || provider === 'openai-compatible'
  if (provider === 'anthropic') events.push({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } })
  if (provider === 'openai-responses') events.push({ type: 'response.created', sequence_number: 0, response: { id: 'resp_1', object: 'response', status: 'in_progress', output: [] } })
  for (let i = 0; i < upTo; i++) {
    const call = calls[i] as ScriptCall
    const [first, second] = halves(call.args)
    const last = cut !== undefined && i === cut
    if (chat) {
      const fragment = (extra: JsonObject) => ({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { tool_calls: [{ index: i, ...extra }] }, finish_reason: null }] })
      events.push(fragment({ id: call.id, type: 'function', function: { name: call.name, arguments: '' } }))
      events.push(fragment({ function: { arguments: first } }))
      if (!last) events.push(fragment({ function: { arguments: second } }))
    } else if (provider === 'openai-responses') {
      const item = { type: 'function_call', id: `fc_${call.id}`, call_id: call.id, name: call.name, arguments: '', status: 'in_progress' }
      events.push({ type: 'response.output_item.added', output_index: i, item })
      events.push({ type: 'response.function_call_arguments.delta', output_index: i, item_id: item.id, delta: first })
      if (!last) {
        events.push({ type: 'response.function_call_arguments.delta', output_index: i, item_id: item.id, delta: second })
        events.push({ type: 'response.function_call_arguments.done', output_index: i, item_id: item.id, arguments: first + second })
        events.push({ type: 'response.output_item.done', output_index: i, item: { ...item, arguments: first + second, status: 'completed' } })
      }
    } else if (provider === 'anthropic') {
      events.push({ type: 'content_block_start', index: i, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} } })
      events.push({ type: 'content_block_delta', index: i, delta: { type: 'input_json_delta', partial_json: first } })
      if (!last) {
        events.push({ type: 'content_block_delta', index: i, delta: { type: 'input_json_delta', partial_json: second } })
        events.push({ type: 'content_block_stop', index: i })
      }
    } else {
      // Gemini: a part carries whole arguments; a cut call is one announcing more parts that never come.
      const part: JsonObject = last ? { functionCall: { id: call.id, name: call.name, args: {}, willContinue: true } } : { functionCall: { id: call.id, name: call.name, args: call.args } }
      events.push({ candidates: [{ content: { role: 'model', parts: [part] }, index: 0 }] })
    }
  }
  if (cut === undefined) {
    if (chat) events.push({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] })
    if (provider === 'openai-responses') {
      const output = calls.map((call) => ({ type: 'function_call', id: `fc_${call.id}`, call_id: call.id, name: call.name, arguments: JSON.stringify(call.args), status: 'completed' }))
      events.push({ type: 'response.completed', response: { id: 'resp_1', object: 'response', status: 'completed', output } })
    }
    if (provider === 'anthropic') {
      events.push({ type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 1 } })
      events.push({ type: 'message_stop' })
    }
    if (provider === 'gemini') events.push({ candidates: [{ content: { role: 'model', parts: [] }, finishReason: 'STOP', index: 0 }] })
  }
  const named = provider === 'anthropic' || provider === 'openai-responses'
  return {
    events,
    reply: (beforeEvent) => ({ kind: 'sse', events, namedEvents: named, done: chat, ...(beforeEvent === undefined ? {} : { beforeEvent }) }),
  }
}

/** Opens the provider's stream with its official SDK client against `origin`. */
export async function openStream(provider: StreamProvider, origin: string, signal?: AbortSignal): Promise<AsyncIterable<never>> {
  const options = signal === undefined ? {} : { signal }
  switch (provider) {
    case 'openai-chat':
    case 'deepseek':
    case 'openai-compatible': {
      const client = new OpenAI({ apiKey: 'test-key', baseURL: `${origin}/v1`, maxRetries: 0 })
      return (await client.chat.completions.create({ model: provider === 'deepseek' ? 'deepseek-chat' : 'gpt-4.1', messages: [{ role: 'user', content: 'go' }], stream: true }, options)) as never
    }
    case 'openai-responses': {
      const client = new OpenAI({ apiKey: 'test-key', baseURL: `${origin}/v1`, maxRetries: 0 })
      return (await client.responses.create({ model: 'gpt-4.1', input: 'go', stream: true }, options)) as never
    }
    case 'anthropic': {
      const client = new Anthropic({ apiKey: 'test-key', baseURL: origin, maxRetries: 0 })
      return (await client.messages.create({ model: 'claude-sonnet-5', max_tokens: 1024, messages: [{ role: 'user', content: 'go' }], stream: true }, options)) as never
    }
    case 'gemini': {
      const ai = new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: origin, apiVersion: 'v1beta' } })
      return (await ai.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'go', config: signal === undefined ? {} : { abortSignal: signal } })) as never
    }
  }
}
