/**
 * Gemini emissions → raw batch: `functionCall` parts (arguments are the `args` object as sent).
 * Gemini usually sends no call ids, so ids are minted deterministically in call order
 * (`gemini_call_0`, `gemini_call_1`, …; emission E26); an id Gemini does send is kept.
 */
import { quoteText, type JsonObject, type JsonValue } from '@deepseek-ai/dsh-tools'
import { isObject } from '../schema/json'
import { finalizeCalls, type DraftPart, type PendingCall } from '../finalize'
import type { FinishInfo, ParseIssue, ParseOptions, ParsedToolCalls } from '../types'
import type { GeminiPartWire, GeminiResponseWire } from './wire'

/** Prefix of minted Gemini call ids. */
export const GEMINI_CALL_ID_PREFIX = 'gemini_call_'

/** Options of the Gemini parsers. */
export interface GeminiParseOptions extends ParseOptions {
  /** Prefix of minted ids (default `gemini_call_`); make it unique per turn if ids must be unique across a conversation. */
  readonly idPrefix?: string
  /** Which candidate to read (default 0). */
  readonly candidateIndex?: number
}

const FILTERED = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'LANGUAGE'])
const MALFORMED = new Set(['MALFORMED_FUNCTION_CALL', 'UNEXPECTED_TOOL_CALL', 'TOO_MANY_TOOL_CALLS'])

/**
 * Maps a `finishReason`: `STOP` → `tool-calls` when the response called functions, else
 * `stop`; `MAX_TOKENS` → `length`; safety-style reasons → `filtered`;
 * `MALFORMED_FUNCTION_CALL`/`UNEXPECTED_TOOL_CALL`/`TOO_MANY_TOOL_CALLS` → `malformed`; others → `other`.
 */
export function geminiFinish(reason: string | undefined, hasCalls: boolean): FinishInfo {
  if (typeof reason !== 'string') return { kind: 'other' }
  if (reason === 'STOP') return { kind: hasCalls ? 'tool-calls' : 'stop', raw: reason }
  if (reason === 'MAX_TOKENS') return { kind: 'length', raw: reason }
  if (FILTERED.has(reason)) return { kind: 'filtered', raw: reason }
  if (MALFORMED.has(reason)) return { kind: 'malformed', raw: reason }
  return { kind: 'other', raw: reason }
}

/** Parses a complete `generateContent` response. A blocked prompt gives no calls and `filtered`. */
export function parseGeminiResponse(response: GeminiResponseWire, options: GeminiParseOptions = {}): ParsedToolCalls {
  const accumulator = new GeminiStreamAccumulator(options)
  accumulator.push(response)
  return accumulator.result(false)
}

/**
 * Accumulates a `streamGenerateContent` stream: parts are appended in order across chunks, text
 * concatenated, function calls collected whole. A stream whose last chunk has no
 * `finishReason` counts as cut.
 */
export class GeminiStreamAccumulator {
  readonly #options: GeminiParseOptions
  readonly #parts: GeminiPartWire[] = []
  readonly #issues: ParseIssue[] = []
  #finish: string | undefined
  #finishMessage: string | undefined
  #blocked: string | undefined
  /** Calls seen (a `willContinue` chain counts once), those complete, and whether a chain is open. */
  #calls = 0
  #ready = 0
  #open = false

  constructor(options: GeminiParseOptions = {}) {
    this.#options = options
  }

  /** Adds one response chunk. */
  push(chunk: GeminiResponseWire): void {
    if (typeof chunk?.promptFeedback?.blockReason === 'string') this.#blocked = chunk.promptFeedback.blockReason
    const wanted = this.#options.candidateIndex ?? 0
    const candidates = Array.isArray(chunk?.candidates) ? chunk.candidates : []
    const candidate = candidates.find((c, i) => (typeof c?.index === 'number' ? c.index : i) === wanted)
    if (!candidate) return
    for (const part of Array.isArray(candidate.content?.parts) ? candidate.content.parts : []) {
      this.#parts.push(part)
      this.#count(part)
    }
    if (typeof candidate.finishReason === 'string') this.#finish = candidate.finishReason
    if (typeof candidate.finishMessage === 'string') this.#finishMessage = candidate.finishMessage
  }

