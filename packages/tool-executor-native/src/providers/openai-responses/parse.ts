/**
 * OpenAI Responses API emissions → raw batch: `function_call` output items (ids from `call_id`)
 * and streams (`response.output_item.added`, `response.function_call_arguments.delta`/`.done`,
 * `response.output_item.done`, `response.completed`/`response.incomplete`).
 */
import { quoteText, type JsonObject, type JsonValue } from '@deepseek-ai/dsh-tools'
import { finalizeCalls, type DraftPart, type PendingCall } from '../finalize'
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
  const calls: PendingCall[] = []
  const parts: DraftPart[] = []
  let text = ''
  let reasoning = ''
  output.forEach((item: OpenAIResponsesOutputItemWire, i) => {
    if (item?.type === 'message') {
      const itemText = messageText(item as { content?: readonly { type?: string; text?: string }[] })
      text += itemText
      if (itemText !== '') parts.push({ type: 'text', text: itemText })
    } else if (item?.type === 'reasoning') {
      reasoning += reasoningText(item)
      parts.push({ type: 'opaque', item: item as unknown as JsonObject })
    } else if (item?.type === 'function_call') {
      parts.push({ type: 'call', index: calls.length })
      calls.push(pendingFromItem(item as OpenAIResponsesFunctionCallWire, `/output/${i}`, issues))
    }
  })
  return finalizeResponses(options, calls, text, reasoning, parts, openAIResponsesFinish(response, calls.length > 0), issues)
}

/** The shared tail of the Responses parsers. */
function finalizeResponses(options: ParseOptions, calls: PendingCall[], text: string, reasoning: string, parts: DraftPart[], finish: FinishInfo, issues: ParseIssue[]): ParsedToolCalls {
  return finalizeCalls({
    provider: 'openai-responses',
    calls,
    text,
    reasoning,
    parts,
    finish,
    finishField: 'status',
    idField: 'call_id',
    mintPrefix: 'call_',
    issues,
    options,
  })
}

interface StreamEntry {
  /** The `output_index` (or a position after every sent one when the events gave none). */
  readonly key: number
  itemId: string
  callId: string
  name: string
  parts: string[]
  /** Whether `response.output_item.added` was seen for it. */
  added: boolean
  done?: string
  final?: OpenAIResponsesFunctionCallWire
}

/**
 * Accumulates a Responses stream. Argument deltas are keyed by `item_id` (then `output_index`)
 * and concatenated raw; a final `arguments` from `.done` events wins. Without a terminal
 * `response.completed`/`response.incomplete`/`response.failed` event the stream counts as cut.
 *
 * A call is never glued to another one, and nothing is dropped; each of these is an issue:
 * - an item at an `output_index` that already holds another item (`output_index 0 already holds
 *   item "fc_1"; item "fc_2" starts a new call`): both are calls, in arrival order;
 * - `response.output_item.added` repeated for an item (`item "fc_1" was added twice; the repeat
 *   is ignored`);
 * - an `output_item.done` whose `call_id` or `name` differs from the `added` one: the `done`
 *   item is the final one and wins (`item "fc_1": call_id "call_a" became "call_b" in
 *   response.output_item.done; the final one is used`);
 * - a delta naming neither `item_id` nor `output_index` continues the most recent call.
 */
export class OpenAIResponsesStreamAccumulator {
  readonly #options: ParseOptions
  /** Calls in arrival order. */
  readonly #entries: StreamEntry[] = []
  /** The call each `output_index` currently holds. */
  readonly #current = new Map<number, StreamEntry>()
  readonly #issues: ParseIssue[] = []
  /** Finished `reasoning` and `message` items by output index (for the assistant turn). */
  readonly #others = new Map<number, JsonObject>()
  #text = ''
  #terminal: OpenAIResponsesResponseWire | undefined
  #events = 0

  constructor(options: ParseOptions = {}) {
    this.#options = options
  }

