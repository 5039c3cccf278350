/**
 * Console formatting for the demo: the one place that lays out a step header, a call line and a
 * result preview, so every demo step (native, PTC, and steps added later) prints the same way.
 *
 * Everything fits {@link WIDTH} columns. Colour (green `ok`, red failure codes, bold headings,
 * dim notes) is used only when {@link colourEnabled} says the output supports it.
 */
import type { ContentBlock, JsonValue, RawToolCall, ToolResult } from '@deepseek-ai/dsh-tools'

/** The widest line the demo prints, in columns. */
export const WIDTH = 100

/** The environment variables {@link colourEnabled} reads. */
export interface ColourEnv {
  readonly FORCE_COLOR?: string | undefined
  readonly NO_COLOR?: string | undefined
  readonly TERM?: string | undefined
}

/**
 * Whether to print ANSI colour to `stream`, by the common conventions:
 *
 * 1. `FORCE_COLOR` set → colour, unless it is `0` or `false` (then none), even when piped;
 * 2. `NO_COLOR` set to anything but `""` → no colour (https://no-color.org);
 * 3. otherwise colour only on a terminal (`isTTY`) whose `TERM` is not `dumb`.
 *
 * So `npm run demo > out.log`, CI logs and the test log never contain escape codes.
 */
export function colourEnabled(stream: { readonly isTTY?: boolean }, env: ColourEnv): boolean {
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false'
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  return stream.isTTY === true && env.TERM !== 'dumb'
}

/** Text styles; each is the identity when colour is off. */
export interface Style {
  readonly bold: (s: string) => string
  readonly dim: (s: string) => string
  /** A success marker (green). */
  readonly ok: (s: string) => string
  /** A failure marker (red). */
  readonly error: (s: string) => string
}

const sgr = (open: number, close: number) => (s: string) => `\x1b[${open}m${s}\x1b[${close}m`

/** The styles for a stream with or without colour. */
export function createStyle(colour: boolean): Style {
  if (!colour) {
    const plain = (s: string): string => s
    return { bold: plain, dim: plain, ok: plain, error: plain }
  }
  return { bold: sgr(1, 22), dim: sgr(2, 22), ok: sgr(32, 39), error: sgr(31, 39) }
}

/** The demo's styles for `process.stdout` and the current environment. */
export const style: Style = createStyle(colourEnabled(process.stdout, process.env))

/** `12.3ms`, right-aligned to 8 columns; `—` when the call never ran. */
export function formatMs(ms: number | undefined): string {
  return (ms === undefined ? '—' : `${ms.toFixed(1)}ms`).padStart(8)
}

/** `text` cut to `width` columns, ending in `…` when it was cut. */
export function clip(text: string, width: number): string {
  return text.length > width ? `${text.slice(0, Math.max(0, width - 1))}…` : text
}

/**
 * `text` broken into lines of at most `width` columns: at spaces where possible, inside a word
 * only when the word alone is longer. Existing line breaks are kept; a line's leading
 * indentation is kept and repeated on its continuation lines.
 */
export function wrap(text: string, width: number): string[] {
  const out: string[] = []
  for (const source of text.split('\n')) {
    if (source.length <= width) {
      out.push(source)
      continue
    }
    const found = /^ */.exec(source)?.[0] ?? ''
    const lead = found.length * 2 < width ? found : ''
    let line = lead
    const flush = (): void => {
      if (line.length > lead.length) out.push(line)
      line = lead
    }
    for (const word of source.slice(lead.length).split(' ')) {
      let rest = word
      // A word longer than a line fills the current line, then whole lines, then goes on below.
      while (lead.length + rest.length > width) {
        const room = line === lead ? width - lead.length : width - line.length - 1
        if (room >= 8 || line === lead) {
          line = line === lead ? lead + rest.slice(0, room) : `${line} ${rest.slice(0, room)}`
          rest = rest.slice(room)
        }
        flush()
      }
      if (line === lead) line = lead + rest
      else if (line.length + 1 + rest.length <= width) line += ` ${rest}`
      else {
        flush()
        line = lead + rest
      }
    }
    flush()
  }
  return out
}

/** `text` wrapped to {@link WIDTH} with every line prefixed by `indent` (spaces). */
export function paragraph(text: string, indent = 0): string[] {
  return wrap(text, WIDTH - indent).map((l) => ' '.repeat(indent) + l)
}

/** A step heading, `Step <n>  <title>`, then dim notes under it (each wrapped). */
export function stepHeader(label: string, title: string, notes: readonly string[] = [], s: Style = style): string[] {
  const head = `${label}  `
  const [first = '', ...more] = wrap(title, WIDTH - head.length)
  return [
    `${s.bold(head + first)}`,
    ...more.map((l) => s.bold(' '.repeat(head.length) + l)),
    ...notes.flatMap((n) => paragraph(n, head.length).map((l) => s.dim(l))),
  ]
}

