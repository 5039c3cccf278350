/**
 * The opt-in paging tool over a {@link ResultStore}: the model reads a cut result on, page by page.
 */
import type { ContentBlock, JsonObject, JsonValue, ToolDefinition } from '../contracts'
import { quoteText, ToolError } from '../errors'
import { defineRawTool } from '../schema/define-raw-tool'
import type { ResultStore } from './store'

/** Default `length` of a page when the model gives none: 10,000 characters. */
export const DEFAULT_READ_RESULT_CHARS = 10_000
/** The longest page one call returns: 20,000 characters (under the default `contentLimits.maxChars`, 25,000). */
export const MAX_READ_RESULT_CHARS = 20_000

/** Room for a page's footer line in the tool's own budget (names are at most 128 code points). */
const PAGE_FOOTER_ROOM = 1_000

/** Options of {@link readResultTool}. */
export interface ReadResultToolOptions {
  /** The tool's name; default `read_result`. Give the same name as `resultBudget.readTool`. */
  readonly name?: string
}

/** The paging tool's value: one page of the stored text. */
export interface ResultPage {
  /** The characters from `offset` (at most `length`). */
  readonly text: string
  readonly offset: number
  /** Where the next page starts, or `null` at the end of the result. */
  readonly nextOffset: number | null
  /** Characters of the whole stored result. */
  readonly totalChars: number
}

/**
 * A tool definition (`read_result` unless renamed) that returns `length` characters of the stored
 * result `handle` from `offset` (parameters `handle` string, `offset` integer ≥ 0 default 0,
 * `length` integer 1–20,000 default 10,000). Its content is the page's text followed by
 * `\n[characters 2,000–12,000 of 200,000; call read_result with offset 12000 to read on]`, or
 * `… of 200,000; end of result]` on the last page. Concurrency-safe. Its own `resultBudget`
 * (21,000 characters) keeps the registry's `toolMaxChars` from cutting a page; a page of more than
 * `contentLimits.maxLines` lines is still cut there (ask for a shorter `length`).
 *
 * Failures are `INVALID_ARGS` naming the field, as schema violations do: `Invalid arguments for tool
 * "read_result": /handle: "res_x" is unknown or expired (a stored result is kept for a limited time;
 * run the original tool again)`, `…: /offset: 250000 is past the end of the result (200,000
 * characters)`, and from the schema `…: /offset: must be >= 0`, `…: /length: must be >= 1`,
 * `…: /length: must be <= 20000`.
 */
export function readResultTool(store: ResultStore, options: ReadResultToolOptions = {}): ToolDefinition<JsonObject, JsonValue> {
  const name = options.name ?? 'read_result'
  return defineRawTool({
    name,
    description:
      'Reads a tool result that was cut because it was too long: returns `length` characters of the stored result `handle` from `offset`. The cut result names its handle and the offset to read on from.',
    inputSchema: {
      type: 'object',
      properties: {
        handle: { type: 'string', description: 'The handle named in the cut result, e.g. "res_0123456789abcdef".' },
        offset: { type: 'integer', minimum: 0, default: 0, description: 'The first character to return (0 = the start of the result).' },
        length: { type: 'integer', minimum: 1, maximum: MAX_READ_RESULT_CHARS, default: DEFAULT_READ_RESULT_CHARS, description: 'How many characters to return.' },
      },
      required: ['handle'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: { text: { type: 'string' }, offset: { type: 'integer' }, nextOffset: { type: ['integer', 'null'] }, totalChars: { type: 'integer' } },
      required: ['text', 'offset', 'nextOffset', 'totalChars'],
    },
    isConcurrencySafe: () => true,
    // Its own budget, above any page and its footer: the registry's `toolMaxChars` never cuts a page.
    resultBudget: { maxChars: MAX_READ_RESULT_CHARS + PAGE_FOOTER_ROOM },
    async execute(args) {
      const handle = args.handle as string
      const offset = (args.offset as number | undefined) ?? 0
      const length = (args.length as number | undefined) ?? DEFAULT_READ_RESULT_CHARS
      const entry = await store.get(handle)
      if (entry === undefined) throw new ToolError('INVALID_ARGS', `Invalid arguments for tool ${quoteText(name)}: /handle: ${JSON.stringify(handle)} is unknown or expired (a stored result is kept for a limited time; run the original tool again)`)
      const total = entry.text.length
      if (offset > total || (offset === total && total > 0)) throw new ToolError('INVALID_ARGS', `Invalid arguments for tool ${quoteText(name)}: /offset: ${offset} is past the end of the result (${total.toLocaleString('en-US')} characters)`)
      let end = Math.min(total, offset + length)
      // Never end a page inside a surrogate pair (the next page starts with the whole pair).
      if (end < total && end > offset + 1) {
        const code = entry.text.charCodeAt(end - 1)
        if (code >= 0xd800 && code <= 0xdbff) end--
      }
      const page: ResultPage = { text: entry.text.slice(offset, end), offset, nextOffset: end < total ? end : null, totalChars: total }
      return page as unknown as JsonObject
    },
    render: (_args, value) => renderPage(name, value as unknown as ResultPage),
  })
}

function renderPage(name: string, page: ResultPage): readonly ContentBlock[] {
  const n = (v: number): string => v.toLocaleString('en-US')
  const end = page.offset + page.text.length
  const tail = page.nextOffset === null ? 'end of result' : `call ${name} with offset ${page.nextOffset} to read on`
  return [{ type: 'text', text: `${page.text}\n[characters ${n(page.offset)}–${n(end)} of ${n(page.totalChars)}; ${tail}]` }]
}