  /** Adds one parsed event. */
  push(event: OpenAIResponsesStreamEventWire): void {
    const n = this.#events++
    switch (event?.type) {
      case 'response.output_item.added':
      case 'response.output_item.done': {
        const any = event.item as { type?: string } | undefined
        if (event.type === 'response.output_item.done' && (any?.type === 'reasoning' || any?.type === 'message')) {
          this.#others.set(typeof event.output_index === 'number' ? event.output_index : -1 - this.#others.size, any as unknown as JsonObject)
          return
        }
        const item = event.item as OpenAIResponsesFunctionCallWire | undefined
        if (item?.type !== 'function_call') return
        const itemId = typeof item.id === 'string' && item.id !== '' ? item.id : undefined
        const known = itemId !== undefined && this.#entries.some((e) => e.itemId === itemId)
        if (event.type === 'response.output_item.added' && known) {
          this.#issues.push({ pointer: `/events/${n}`, message: `item ${quoteText(itemId)} was added twice; the repeat is ignored` })
          return
        }
        const entry = this.#entry(event.output_index, itemId, n, event.type === 'response.output_item.added')
        if (event.type === 'response.output_item.done') {
          entry.final = item
          this.#reconcile(entry, 'call_id', entry.callId, item.call_id, n)
          this.#reconcile(entry, 'name', entry.name, item.name, n)
          if (typeof item.call_id === 'string' && item.call_id !== '') entry.callId = item.call_id
          if (typeof item.name === 'string' && item.name !== '') entry.name = item.name
          return
        }
        entry.added = true
        if (typeof item.call_id === 'string' && entry.callId === '') entry.callId = item.call_id
        if (typeof item.name === 'string' && entry.name === '') entry.name = item.name
        if (typeof item.arguments === 'string' && item.arguments !== '') entry.parts.push(item.arguments)
        return
      }
      case 'response.function_call_arguments.delta':
        if (typeof event.delta === 'string') this.#entry(event.output_index, event.item_id, n).parts.push(event.delta)
        return
      case 'response.function_call_arguments.done':
        if (typeof event.arguments === 'string') this.#entry(event.output_index, event.item_id, n).done = event.arguments
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

  /** Reports a field whose final value (`output_item.done`) differs from the first one. */
  #reconcile(entry: StreamEntry, field: string, before: string, after: unknown, event: number): void {
    if (before === '' || typeof after !== 'string' || after === '' || after === before) return
    const item = entry.itemId === '' ? `the call at output_index ${entry.key}` : `item ${quoteText(entry.itemId)}`
    this.#issues.push({ pointer: `/events/${event}/item/${field}`, message: `${item}: ${field} ${quoteText(before)} became ${quoteText(after)} in response.output_item.done; the final one is used` })
  }

  /**
   * The call an event belongs to: by item id, else by output index, else the most recent one.
   * `adding`: the event adds an item, so a call at its index that was already added is another item.
   */
  #entry(outputIndex: number | undefined, itemId: string | undefined, event: number, adding = false): StreamEntry {
    const id = typeof itemId === 'string' && itemId !== '' ? itemId : undefined
    if (id !== undefined) for (const entry of this.#entries) if (entry.itemId === id) return entry
    const key = typeof outputIndex === 'number' ? outputIndex : undefined
    let entry = key === undefined ? this.#entries[this.#entries.length - 1] : this.#current.get(key)
    if (entry && ((id !== undefined && entry.itemId !== '' && entry.itemId !== id) || (adding && entry.added))) {
      const held = entry.itemId !== '' ? `item ${quoteText(entry.itemId)}` : `a call${entry.callId !== '' ? ` (${quoteText(entry.callId)})` : ''}`
      this.#issues.push({ pointer: `/events/${event}`, message: `output_index ${entry.key} already holds ${held}; ${id !== undefined ? `item ${quoteText(id)}` : 'the new item'} starts a new call` })
      entry = undefined
    }
    if (!entry) {
      const next = Math.max(-1, ...this.#entries.map((e) => e.key), ...this.#others.keys()) + 1
      entry = { key: key ?? next, itemId: '', callId: '', name: '', parts: [], added: false }
      this.#entries.push(entry)
      this.#current.set(entry.key, entry)
    }
    if (entry.itemId === '' && id !== undefined) entry.itemId = id
    return entry
  }

  /**
   * How many leading calls (in the order {@link result} lists them) have arguments that can no
   * longer change: those whose `response.function_call_arguments.done` or
   * `response.output_item.done` arrived. Used by `executeToolStream` to start a call while the
   * model still streams the rest.
   */
  readyCalls(): number {
    const entries = [...this.#entries].sort((a, b) => a.key - b.key)
    let n = 0
    while (n < entries.length && ((entries[n] as StreamEntry).done !== undefined || (entries[n] as StreamEntry).final !== undefined)) n++
    return n
  }

  /** The parse result for everything pushed so far. */
  result(): ParsedToolCalls {
    const issues: ParseIssue[] = [...this.#issues]
    const calls: PendingCall[] = []
    const parts: DraftPart[] = []
    let reasoning = ''
    let textPlaced = false
    // Output order: by output index; calls that reused an index follow the earlier item there.
    const slots = [...[...this.#others.keys()].map((key) => ({ key, entry: undefined })), ...this.#entries.map((entry) => ({ key: entry.key, entry }))]
    slots.sort((a, b) => a.key - b.key)
    for (const { key, entry } of slots) {
      if (!entry) {
        const other = this.#others.get(key) as JsonObject
        if (other.type === 'reasoning') {
          reasoning += reasoningText(other as OpenAIResponsesOutputItemWire)
          parts.push({ type: 'opaque', item: other })
        } else if (other.type === 'message') {
          if (!textPlaced && this.#text !== '') parts.push({ type: 'text', text: this.#text })
          textPlaced = true
        }
        continue
      }
      const final = entry.final
      const args = typeof final?.arguments === 'string' ? final.arguments : (entry.done ?? entry.parts.join(''))
      const item: OpenAIResponsesFunctionCallWire = {
        type: 'function_call',
        call_id: entry.callId,
        name: entry.name,
        arguments: args,
        ...(entry.itemId !== '' ? { id: entry.itemId } : {}),
        ...(final?.status ? { status: final.status } : {}),
      }
      parts.push({ type: 'call', index: calls.length })
      calls.push(pendingFromItem(item, `/output/${key}`, issues))
    }
    if (!textPlaced && this.#text !== '') parts.unshift({ type: 'text', text: this.#text })
    const finish: FinishInfo = this.#terminal ? openAIResponsesFinish(this.#terminal, calls.length > 0) : { kind: 'missing' }
    return finalizeResponses(this.#options, calls, this.#text, reasoning, parts, finish, issues)
  }
}

/** Parses a whole Responses stream (see {@link OpenAIResponsesStreamAccumulator}). */
export function parseOpenAIResponsesStream(events: Iterable<OpenAIResponsesStreamEventWire>, options: ParseOptions = {}): ParsedToolCalls {
  const accumulator = new OpenAIResponsesStreamAccumulator(options)
  for (const event of events) accumulator.push(event)
  return accumulator.result()
}

function pendingFromItem(item: OpenAIResponsesFunctionCallWire, pointer: string, issues: ParseIssue[]): PendingCall {
  if (typeof item.name !== 'string' || item.name === '') issues.push({ pointer: `${pointer}/name`, message: 'missing function name' })
  let args: string | JsonValue = ''
  if (typeof item.arguments === 'string') args = item.arguments
  else issues.push({ pointer: `${pointer}/arguments`, message: 'missing arguments; passed as ""' })
  return {
    id: item.call_id,
    idPointer: `${pointer}/call_id`,
    wireName: typeof item.name === 'string' ? item.name : '',
    arguments: args,
    lastAtLimit: item.status === 'incomplete',
    ...(typeof item.id === 'string' && item.id !== '' ? { itemId: item.id } : {}),
  }
}

/** The summary text of a `reasoning` item (its `summary[].text`, then any `content[].text`). */
function reasoningText(item: OpenAIResponsesOutputItemWire): string {
  const texts = (list: unknown): string =>
    Array.isArray(list) ? list.map((part: { text?: unknown }) => (typeof part?.text === 'string' ? part.text : '')).join('') : ''
  const record = item as { summary?: unknown; content?: unknown }
  return texts(record.summary) + texts(record.content)
}

function messageText(item: { content?: readonly { type?: string; text?: string }[] }): string {
  if (!Array.isArray(item.content)) return ''
  return item.content.map((part) => (part?.type === 'output_text' && typeof part.text === 'string' ? part.text : '')).join('')
}
