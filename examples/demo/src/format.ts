/**
 * Console formatting for the demo (colours only on a TTY).
 */
import type { JsonValue, ToolResult } from '@deepseek-ai/dsh-tools'

const tty = process.stdout.isTTY === true
export const bold = (s: string): string => (tty ? `\x1b[1m${s}\x1b[0m` : s)
export const dim = (s: string): string => (tty ? `\x1b[2m${s}\x1b[0m` : s)

/** `12.3ms`, right-aligned to 8 characters. */
export function formatMs(ms: number): string {
  return `${ms.toFixed(1)}ms`.padStart(8)
}

/** `ok` or the failure code. */
export function outcomeLabel(result: ToolResult): string {
  return result.isError ? `error ${result.error.info?.code ?? '?'}` : 'ok'
}

/** The first line of the model-facing text, cut to 70 characters. */
export function preview(result: ToolResult): string {
  const text = result.content.map((b) => (b.type === 'text' ? b.text : `[image ${b.mimeType}]`)).join(' ')
  const line = text.split('\n')[0] ?? ''
  return line.length > 70 ? `${line.slice(0, 69)}…` : line
}

/** Arguments as sent, cut to 42 characters. */
export function shortArgs(args: string | JsonValue): string {
  const text = typeof args === 'string' ? (args === '' ? '""' : args) : JSON.stringify(args)
  return text.length > 42 ? `${text.slice(0, 41)}…` : text
}