  #count(part: GeminiPartWire): void {
    const call = part?.functionCall
    if (!call || typeof call !== 'object') return
    if (!this.#open) this.#calls++
    this.#open = call.willContinue === true
    if (!this.#open) this.#ready = this.#calls
  }

  /**
   * How many leading calls (in the order {@link result} lists them) have arguments that can no
   * longer change: each `functionCall` part carries whole arguments, so every call but one still
   * announcing more parts (`willContinue: true`). Used by `executeToolStream` to start a call
   * while the model still streams the rest.
   */
  readyCalls(): number {
    return this.#ready
  }

  /**
   * The parse result for everything pushed so far.
   * @param streamed whether a missing finish reason means the stream was cut (default true).
   */
  result(streamed = true): ParsedToolCalls {
    const prefix = this.#options.idPrefix ?? GEMINI_CALL_ID_PREFIX
    const issues = [...this.#issues]
    const calls: PendingCall[] = []
    const parts: DraftPart[] = []
    let text = ''
    let reasoning = ''
    // A call streamed in parts (Vertex AI `streamFunctionCallArguments`): `willContinue: true`
    // on a functionCall means the next functionCall part continues it with `partialArgs`.
    let open: { readonly index: number; readonly args: JsonObject; readonly strings: Set<string> } | undefined
    this.#parts.forEach((part, i) => {
      const signature = typeof part?.thoughtSignature === 'string' && part.thoughtSignature !== '' ? part.thoughtSignature : undefined
      if (typeof part?.text === 'string') {
        const kind = part.thought === true ? ('reasoning' as const) : ('text' as const)
        if (kind === 'text') text += part.text
        else reasoning += part.text
        appendText(parts, kind, part.text, signature)
      }
      const call = part?.functionCall
      if (!call || typeof call !== 'object') return
      const pointer = `/parts/${i}/functionCall`
      const name = typeof call.name === 'string' && call.name !== '' ? call.name : undefined
      const id = typeof call.id === 'string' && call.id !== '' ? call.id : undefined
      if (open !== undefined) {
        const held = calls[open.index] as PendingCall
        const clash = (name !== undefined && held.wireName !== '' && name !== held.wireName) || (id !== undefined && typeof held.id === 'string' && id !== held.id)
        if (clash) {
          issues.push({
            pointer,
            message: `functionCall ${quoteText(held.wireName)} announced more parts (willContinue), but the next one is ${quoteText(name ?? held.wireName)}${id !== undefined ? ` with id ${quoteText(id)}` : ''}; it starts a new call and the earlier one is incomplete`,
          })
          calls[open.index] = { ...held, incomplete: true }
          open = undefined
        } else {
          applyPartialArgs(open.args, open.strings, call.partialArgs, pointer, issues)
          if (held.wireName === '' && name !== undefined) calls[open.index] = { ...held, wireName: name }
          if (held.id === undefined && id !== undefined) calls[open.index] = { ...(calls[open.index] as PendingCall), id }
          if (call.willContinue !== true) open = undefined
          return
        }
      }
      const args = (call.args === undefined || call.args === null ? {} : call.args) as JsonValue
      parts.push({ type: 'call', index: calls.length })
      calls.push({ id: call.id, idPointer: `${pointer}/id`, wireName: name ?? '', arguments: args, ...(signature ? { signature } : {}) })
      if (call.willContinue === true || call.partialArgs !== undefined) {
        const own: JsonObject = isObject(args) ? structuredClone(args) : {}
        const strings = new Set<string>()
        applyPartialArgs(own, strings, call.partialArgs, pointer, issues)
        calls[calls.length - 1] = { ...(calls[calls.length - 1] as PendingCall), arguments: own }
        open = call.willContinue === true ? { index: calls.length - 1, args: own, strings } : undefined
      }
    })
    if (open !== undefined) {
      const held = calls[open.index] as PendingCall
      issues.push({ pointer: held.idPointer.replace(/\/id$/, ''), message: `functionCall ${quoteText(held.wireName)} announced more parts (willContinue) that never came; it is incomplete` })
      calls[open.index] = { ...held, incomplete: true }
    }
    for (const call of calls) if (call.wireName === '') issues.push({ pointer: call.idPointer.replace(/\/id$/, '/name'), message: 'missing function name' })
    if (this.#finishMessage !== undefined && this.#finish !== undefined && MALFORMED.has(this.#finish)) {
      issues.push({ pointer: '/candidates/0/finishMessage', message: this.#finishMessage })
    }
    let finish: FinishInfo
    if (this.#blocked !== undefined && this.#parts.length === 0) finish = { kind: 'filtered', raw: this.#blocked }
    else if (this.#finish === undefined) finish = streamed ? { kind: 'missing' } : { kind: 'other' }
    else finish = geminiFinish(this.#finish, calls.length > 0)
    return finalizeCalls({
      provider: 'gemini',
      calls,
      text,
      reasoning,
      parts,
      finish,
      finishField: 'finishReason',
      idField: 'functionCall id',
      mintPrefix: prefix,
      duplicates: 'mint',
      reportMissing: false,
      issues,
      options: this.#options,
    })
  }
}

/**
 * Appends streamed text to the turn: consecutive fragments of the same kind join one part; a
 * `thoughtSignature` stays on the part it came with (a part that already has one is not extended).
 */
function appendText(parts: DraftPart[], kind: 'text' | 'reasoning', text: string, signature: string | undefined): void {
  const last = parts[parts.length - 1]
  if (last !== undefined && last.type === kind && last.signature === undefined) {
    parts[parts.length - 1] = { type: kind, text: last.text + text, ...(signature ? { signature } : {}) }
    return
  }
  if (text === '' && signature === undefined) return
  parts.push({ type: kind, text, ...(signature ? { signature } : {}) })
}

/** Parses a whole `streamGenerateContent` stream (see {@link GeminiStreamAccumulator}). */
export function parseGeminiStream(chunks: Iterable<GeminiResponseWire>, options: GeminiParseOptions = {}): ParsedToolCalls {
  const accumulator = new GeminiStreamAccumulator(options)
  for (const chunk of chunks) accumulator.push(chunk)
  return accumulator.result()
}

/**
 * Applies Vertex AI `partialArgs` (`[{ jsonPath: "$.a.b[0]", stringValue | numberValue |
 * boolValue | nullValue, willContinue }]`) to `args`. A string whose earlier piece said
 * `willContinue` is appended to; a path this parser cannot read is an issue, its value left out.
 */
function applyPartialArgs(args: JsonObject, strings: Set<string>, partials: unknown, pointer: string, issues: ParseIssue[]): void {
  if (!Array.isArray(partials)) return
  partials.forEach((raw: unknown, k) => {
    const partial = (isObject(raw as JsonValue) ? raw : {}) as { jsonPath?: unknown; stringValue?: unknown; numberValue?: unknown; boolValue?: unknown; nullValue?: unknown; willContinue?: unknown }
    const path = typeof partial.jsonPath === 'string' ? parseJsonPath(partial.jsonPath) : undefined
    if (path === undefined || path.length === 0) {
      issues.push({ pointer: `${pointer}/partialArgs/${k}/jsonPath`, message: `partial argument path ${quoteText(String(partial.jsonPath))} is not a plain JSON path ($.name, $.a[0].b); its value is left out` })
      return
    }
    const key = JSON.stringify(path)
    let value: JsonValue
    if (typeof partial.stringValue === 'string') value = partial.stringValue
    else if (typeof partial.numberValue === 'number') value = partial.numberValue
    else if (typeof partial.boolValue === 'boolean') value = partial.boolValue
    else if (partial.nullValue !== undefined) value = null
    else return
    // Own properties only, defined rather than assigned: `$.__proto__.x` sets a key named
    // `__proto__`, never a prototype; an array index may append but not leave a hole.
    if (skipsArrayPositions(args, path)) {
      issues.push({ pointer: `${pointer}/partialArgs/${k}/jsonPath`, message: `partial argument path ${quoteText(partial.jsonPath as string)} skips array positions; its value is left out` })
      return
    }
    let node: JsonObject | JsonValue[] = args
    for (const [j, segment] of path.entries()) {
      const holder = node as Record<string | number, JsonValue>
      const own = Object.hasOwn(holder, segment) ? holder[segment] : undefined
      if (j === path.length - 1) {
        define(holder, segment, typeof value === 'string' && strings.has(key) && typeof own === 'string' ? own + value : value)
        break
      }
      let next = own
      if (next === undefined || next === null || typeof next !== 'object') {
        next = typeof path[j + 1] === 'number' ? [] : {}
        define(holder, segment, next)
      }
      node = next as JsonObject | JsonValue[]
    }
    if (typeof value === 'string' && partial.willContinue === true) strings.add(key)
    else strings.delete(key)
  })
}

/** Whether writing at `path` would index an array past its end (an array made on the way has length 0). */
function skipsArrayPositions(args: JsonObject, path: readonly (string | number)[]): boolean {
  let node: JsonValue | undefined = args
  for (const segment of path) {
    const length = Array.isArray(node) ? node.length : 0
    if (typeof segment === 'number' && segment > length) return true
    node = node !== null && typeof node === 'object' && Object.hasOwn(node, segment) ? (node as Record<string | number, JsonValue>)[segment] : undefined
  }
  return false
}

function define(holder: Record<string | number, JsonValue>, key: string | number, value: JsonValue): void {
  Object.defineProperty(holder, key, { value, writable: true, enumerable: true, configurable: true })
}

/** `$.a.b[0]['c d']` → `['a', 'b', 0, 'c d']`; `undefined` for anything else. */
function parseJsonPath(path: string): (string | number)[] | undefined {
  if (!path.startsWith('$')) return undefined
  const out: (string | number)[] = []
  const pattern = /\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\]/y
  let at = 1
  while (at < path.length) {
    pattern.lastIndex = at
    const m = pattern.exec(path)
    if (!m) return undefined
    if (m[1] !== undefined) out.push(m[1])
    else if (m[2] !== undefined) out.push(Number(m[2]))
    else out.push((m[3] ?? m[4] ?? '').replace(/\\(.)/g, '$1'))
    at = pattern.lastIndex
  }
  return out
}
