/**
 * Tool calls recovered from assistant text. Models served through OpenAI-compatible endpoints
 * sometimes write their calls into the text channel (emission E19: the server's tool parser did
 * not run or did not match). Three families are parsed when well-formed:
 *
 * - DeepSeek DSML (V3.2+): `<｜DSML｜function_calls>` (or `tool_calls`) holding
 *   `<｜DSML｜invoke name="f">` blocks of `<｜DSML｜parameter name="p" string="true|false">v</｜DSML｜parameter>`
 *   (or one JSON object); the bars may be ASCII `|`, fullwidth U+FF5C or U+2016.
 * - Hermes / Qwen: `<tool_call>{"name": "f", "arguments": {…}}</tool_call>`, one call per block.
 * - gpt-oss harmony fragments: `… to=functions.f … <|message|>{…}` ended by `<|call|>`, `<|end|>`,
 *   another `<|start|>` or the end of the text.
 *
 * Anything else that {@link detectLeakedMarkup} finds in what is left is an error: the whole
 * response is then `malformed-markup` and nothing runs.
 */
import { isObject } from './schema/json'
import { classifyArguments, parseArgumentsText } from './arguments'
import { detectLeakedMarkup } from './markup'
import { quoteText, type JsonObject, type JsonValue } from '@deepseek-ai/dsh-tools'
import type { MarkupError, RecoveredMarker } from './types'

/** A call found in the text, before ids and names are assigned. */
export interface TextCall {
  /** The family it was written in (`dsml`, `hermes`, `harmony`). */
  readonly marker: RecoveredMarker
  /** Start of the call's span in the text, in UTF-16 code units. */
  readonly offset: number
  /** End of the span (exclusive), in UTF-16 code units. */
  readonly end: number
  /** The tool name as the model wrote it (mapped to a registered name later). */
  readonly name: string
  /** The arguments object (DSML parameters decoded: `string="false"` values parsed as JSON). */
  readonly arguments: JsonObject
}

/** What {@link recoverTextCalls} found: calls, errors, and the text without the recovered spans. */
export interface TextRecovery {
  readonly calls: readonly TextCall[]
  readonly errors: readonly MarkupError[]
  /** The text with every recovered span removed, trimmed. */
  readonly prose: string
}

const BAR = '[|\\uFF5C\\u2016]'
const DSML = `<\\s*${BAR}\\s*DSML\\s*${BAR}\\s*`
const DSML_CLOSE = `<\\s*/\\s*${BAR}\\s*DSML\\s*${BAR}\\s*`
const DSML_BLOCK = new RegExp(`${DSML}(function_calls|tool_calls)\\s*>([\\s\\S]*?)${DSML_CLOSE}\\1\\s*>`, 'g')
const DSML_INVOKE = new RegExp(`^\\s*${DSML}invoke\\s+name\\s*=\\s*"([^"]*)"\\s*>([\\s\\S]*?)${DSML_CLOSE}invoke\\s*>`)
const DSML_PARAMETER = new RegExp(`^\\s*${DSML}parameter\\s+name\\s*=\\s*"([^"]*)"(?:\\s+string\\s*=\\s*"(true|false)")?\\s*>([\\s\\S]*?)${DSML_CLOSE}parameter\\s*>`)
const HERMES_BLOCK = /<tool_call>([\s\S]*?)<\/tool_call>/g
const HARMONY_CALL = /(?:<\|start\|>\s*assistant\s*)?(?:<\|channel\|>\s*\w+\s*)?\bto=functions\.([A-Za-z0-9_.:-]+)(?:[^<]|<\|(?:channel|constrain)\|>)*?<\|message\|>([\s\S]*?)(<\|call\|>|<\|end\|>|<\|return\|>|(?=<\|start\|>)|$)/g

/**
 * Parses every well-formed call of the three families above out of `text`, in text order.
 * A block that looks like one of them but does not parse (bad JSON, a missing name, an
 * unclosed tag), and any other dialect {@link detectLeakedMarkup} finds in the remaining text,
 * becomes a {@link MarkupError} in `errors` instead of a call. Pure; never throws.
 */
export function recoverTextCalls(text: string): TextRecovery {
  const calls: TextCall[] = []
  const errors: MarkupError[] = []
  const spans: [number, number][] = []

  for (const match of text.matchAll(DSML_BLOCK)) {
    const offset = match.index
    const end = offset + match[0].length
    spans.push([offset, end])
    const parsed = parseDsmlBlock(match[2] as string)
    if (typeof parsed === 'string') errors.push({ marker: 'dsml', offset, message: `DSML tool-call block: ${parsed}` })
    else for (const call of parsed) calls.push({ marker: 'dsml', offset, end, ...call })
  }
  for (const match of text.matchAll(HERMES_BLOCK)) {
    const offset = match.index
    const end = offset + match[0].length
    spans.push([offset, end])
    const parsed = parseHermesBody(match[1] as string)
    if (typeof parsed === 'string') errors.push({ marker: 'hermes', offset, message: `<tool_call> block: ${parsed}` })
    else calls.push({ marker: 'hermes', offset, end, ...parsed })
  }
  for (const match of text.matchAll(HARMONY_CALL)) {
    const offset = match.index
    const end = offset + match[0].length
    if (match[0] === '') continue
    spans.push([offset, end])
    const body = (match[2] as string).trim()
    const state = classifyArguments(body)
    let value: unknown
    if (state === 'complete') value = parseArgumentsText(body)
    if (state === 'empty') value = {}
    if (isObject(value as JsonValue)) calls.push({ marker: 'harmony', offset, end, name: match[1] as string, arguments: value as JsonObject })
    else errors.push({ marker: 'harmony', offset, message: `harmony call to functions.${match[1]}: the message after <|message|> is ${state === 'complete' ? 'JSON but not an object' : `not complete JSON (${state})`}` })
  }

  spans.sort((a, b) => a[0] - b[0])
  let prose = ''
  let at = 0
  for (const [start, end] of spans) {
    if (start < at) continue
    prose += text.slice(at, start)
    at = end
  }
  prose = stripHarmonyTokens(prose + text.slice(at))
  for (const leak of detectLeakedMarkup(prose)) {
    const family = leak.marker === 'dsml' || leak.marker === 'hermes' || leak.marker === 'harmony'
    errors.push({
      marker: leak.marker,
      offset: spans.length === 0 ? leak.offset : originalOffset(spans, leak.offset),
      message: family
        ? `unclosed or stray ${leak.marker} markup near ${quoteText(leak.excerpt)}`
        : `${leak.marker} tool-call markup near ${quoteText(leak.excerpt)} is not parsed from text`,
    })
  }
  calls.sort((a, b) => a.offset - b.offset)
  errors.sort((a, b) => a.offset - b.offset)
  return { calls, errors, prose: prose.trim() }
}

