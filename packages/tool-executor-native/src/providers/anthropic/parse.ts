/**
 * Anthropic Messages emissions → raw batch: `tool_use` blocks (arguments are the `input` object
 * as sent) and streams (`input_json_delta` fragments concatenated raw; a tool with no
 * fragments, or only empty ones, keeps the block's `input` placeholder `{}`: emission E09).
 */
import { quoteText, type JsonObject, type JsonValue } from '@deepseek-ai/dsh-tools'
import { finalizeCalls, finishFromTable, type DraftPart, type PendingCall } from '../finalize'
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
  const calls: PendingCall[] = []
  const parts: DraftPart[] = []
  let text = ''
  let reasoning = ''
  content.forEach((block: AnthropicContentBlockWire, i) => {
    const part = blockPart(block)
    if (part?.type === 'text') text += part.text
    if (part?.type === 'reasoning') reasoning += part.text
    if (part) parts.push(part)
    if (block?.type !== 'tool_use') return
    const args = (block.input === undefined ? {} : block.input) as JsonValue
    parts.push({ type: 'call', index: calls.length })
    calls.push({ ...identify(block, `/content/${i}`, issues), arguments: args, lastAtLimit: i === content.length - 1 })
  })
  return finalizeAnthropic(options, calls, text, reasoning, parts, anthropicFinish(message.stop_reason), issues)
}

/** The shared tail of the Anthropic parsers. */
function finalizeAnthropic(options: ParseOptions, calls: PendingCall[], text: string, reasoning: string, parts: DraftPart[], finish: FinishInfo, issues: ParseIssue[]): ParsedToolCalls {
  return finalizeCalls({
    provider: 'anthropic',
    calls,
    text,
    reasoning,
    parts,
    finish,
    finishField: 'stop_reason',
    idField: 'tool_use id',
    mintPrefix: 'toolu_',
    issues,
    options,
  })
}

/** The turn part of a non-tool block: text, thinking (with its signature), redacted thinking kept verbatim. */
function blockPart(block: AnthropicContentBlockWire): DraftPart | undefined {
  if (block?.type === 'text' && typeof block.text === 'string') return { type: 'text', text: block.text }
  if (block?.type === 'thinking' && typeof block.thinking === 'string') {
    return { type: 'reasoning', text: block.thinking, ...(typeof block.signature === 'string' ? { signature: block.signature } : {}) }
  }
  if (block?.type === 'redacted_thinking') return { type: 'opaque', item: { ...(block as unknown as JsonObject) } }
  return undefined
}

interface Block {
  /** The event's content-block `index`. */
  readonly index: number
  /** JSON pointer used in issues: `/content/<index>`, or the start event of a block that reused an index. */
  readonly pointer: string
  readonly block: AnthropicContentBlockWire
  readonly parts: string[]
  thinking: string
  signature: string
  text: string
  /** Whether its `content_block_stop` arrived. */
  stopped?: boolean
}

/**
 * Accumulates a Messages stream by content-block `index`. Without a `stop_reason`
 * (`message_delta`) the stream counts as cut.
 *
 * No block replaces another and no delta is glued to the wrong block; each of these is an issue:
 * - `content_block_start` at an index that already holds a block: both are kept, in arrival
 *   order, and later deltas at that index go to the new one (`content_block_start at index 0,
 *   which already holds tool_use block "toolu_a"; both are kept, later deltas at index 0 go to
 *   the new block`);
 * - `input_json_delta` for a block that is not a `tool_use` (ignored), or that never started.
 */