/** What one call line shows; build it with {@link callView} from a result or a log event. */
export interface CallView {
  /** The call id (`call_01`, `toolu_04`, `call_ptc:code:3`). */
  readonly id: string
  readonly name: string
  /** Arguments as the model sent them (raw text or a parsed value). */
  readonly args: string | JsonValue
  readonly isError: boolean
  /** The failure code (`error.info.code`); absent on success. */
  readonly code?: string
  /** The model-facing (or, for a sub-call, log-only) content. */
  readonly content: readonly ContentBlock[]
  /** Time in `tools/execute` (dispatch and the body), in ms; absent when the call never ran. */
  readonly ms?: number
}

/** A {@link CallView} from a raw call and its result. */
export function callView(call: RawToolCall, result: ToolResult, ms?: number): CallView {
  const base = { id: call.callId, name: call.name, args: call.arguments, content: result.content, ...(ms === undefined ? {} : { ms }) }
  return result.isError ? { ...base, isError: true, code: result.error.info.code } : { ...base, isError: false }
}

/** `ok` or the failure code — the label a call line shows (and the summary counts). */
export function outcomeLabel(call: Pick<CallView, 'isError' | 'code'>): string {
  return call.isError ? (call.code ?? 'ERROR') : 'ok'
}

/** Arguments as text: raw text verbatim (`""` for an empty string), values as compact JSON. */
export function argsText(args: string | JsonValue): string {
  return typeof args === 'string' ? (args === '' ? '""' : args) : JSON.stringify(args)
}

/** The text of content blocks, images as `[image <mime>]`. */
export function contentText(content: readonly ContentBlock[]): string {
  return content.map((b) => (b.type === 'text' ? b.text : `[image ${b.mimeType}]`)).join('\n')
}

/** Layout options of {@link formatCall}. */
export interface CallLayout {
  /** Spaces before the call id. Default 2. */
  readonly indent?: number
  /** Columns of the call-id field. Default 9. */
  readonly idWidth?: number
  /** Lines of result text previewed under the call (wrapped lines count). Default 3; 0 = none. */
  readonly previewLines?: number
  /** Preview only failures (sub-call results the model never sees). Default false. */
  readonly previewErrorsOnly?: boolean
}

const NAME_WIDTH = 24
const LABEL_WIDTH = 19
const TIME_WIDTH = 8

/**
 * One call as printed lines: `id  name  args  outcome  time`, the full arguments under it when
 * they did not fit, then a preview of the result text (`│ …`, `… N more lines`). Every line
 * fits {@link WIDTH} columns.
 */
export function formatCall(call: CallView, layout: CallLayout = {}, s: Style = style): string[] {
  const indent = layout.indent ?? 2
  const idWidth = layout.idWidth ?? 9
  const argsWidth = WIDTH - indent - idWidth - NAME_WIDTH - LABEL_WIDTH - TIME_WIDTH - 4
  const args = argsText(call.args)
  const label = outcomeLabel(call)
  const marker = (call.isError ? s.error : s.ok)(label) + ' '.repeat(Math.max(0, LABEL_WIDTH - label.length))
  const line =
    ' '.repeat(indent) +
    [clip(call.id, idWidth).padEnd(idWidth), clip(call.name, NAME_WIDTH).padEnd(NAME_WIDTH), clip(args, argsWidth).padEnd(argsWidth), marker].join(' ') +
    formatMs(call.ms)
  const under = ' '.repeat(indent + idWidth + 1)
  const lines = [line]
  if (args.length > argsWidth) lines.push(...wrap(`args ${args}`, WIDTH - under.length).map((l) => s.dim(under + l)))
  const previewLines = layout.previewLines ?? 3
  if (previewLines > 0 && (call.isError || layout.previewErrorsOnly !== true)) lines.push(...preview(contentText(call.content), previewLines, under))
  return lines
}

/** Up to `max` wrapped lines of `text` under a `│` rule, then how many lines were left out. */
export function preview(text: string, max: number, indent: string): string[] {
  const prefix = `${indent}│ `
  const lines = wrap(text, WIDTH - prefix.length)
  const shown = lines.slice(0, max).map((l) => prefix + l)
  if (lines.length > max) shown.push(`${prefix}… ${lines.length - max} more line${lines.length - max === 1 ? '' : 's'}`)
  return shown
}

/** A column of text under a `│` rule with line numbers — how the demo shows a program. */
export function listing(source: string, indent = 4): string[] {
  const lines = source.replace(/^\n+|\s+$/g, '').split('\n')
  const digits = String(lines.length).length
  return lines.flatMap((text, i) => {
    const head = `${' '.repeat(indent)}${String(i + 1).padStart(digits)} │ `
    const [first = '', ...more] = wrap(text, WIDTH - head.length)
    return [head + first, ...more.map((m) => `${' '.repeat(head.length - 2)}│ ${m}`)]
  })
}

/** `label ×count` pairs in first-seen order, wrapped under `heading`. */
export function tally(heading: string, labels: readonly string[], indent = 2): string[] {
  const counts = new Map<string, number>()
  for (const l of labels) counts.set(l, (counts.get(l) ?? 0) + 1)
  return paragraph(`${heading}${[...counts].map(([k, v]) => `${k} ×${v}`).join(', ')}`, indent)
}