/** The offset in the original text of an offset in the text with `spans` removed. */
function originalOffset(spans: readonly [number, number][], offset: number): number {
  let shift = 0
  for (const [start, end] of spans) {
    if (start - shift > offset) break
    shift += end - start
  }
  return offset + shift
}

/** Harmony channel headers left around a recovered call (`<|start|>assistant<|channel|>final<|message|>`). */
function stripHarmonyTokens(prose: string): string {
  return prose.replace(/(?:<\|start\|>\s*assistant\s*)?<\|channel\|>\s*\w+\s*<\|message\|>|<\|(?:end|return|call)\|>/g, '')
}

function parseDsmlBlock(body: string): { name: string; arguments: JsonObject }[] | string {
  const calls: { name: string; arguments: JsonObject }[] = []
  let rest = body
  while (rest.trim() !== '') {
    const invoke = DSML_INVOKE.exec(rest)
    if (!invoke) return `expected an invoke element, found ${quoteText(rest.trim().slice(0, 40))}`
    const name = invoke[1] as string
    if (name === '') return 'an invoke element without a name'
    const args = parseDsmlParameters(invoke[2] as string, name)
    if (typeof args === 'string') return args
    calls.push({ name, arguments: args })
    rest = rest.slice(invoke[0].length)
  }
  return calls.length === 0 ? 'no invoke element' : calls
}

function parseDsmlParameters(body: string, tool: string): JsonObject | string {
  const trimmed = body.trim()
  if (trimmed.startsWith('{')) {
    if (classifyArguments(trimmed) !== 'complete') return `the JSON arguments of ${quoteText(tool)} are not complete JSON`
    const value = parseArgumentsText(trimmed) as JsonValue
    return isObject(value) ? value : `the JSON arguments of ${quoteText(tool)} are not an object`
  }
  const args: JsonObject = {}
  let rest = body
  while (rest.trim() !== '') {
    const parameter = DSML_PARAMETER.exec(rest)
    if (!parameter) return `in ${quoteText(tool)}: expected a parameter element, found ${quoteText(rest.trim().slice(0, 40))}`
    const [whole, name, isString, raw] = parameter as unknown as [string, string, string | undefined, string]
    if (isString === 'true') args[name] = raw
    else {
      try {
        args[name] = JSON.parse(raw) as JsonValue
      } catch {
        if (isString === 'false') return `in ${quoteText(tool)}: parameter ${quoteText(name)} is marked string="false" but ${quoteText(raw.slice(0, 40))} is not JSON`
        args[name] = raw
      }
    }
    rest = rest.slice(whole.length)
  }
  return args
}

function parseHermesBody(body: string): { name: string; arguments: JsonObject } | string {
  const trimmed = body.trim()
  const state = classifyArguments(trimmed)
  if (state !== 'complete') return `the body is not complete JSON (${state})`
  const value = parseArgumentsText(trimmed) as JsonValue
  if (!isObject(value)) return 'the body is not a JSON object'
  if (typeof value.name !== 'string' || value.name === '') return 'the body has no "name" string'
  let args: JsonValue | undefined = value.arguments ?? value.parameters
  if (typeof args === 'string') {
    if (classifyArguments(args) !== 'complete') return `the "arguments" string of ${quoteText(value.name)} is not complete JSON`
    args = parseArgumentsText(args) as JsonValue
  }
  if (args === undefined || args === null) args = {}
  if (!isObject(args)) return `the "arguments" of ${quoteText(value.name)} are not an object`
  return { name: value.name, arguments: args }
}

/**
 * The model-facing text answering a `malformed-markup` parse, for a user message after the
 * assistant turn: what was found and how to call tools instead, e.g.
 * `Your last message wrote tool calls as text, and they could not be run: <error>; … Call tools
 * through the function-calling interface (structured tool calls), not as text, and try again.`
 */
export function markupErrorMessage(parsed: { readonly markupErrors: readonly MarkupError[] }): string {
  const problems = parsed.markupErrors.map((error) => error.message).join('; ')
  return `Your last message wrote tool calls as text, and they could not be run: ${problems}. Call tools through the function-calling interface (structured tool calls), not as text, and try again.`
}
