/**
 * OpenAI Responses API emissions → raw batch: `function_call` output items (ids from `call_id`)
 * and streams (`response.output_item.added`, `response.function_call_arguments.delta`/`.done`,
 * `response.output_item.done`, `response.completed`/`response.incomplete`).
 */
import type { JsonValue } from '@deepseek-ai/dsh-tools'
import { finalizeCalls, takeCallId, type PendingCall } from '../finalize'
import { ProviderFormatError, type FinishInfo, type ParseIssue, type ParseOptions, type ParsedToolCalls } from '../types'
import type { OpenAIResponsesFunctionCallWire, OpenAIResponsesOutputItemWire, OpenAIResponsesResponseWire, OpenAIResponsesStreamEventWire } from './wire'

/**
 * Maps a response `status`: `completed` → `tool-calls` (when it called tools) or `stop`;
 * `incomplete` with `max_output_tokens` → `length`, with `content_filter` → `filtered`;
 * `failed`/`cancelled` → `other`; absent → by the presence of calls.
 */
export function openAIResponsesFinish(response: OpenAIResponsesResponseWire, hasCalls: boolean): FinishInfo {
  const status = response.status
  if (status === 'incomplete') {
    const reason = response.incomplete_details?.reason
    const raw = typeof reason === 'string' ? `incomplete: ${reason}` : 'incomplete'
    return { kind: reason === 'content_filter' ? 'filtered' : 'length', raw }
  }
  if (status === 'completed' || status === undefined) return { kind: hasCalls ? 'tool-calls' : 'stop', ...(status ? { raw: status } : {}) }
  return { kind: 'other', raw: String(status) }
}

/**
 * Parses a complete response (`output` items).
 *
 * @throws ProviderFormatError when `output` is not an array.
 */
export function parseOpenAIResponse(response: OpenAIResponsesResponseWire, options: ParseOptions = {}): ParsedToolCalls {
  const output: unknown = (response as { output?: unknown } | null)?.output
  if (!Array.isArray(output)) throw new ProviderFormatError('openai-responses', '/output', 'an array of output items', response)
  const issues: ParseIssue[] = []
  const used = new Set<string>()
  const calls: PendingCall[] = []
  let text = ''
  output.forEach((item: OpenAIResponsesOutputItemWire, i) => {
    if (item?.type === 'message') text += messageText(item as { content?: readonly { type?: string; text?: string }[] })
    if (item?.type !== 'function_call') return
    calls.push(pendingFromItem(item as OpenAIResponsesFunctionCallWire, `/output/${i}`, calls.length, used, issues))
  })
  return finalizeCalls({
    provider: 'openai-responses',
    calls,
    text,
    finish: openAIResponsesFinish(response, calls.length > 0),
    finishField: 'status',
    issues,
    nameMap: options.nameMap,
  })
}

interface StreamEntry {
  itemId: string
  callId: string
  name: string
  parts: string[]
  done?: string
  final?: OpenAIResponsesFunctionCallWire
}

/**
 * Accumulates a Responses stream. Argument deltas are keyed by `item_id` (then `output_index`)
 * and concatenated raw; a final `arguments` from `.done` events wins. Without a terminal
 * `response.completed`/`response.incomplete`/`response.failed` event the stream counts as cut.
 */
export class OpenAIResponsesStreamAccumulator {
  readonly #options: ParseOptions
  readonly #entries = new Map<number, StreamEntry>()
  #text = ''
  #terminal: OpenAIResponsesResponseWire | undefined

  constructor(options: ParseOptions = {}) {
    this.#options = options
  }

