/**
 * OpenAI Chat Completions emissions → raw batch: complete responses and streams (deltas
 * assembled by `index`, interleaving allowed: emission E04), legacy `function_call`, argument
 * text accumulated raw and decoded once by the pipeline (bug case B16).
 * Also used for DeepSeek and OpenAI-compatible servers (`provider` option).
 */
import { quoteText, type JsonValue } from '@deepseek-ai/dsh-tools'
import { classifyArguments } from '../arguments'
import { finalizeCalls, finishFromTable, type PendingCall } from '../finalize'
import { ProviderFormatError, type FinishInfo, type FinishKind, type ParseIssue, type ParseOptions, type ParsedToolCalls } from '../types'
import type { OpenAIChatChunkWire, OpenAIChatCompletionWire, OpenAIChatMessageWire, OpenAIChatToolCallDeltaWire } from './wire'

/** Options of the Chat Completions parsers. */
export interface OpenAIChatParseOptions extends ParseOptions {
  /** Which choice to read (default 0). */
  readonly choiceIndex?: number
  /** Labels the result (default `openai-chat`). */
  readonly provider?: 'openai-chat' | 'deepseek' | 'openai-compatible'
}

/** Prefix of ids minted for calls without one (`call_0`, …). */
export const MINTED_CALL_ID_PREFIX = 'call_'

/**
 * Maps a Chat Completions `finish_reason`: `tool_calls`/`function_call` → `tool-calls`, `stop`,
 * `length`, `content_filter` → `filtered`; absent → `other`.
 */
export function openAIChatFinish(reason: string | null | undefined): FinishInfo {
  return finishFromTable(reason, FINISH_KINDS)
}

const FINISH_KINDS: ReadonlyMap<string, FinishKind> = new Map([
  ['tool_calls', 'tool-calls'],
  ['function_call', 'tool-calls'],
  ['stop', 'stop'],
  ['length', 'length'],
  ['content_filter', 'filtered'],
])

/**
 * Parses a complete chat completion (`choices[choiceIndex].message`).
 *
 * @throws ProviderFormatError when `choices` is not an array or the choice has no message.
 */
export function parseOpenAIChatCompletion(completion: OpenAIChatCompletionWire, options: OpenAIChatParseOptions = {}): ParsedToolCalls {
  const provider = options.provider ?? 'openai-chat'
  const choices: unknown = (completion as { choices?: unknown } | null)?.choices
  if (!Array.isArray(choices)) throw new ProviderFormatError(provider, '/choices', 'an array of choices', completion)
  const wanted = options.choiceIndex ?? 0
  const position = choices.findIndex((c: { index?: unknown }, i) => (typeof c?.index === 'number' ? c.index : i) === wanted)
  const choice = choices[position] as OpenAIChatCompletionWire['choices'][number] | undefined
  if (!choice || typeof choice.message !== 'object' || choice.message === null) {
    throw new ProviderFormatError(provider, `/choices/${position < 0 ? wanted : position}/message`, 'an assistant message', choice?.message)
  }
  return parseOpenAIChatMessage(choice.message, choice.finish_reason, options, `/choices/${position}/message`)
}

/**
 * Parses one assistant message with its `finish_reason` (absent → `other`).
 * A tool call without an id gets `call_<n>`; a missing name or arguments is reported in `issues`.
 *
 * @param pointer where the message sits in the response, prefixed to `issues` pointers.
 */
