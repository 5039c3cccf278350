/**
 * Console formatting for the demo (colours only on a TTY).
 */
import type { Context } from 'cordis'
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

/**
 * Records when each body started and ended (ms, `performance.now()`), by call id, through a
 * `tools/execute` wrapper on `ctx`.
 */
export function timeBodies(ctx: Context): Map<string, { start: number; end?: number }> {
  const timing = new Map<string, { start: number; end?: number }>()
  ctx.on('tools/execute', async (exec, next) => {
    const entry: { start: number; end?: number } = { start: performance.now() }
    timing.set(exec.callId, entry)
    try {
      return await next()
    } finally {
      entry.end = performance.now()
    }
  })
  return timing
}