  /** Adds one parsed event. */
  push(event: OpenAIResponsesStreamEventWire): void {
    switch (event?.type) {
      case 'response.output_item.added':
      case 'response.output_item.done': {
        const item = event.item as OpenAIResponsesFunctionCallWire | undefined
        if (item?.type !== 'function_call') return
        const entry = this.#entry(event.output_index, item.id)
        if (typeof item.call_id === 'string' && entry.callId === '') entry.callId = item.call_id
        if (typeof item.name === 'string' && entry.name === '') entry.name = item.name
        if (typeof item.id === 'string' && entry.itemId === '') entry.itemId = item.id
        if (event.type === 'response.output_item.done') entry.final = item
        else if (typeof item.arguments === 'string' && item.arguments !== '') entry.parts.push(item.arguments)
        return
      }
      case 'response.function_call_arguments.delta':
        if (typeof event.delta === 'string') this.#entry(event.output_index, event.item_id).parts.push(event.delta)
        return
      case 'response.function_call_arguments.done':
        if (typeof event.arguments === 'string') this.#entry(event.output_index, event.item_id).done = event.arguments
        return
      case 'response.output_text.delta':
        if (typeof event.delta === 'string') this.#text += event.delta
        return
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed':
        this.#terminal = event.response ?? { status: event.type.slice('response.'.length) }
        return
      default:
        return
    }
  }

  #entry(outputIndex: number | undefined, itemId: string | undefined): StreamEntry {
    if (typeof itemId === 'string') for (const entry of this.#entries.values()) if (entry.itemId === itemId) return entry
    const key = typeof outputIndex === 'number' ? outputIndex : this.#entries.size
    let entry = this.#entries.get(key)
    if (!entry) {
      entry = { itemId: typeof itemId === 'string' ? itemId : '', callId: '', name: '', parts: [] }
      this.#entries.set(key, entry)
    }
    return entry
  }

  /** The parse result for everything pushed so far. */
  result(): ParsedToolCalls {
    const issues: ParseIssue[] = []
    const used = new Set<string>()
    const keys = [...this.#entries.keys()].sort((a, b) => a - b)
    const calls: PendingCall[] = keys.map((key, i) => {
      const entry = this.#entries.get(key) as StreamEntry
      const final = entry.final
      const args = typeof final?.arguments === 'string' ? final.arguments : (entry.done ?? entry.parts.join(''))
      const item: OpenAIResponsesFunctionCallWire = { type: 'function_call', call_id: entry.callId, name: entry.name, arguments: args, ...(final?.status ? { status: final.status } : {}) }
      return pendingFromItem(item, `/output/${key}`, i, used, issues)
    })
    const finish: FinishInfo = this.#terminal ? openAIResponsesFinish(this.#terminal, calls.length > 0) : { kind: 'missing' }
    return finalizeCalls({
      provider: 'openai-responses',
      calls,
      text: this.#text,
      finish,
      finishField: 'status',
      issues,
      nameMap: this.#options.nameMap,
    })
  }
}

/** Parses a whole Responses stream (see {@link OpenAIResponsesStreamAccumulator}). */
export function parseOpenAIResponsesStream(events: Iterable<OpenAIResponsesStreamEventWire>, options: ParseOptions = {}): ParsedToolCalls {
  const accumulator = new OpenAIResponsesStreamAccumulator(options)
  for (const event of events) accumulator.push(event)
  return accumulator.result()
}

function pendingFromItem(item: OpenAIResponsesFunctionCallWire, pointer: string, index: number, used: Set<string>, issues: ParseIssue[]): PendingCall {
  const callId = takeCallId(item.call_id, 'call_id', `${pointer}/call_id`, 'call_', index, used, issues)
  if (typeof item.name !== 'string' || item.name === '') issues.push({ pointer: `${pointer}/name`, message: 'missing function name' })
  let args: string | JsonValue = ''
  if (typeof item.arguments === 'string') args = item.arguments
  else issues.push({ pointer: `${pointer}/arguments`, message: 'missing arguments; passed as ""' })
  return { callId, wireName: typeof item.name === 'string' ? item.name : '', arguments: args, lastAtLimit: item.status === 'incomplete' }
}

function messageText(item: { content?: readonly { type?: string; text?: string }[] }): string {
  if (!Array.isArray(item.content)) return ''
  return item.content.map((part) => (part?.type === 'output_text' && typeof part.text === 'string' ? part.text : '')).join('')
}