export function parseOpenAIChatMessage(
  message: OpenAIChatMessageWire,
  finishReason: string | null | undefined,
  options: OpenAIChatParseOptions = {},
  pointer = '',
): ParsedToolCalls {
  const issues: ParseIssue[] = []
  const calls: PendingCall[] = []
  const toolCalls = Array.isArray(message.tool_calls) ? message.tool_calls : []
  toolCalls.forEach((call, i) => {
    const p = `${pointer}/tool_calls/${i}`
    const name = call?.function?.name
    if (typeof name !== 'string' || name === '') issues.push({ pointer: `${p}/function/name`, message: 'missing function name' })
    const args = argumentsOf(call?.function?.arguments, `${p}/function/arguments`, issues)
    calls.push({ id: call?.id, idPointer: `${p}/id`, wireName: typeof name === 'string' ? name : '', arguments: args, lastAtLimit: i === toolCalls.length - 1 })
  })
  if (toolCalls.length === 0 && message.function_call && typeof message.function_call === 'object') {
    const legacy = message.function_call
    calls.push({
      id: undefined,
      idPointer: `${pointer}/function_call`,
      missingNote: 'legacy function_call (no call id); minted one',
      wireName: typeof legacy.name === 'string' ? legacy.name : '',
      arguments: argumentsOf(legacy.arguments, `${pointer}/function_call/arguments`, issues),
      lastAtLimit: true,
    })
  }
  return finalizeChat(options, calls, textOf(message.content), reasoningOf(message), openAIChatFinish(finishReason), issues)
}

/** The shared tail of the Chat Completions parsers. */
function finalizeChat(options: OpenAIChatParseOptions, calls: PendingCall[], text: string, reasoning: string, finish: FinishInfo, issues: ParseIssue[]): ParsedToolCalls {
  return finalizeCalls({
    provider: options.provider ?? 'openai-chat',
    calls,
    text,
    reasoning,
    finish,
    finishField: 'finish_reason',
    idField: 'call id',
    mintPrefix: MINTED_CALL_ID_PREFIX,
    issues,
    options,
  })
}

/** One call being assembled from stream fragments. */
interface ChatStreamEntry {
  /** The fragment `index` (negative: keyed by id, for fragments without an index). */
  readonly key: number
  /** JSON pointer used in issues: `/tool_calls/<index>`, or the starting fragment for a later call at a reused index. */
  readonly pointer: string
  id: string
  name: string
  readonly parts: string[]
  object?: JsonValue
  /** Whether `readyCalls` found its arguments complete JSON (forgotten when more of them arrives). */
  settled?: boolean
}

/**
 * Accumulates a Chat Completions stream. Fragments are keyed by `index` (then by `id`), so
 * interleaved calls assemble correctly; argument text is concatenated raw and never decoded per
 * chunk, so a surrogate pair or multi-byte character split across chunks survives
 * (bug case B16: elsewhere an emoji split across stream chunks was corrupted).
 * A stream that ends without a `finish_reason` counts as cut.
 *
 * A call is never glued to another one, and no fragment is dropped. At an index already in use:
 * - a fragment with a different `id` starts a new call (a server that reuses `index` for every
 *   call); later fragments without an id continue the newest call at that index, and one that
 *   repeats an earlier call's id goes back to that call. Reported as an issue: `index 0 already
 *   holds call "call_x"; the fragment with id "call_y" starts a new call` (pointer of the
 *   fragment, `/chunks/<n>/tool_calls/<i>`; the new call's own pointer is that fragment's too);
 * - a fragment with a different `name` after the call's argument text began starts a new call too:
 *   `call "call_x" at index 0 is named "lookup", but a fragment names "search" after its arguments
 *   began; the fragment starts a new call`;
 * - a different name before any argument text is a name sent in pieces (`edit_ex` + `isting_file`),
 *   joined, or a name sent again whole (`look` then `lookup`), replaced; either is reported
 *   (`the name of call "call_x" at index 0 arrived in pieces; joined as "edit_existing_file"`).
 *   A name repeated unchanged in every fragment (some servers do) is not an issue;
 * - a fragment whose argument text starts another JSON value (`{`, `[`) when the call's arguments
 *   are already complete JSON starts a new call (joined, the text could only be malformed):
 *   `call "call_x" at index 0 already has complete arguments; the fragment starting another JSON
 *   value starts a new call` — a repeated id then becomes `<id>_2`.
 */
export class OpenAIChatStreamAccumulator {
  readonly #options: OpenAIChatParseOptions
  /** Every call in order of its first fragment. */
  readonly #entries: ChatStreamEntry[] = []
  /** The call each key (index) currently continues. */
  readonly #current = new Map<number, ChatStreamEntry>()
  readonly #issues: ParseIssue[] = []
  #text = ''
  #reasoning = ''
  #finish: string | undefined
  #chunks = 0
  #lastKey: number | undefined