export class AnthropicStreamAccumulator {
  readonly #options: ParseOptions
  /** Blocks in arrival order. */
  readonly #blocks: Block[] = []
  /** The block each index currently holds. */
  readonly #current = new Map<number, Block>()
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
        const index = typeof event.index === 'number' ? event.index : Math.max(-1, ...this.#current.keys()) + 1
        if (!block) return
        const held = this.#current.get(index)
        if (held) {
          const what = `${held.block.type} block${typeof held.block.id === 'string' ? ` ${quoteText(held.block.id)}` : ''}`
          this.#issues.push({ pointer: `/events/${n}`, message: `content_block_start at index ${index}, which already holds ${what}; both are kept, later deltas at index ${index} go to the new block` })
        }
        const entry: Block = {
          index,
          pointer: held ? `/events/${n}/content_block` : `/content/${index}`,
          block,
          parts: [],
          text: typeof block.text === 'string' ? block.text : '',
          thinking: typeof block.thinking === 'string' ? block.thinking : '',
          signature: typeof block.signature === 'string' ? block.signature : '',
        }
        this.#blocks.push(entry)
        this.#current.set(index, entry)
        if (block.type === 'text' && typeof block.text === 'string') this.#text += block.text
        return
      }
      case 'content_block_delta': {
        const delta = event.delta
        const block = typeof event.index === 'number' ? this.#current.get(event.index) : undefined
        if (delta?.type === 'text_delta' && typeof delta.text === 'string') {
          this.#text += delta.text
          if (block) block.text += delta.text
          return
        }
        if (delta?.type === 'thinking_delta' && typeof delta.thinking === 'string') {
          if (block) block.thinking += delta.thinking
          return
        }
        if (delta?.type === 'signature_delta' && typeof delta.signature === 'string') {
          if (block) block.signature += delta.signature
          return
        }
        if (delta?.type !== 'input_json_delta' || typeof delta.partial_json !== 'string') return
        if (!block) {
          this.#issues.push({ pointer: `/events/${n}`, message: 'input_json_delta for a block that never started; ignored' })
          return
        }
        if (block.block.type !== 'tool_use') {
          this.#issues.push({ pointer: `/events/${n}`, message: `input_json_delta for the ${block.block.type} block at index ${block.index}; ignored` })
          return
        }
        block.parts.push(delta.partial_json)
        return
      }
      case 'content_block_stop': {
        const block = typeof event.index === 'number' ? this.#current.get(event.index) : undefined
        if (block) block.stopped = true
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

  /**
   * How many leading `tool_use` blocks (in the order {@link result} lists the calls) have
   * arguments that can no longer change: those whose `content_block_stop` arrived. Used by
   * `executeToolStream` to start a call while the model still streams the rest.
   */
  readyCalls(): number {
    const calls = [...this.#blocks].sort((a, b) => a.index - b.index).filter((b) => b.block.type === 'tool_use')
    let n = 0
    while (n < calls.length && (calls[n] as Block).stopped === true) n++
    return n
  }

  /** The parse result for everything pushed so far. */
  result(): ParsedToolCalls {
    const issues = [...this.#issues]
    // By index (a stable sort: a block that reused an index follows the earlier one).
    const blocks = [...this.#blocks].sort((a, b) => a.index - b.index)
    const last = blocks[blocks.length - 1]
    const calls: PendingCall[] = []
    const parts: DraftPart[] = []
    let reasoning = ''
    for (const entry of blocks) {
      const { block } = entry
      if (block.type === 'text' && entry.text !== '') parts.push({ type: 'text', text: entry.text })
      if (block.type === 'thinking') {
        reasoning += entry.thinking
        parts.push({ type: 'reasoning', text: entry.thinking, ...(entry.signature !== '' ? { signature: entry.signature } : {}) })
      }
      if (block.type === 'redacted_thinking') parts.push({ type: 'opaque', item: { ...(block as unknown as JsonObject) } })
      if (block.type !== 'tool_use') continue
      const joined = entry.parts.join('')
      const args: string | JsonValue = joined === '' ? ((block.input ?? {}) as JsonValue) : joined
      parts.push({ type: 'call', index: calls.length })
      calls.push({ ...identify(block, entry.pointer, issues), arguments: args, lastAtLimit: entry === last })
    }
    const finish: FinishInfo = this.#stop === undefined ? { kind: 'missing' } : anthropicFinish(this.#stop)
    return finalizeAnthropic(this.#options, calls, this.#text, reasoning, parts, finish, issues)
  }
}

/** Parses a whole Messages stream (see {@link AnthropicStreamAccumulator}). */
export function parseAnthropicStream(events: Iterable<AnthropicStreamEventWire>, options: ParseOptions = {}): ParsedToolCalls {
  const accumulator = new AnthropicStreamAccumulator(options)
  for (const event of events) accumulator.push(event)
  return accumulator.result()
}

function identify(block: { id?: unknown; name?: unknown }, pointer: string, issues: ParseIssue[]): { id: unknown; idPointer: string; wireName: string } {
  if (typeof block.name !== 'string' || block.name === '') issues.push({ pointer: `${pointer}/name`, message: 'missing tool name' })
  return { id: block.id, idPointer: `${pointer}/id`, wireName: typeof block.name === 'string' ? block.name : '' }
}
