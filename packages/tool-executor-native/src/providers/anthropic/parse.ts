/**
 * Anthropic Messages emissions → raw batch: `tool_use` blocks (arguments are the `input` object
 * as sent) and streams (`input_json_delta` fragments concatenated raw; a tool with no
 * fragments, or only empty ones, keeps the block's `input` placeholder `{}`: emission E09).
 */
import type { JsonValue } from '@deepseek-ai/dsh-tools'
import { finalizeCalls, finishFromTable, takeCallId, type PendingCall } from '../finalize'
import { ProviderFormatError, type FinishInfo, type FinishKind, type ParseIssue, type ParseOptions, type ParsedToolCalls } from '../types'
import type { AnthropicContentBlockWire, AnthropicMessageWire, AnthropicStreamEventWire } from './wire'

/**
 * Maps a `stop_reason`: `tool_use` → `tool-calls`; `end_turn`/`stop_sequence` → `stop`;
 * `max_tokens`/`model_context_window_exceeded` → `length`; `refusal` → `filtered`; others
 * (`pause_turn`) → `other`.
 */
export function anthropicFinish(reason: string | null | undefined): FinishInfo {
  return finishFromTable(reason, FINISH_KINDS)
}

const FINISH_KINDS: ReadonlyMap<string, FinishKind> = new Map([
  ['tool_use', 'tool-calls'],
  ['end_turn', 'stop'],
  ['stop_sequence', 'stop'],
  ['max_tokens', 'length'],
  ['model_context_window_exceeded', 'length'],
  ['refusal', 'filtered'],
])

/**
 * Parses a complete message. At `max_tokens`, a `tool_use` that is the last block is the one
 * being written and is reported as `arguments-incomplete`.
 *
 * @throws ProviderFormatError when `content` is not an array.
 */
export function parseAnthropicMessage(message: AnthropicMessageWire, options: ParseOptions = {}): ParsedToolCalls {
  const content: unknown = (message as { content?: unknown } | null)?.content
  if (!Array.isArray(content)) throw new ProviderFormatError('anthropic', '/content', 'an array of content blocks', message)
  const issues: ParseIssue[] = []
  const used = new Set<string>()
  const calls: PendingCall[] = []
  let text = ''
  content.forEach((block: AnthropicContentBlockWire, i) => {
    if (block?.type === 'text' && typeof block.text === 'string') text += block.text
    if (block?.type !== 'tool_use') return
    const args = block.input === undefined ? {} : block.input
    calls.push({ ...identify(block, `/content/${i}`, calls.length, used, issues), arguments: args, lastAtLimit: i === content.length - 1 })
  })
  return finalizeCalls({
    provider: 'anthropic',
    calls,
    text,
    finish: anthropicFinish(message.stop_reason),
    finishField: 'stop_reason',
    issues,
    nameMap: options.nameMap,
  })
}

interface Block {
  readonly type: string
  readonly id: unknown
  readonly name: unknown
  readonly input: JsonValue | undefined
  readonly parts: string[]
}

/**
 * Accumulates a Messages stream by content-block `index`. Without a `stop_reason`
 * (`message_delta`) the stream counts as cut.
 */
export class AnthropicStreamAccumulator {
  readonly #options: ParseOptions
  readonly #blocks = new Map<number, Block>()
  readonly #issues: ParseIssue[] = []
  #text = ''
  #stop: string | undefined
  #events = 0

  constructor(options: ParseOptions = {}) {
    this.#options = options
  }

  /** Adds one parsed event. */
  push(event: AnthropicStreamEventWire): void {
    const n = this.#events++
    switch (event?.type) {
      case 'message_start':
        if (typeof event.message?.stop_reason === 'string') this.#stop = event.message.stop_reason
        return
      case 'content_block_start': {
        const block = event.content_block
        const index = typeof event.index === 'number' ? event.index : this.#blocks.size
        if (!block) return
        this.#blocks.set(index, { type: block.type, id: block.id, name: block.name, input: block.input, parts: [] })
        if (block.type === 'text' && typeof block.text === 'string') this.#text += block.text
        return
      }
      case 'content_block_delta': {
        const delta = event.delta
        if (delta?.type === 'text_delta' && typeof delta.text === 'string') {
          this.#text += delta.text
          return
        }
        if (delta?.type !== 'input_json_delta' || typeof delta.partial_json !== 'string') return
        const block = typeof event.index === 'number' ? this.#blocks.get(event.index) : undefined
        if (!block) {
          this.#issues.push({ pointer: `/events/${n}`, message: 'input_json_delta for a block that never started; ignored' })
          return
        }
        block.parts.push(delta.partial_json)
        return
      }
      case 'message_delta':
        if (typeof event.delta?.stop_reason === 'string') this.#stop = event.delta.stop_reason
        return
      case 'error':
        this.#issues.push({ pointer: `/events/${n}`, message: `stream error: ${event.error?.message ?? event.error?.type ?? 'unknown'}` })
        return
      default:
        return
    }
  }

  /** The parse result for everything pushed so far. */
  result(): ParsedToolCalls {
    const issues = [...this.#issues]
    const used = new Set<string>()
    const indices = [...this.#blocks.keys()].sort((a, b) => a - b)
    const last = indices[indices.length - 1]
    const calls: PendingCall[] = []
    for (const index of indices) {
      const block = this.#blocks.get(index) as Block
      if (block.type !== 'tool_use') continue
      const joined = block.parts.join('')
      const args: string | JsonValue = joined === '' ? (block.input ?? {}) : joined
      calls.push({ ...identify(block, `/content/${index}`, calls.length, used, issues), arguments: args, lastAtLimit: index === last })
    }
    return finalizeCalls({
      provider: 'anthropic',
      calls,
      text: this.#text,
      finish: this.#stop === undefined ? { kind: 'missing' } : anthropicFinish(this.#stop),
      finishField: 'stop_reason',
      issues,
      nameMap: this.#options.nameMap,
    })
  }
}

/** Parses a whole Messages stream (see {@link AnthropicStreamAccumulator}). */
export function parseAnthropicStream(events: Iterable<AnthropicStreamEventWire>, options: ParseOptions = {}): ParsedToolCalls {
  const accumulator = new AnthropicStreamAccumulator(options)
  for (const event of events) accumulator.push(event)
  return accumulator.result()
}

function identify(block: { id?: unknown; name?: unknown }, pointer: string, index: number, used: Set<string>, issues: ParseIssue[]): { callId: string; wireName: string } {
  const callId = takeCallId(block.id, 'tool_use id', `${pointer}/id`, 'toolu_', index, used, issues)
  if (typeof block.name !== 'string' || block.name === '') issues.push({ pointer: `${pointer}/name`, message: 'missing tool name' })
  return { callId, wireName: typeof block.name === 'string' ? block.name : '' }
}