  constructor(options: OpenAIChatParseOptions = {}) {
    this.#options = options
  }

  /** Adds one parsed chunk (the JSON of one SSE `data:` line). */
  push(chunk: OpenAIChatChunkWire): void {
    const n = this.#chunks++
    const wanted = this.#options.choiceIndex ?? 0
    for (const choice of Array.isArray(chunk?.choices) ? chunk.choices : []) {
      if ((typeof choice?.index === 'number' ? choice.index : 0) !== wanted) continue
      const delta = choice.delta
      if (typeof delta?.content === 'string') this.#text += delta.content
      const reasoning = delta?.reasoning_content ?? delta?.reasoning
      if (typeof reasoning === 'string') this.#reasoning += reasoning
      const fragments: readonly OpenAIChatToolCallDeltaWire[] = Array.isArray(delta?.tool_calls) ? delta.tool_calls : []
      fragments.forEach((fragment, j) => this.#add(fragment, `/chunks/${n}/tool_calls/${j}`, n))
      if (typeof choice.finish_reason === 'string') this.#finish = choice.finish_reason
    }
  }

  #add(fragment: OpenAIChatToolCallDeltaWire, pointer: string, chunk: number): void {
    const key = this.#keyOf(fragment, chunk)
    const id = typeof fragment?.id === 'string' && fragment.id !== '' ? fragment.id : undefined
    const fn = fragment?.function
    const name = typeof fn?.name === 'string' && fn.name !== '' ? fn.name : undefined
    let entry = this.#current.get(key)
    if (entry && id !== undefined && entry.id !== '' && id !== entry.id) {
      const earlier = this.#entries.find((e) => e.key === key && e.id === id)
      if (!earlier) this.#issues.push({ pointer, message: `index ${key} already holds call ${quoteText(entry.id)}; the fragment with id ${quoteText(id)} starts a new call` })
      entry = earlier
    }
    if (entry && name !== undefined && entry.name !== '' && name !== entry.name) {
      if (entry.parts.some((part) => part !== '') || entry.object !== undefined) {
        this.#issues.push({
          pointer,
          message: `call ${entry.id === '' ? `at index ${key}` : `${quoteText(entry.id)} at index ${key}`} is named ${quoteText(entry.name)}, but a fragment names ${quoteText(name)} after its arguments began; the fragment starts a new call`,
        })
        entry = undefined
      } else {
        entry.name = name.startsWith(entry.name) ? name : entry.name + name
        this.#issues.push({ pointer, message: `the name of call ${entry.id === '' ? `at index ${key}` : `${quoteText(entry.id)} at index ${key}`} arrived in pieces; joined as ${quoteText(entry.name)}` })
      }
    }
    if (entry && typeof fn?.arguments === 'string' && /^\s*[{[]/.test(fn.arguments) && entry.parts.length > 0 && classifyArguments(entry.parts.join('')) === 'complete') {
      // Joined, the text could only be malformed: a server that repeats id and index for a second call.
      this.#issues.push({
        pointer,
        message: `call ${entry.id === '' ? `at index ${key}` : `${quoteText(entry.id)} at index ${key}`} already has complete arguments; the fragment starting another JSON value starts a new call`,
      })
      entry = undefined
    }
    if (!entry) {
      const first = !this.#entries.some((e) => e.key === key)
      entry = { key, pointer: first ? `/tool_calls/${key}` : pointer, id: '', name: '', parts: [] }
      this.#entries.push(entry)
    }
    this.#current.set(key, entry)
    this.#lastKey = key
    if (entry.id === '' && id !== undefined) entry.id = id
    if (entry.name === '' && name !== undefined) entry.name = name
    if (typeof fn?.arguments === 'string') entry.parts.push(fn.arguments)
    else if (fn?.arguments !== undefined && fn.arguments !== null) entry.object = fn.arguments
    if (fn?.arguments !== undefined && fn.arguments !== '') entry.settled = undefined
  }

  #keyOf(fragment: { index?: number; id?: string | null }, chunk: number): number {
    if (typeof fragment?.index === 'number') return fragment.index
    if (typeof fragment?.id === 'string' && fragment.id !== '') {
      for (const entry of this.#entries) if (entry.id === fragment.id) return entry.key
      const key = -1 - this.#entries.length
      this.#issues.push({ pointer: `/chunks/${chunk}/tool_calls`, message: `fragment without index; keyed by id ${quoteText(fragment.id)}` })
      return key
    }
    this.#issues.push({ pointer: `/chunks/${chunk}/tool_calls`, message: 'fragment without index or id; appended to the most recent call' })
    return this.#lastKey ?? 0
  }

  /**
   * How many leading calls (in the order {@link result} lists them) have arguments that can no
   * longer change: a call is settled once a later call began (the next `index`, or a new call at
   * its index) and its argument text is complete JSON (or it came as an object); after a
   * `finish_reason` every call is. Used by `executeToolStream` to start a call while the model
   * still streams the rest; a call still being written never counts.
   */
  readyCalls(): number {
    const entries = this.#entries.every((e) => e.key >= 0) ? [...this.#entries].sort((a, b) => a.key - b.key) : this.#entries
    const last = this.#finish === undefined ? entries.length - 1 : entries.length
    let n = 0
    while (n < last) {
      const entry = entries[n] as ChatStreamEntry
      // Judged once per call (its text is joined again only if more of it arrived since).
      entry.settled ??= entry.parts.length === 0 ? entry.object !== undefined : classifyArguments(entry.parts.join('')) === 'complete'
      if (!entry.settled) break
      n++
    }
    return n
  }

  /** The parse result for everything pushed so far. */
  result(): ParsedToolCalls {
    const issues = [...this.#issues]
    // By index (a stable sort: calls that reused an index follow the earlier ones); keyed by id: in arrival order.
    const entries = this.#entries.every((e) => e.key >= 0) ? [...this.#entries].sort((a, b) => a.key - b.key) : [...this.#entries]
    const calls: PendingCall[] = entries.map((entry, i) => {
      if (entry.name === '') issues.push({ pointer: `${entry.pointer}/function/name`, message: 'missing function name' })
      const args: string | JsonValue = entry.parts.length === 0 && entry.object !== undefined ? entry.object : entry.parts.join('')
      return { id: entry.id, idPointer: `${entry.pointer}/id`, wireName: entry.name, arguments: args, lastAtLimit: i === entries.length - 1 }
    })
    const finish: FinishInfo = this.#finish === undefined ? { kind: 'missing' } : openAIChatFinish(this.#finish)
    return finalizeChat(this.#options, calls, this.#text, this.#reasoning, finish, issues)
  }
}

/** Parses a whole Chat Completions stream (see {@link OpenAIChatStreamAccumulator}). */
export function parseOpenAIChatStream(chunks: Iterable<OpenAIChatChunkWire>, options: OpenAIChatParseOptions = {}): ParsedToolCalls {
  const accumulator = new OpenAIChatStreamAccumulator(options)
  for (const chunk of chunks) accumulator.push(chunk)
  return accumulator.result()
}

/** The arguments as sent (a string, or an object from some servers); missing ones become `""`, reported. */
function argumentsOf(raw: unknown, pointer: string, issues: ParseIssue[]): string | JsonValue {
  if (raw !== undefined && raw !== null) return raw as string | JsonValue
  issues.push({ pointer, message: 'missing arguments; passed as ""' })
  return ''
}

/** `reasoning_content` (DeepSeek, vLLM, SGLang) or `reasoning` (OpenRouter, Ollama, llama.cpp). */
function reasoningOf(message: OpenAIChatMessageWire): string {
  const value = message.reasoning_content ?? message.reasoning
  return typeof value === 'string' ? value : ''
}

function textOf(content: OpenAIChatMessageWire['content']): string {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) return content.map((part) => (typeof part?.text === 'string' ? part.text : '')).join('')
  return ''
}
