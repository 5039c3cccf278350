/**
 * Model-facing content caps (bug case B18: one large result must not flood the context).
 * Applied to rendered content of every tool, local or MCP, before post-execute policies, so
 * policies and `finalizeContent` see what the model will see. The canonical value is not cut:
 * a PTC program still receives it whole.
 */
import type { ContentBlock } from './contracts'

/** Caps on the text of one result. `0` disables a cap. */
export interface ContentLimits {
  /** Most characters (UTF-16 code units) of text across a result's text blocks. Default 25,000. */
  readonly maxChars: number
  /** Most lines of text across a result's text blocks. Default 1,000. */
  readonly maxLines: number
}

/** The defaults: 25,000 characters and 1,000 lines (the figures built-in coding tools use). */
export const DEFAULT_CONTENT_LIMITS: ContentLimits = Object.freeze({ maxChars: 25_000, maxLines: 1_000 })

/** The marker appended to cut text; states the original size and how to get the rest. */
export function truncationMarker(shownChars: number, totalChars: number, totalLines: number): string {
  return `\n[output truncated: showing ${shownChars.toLocaleString('en-US')} of ${totalChars.toLocaleString('en-US')} characters (${totalLines.toLocaleString('en-US')} ${totalLines === 1 ? 'line' : 'lines'}); request a narrower range or page to see the rest]`
}

function countLines(text: string): number {
  let n = 1
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++
  return n
}

/** Lines across the text blocks of `content` (a text block without a line break is one line). */
function countAllLines(content: readonly ContentBlock[]): number {
  let lines = 0
  for (const block of content) if (block.type === 'text') lines += countLines(block.text)
  return lines
}

/**
 * Whether `content` is one text block that no cap of `limits` can cut — what most tools render:
 * it is content (no further check needed) and {@link capContent} would return it as it is.
 * Reads the block's `type` and `text` once each.
 */
export function isShortText(content: unknown, limits: ContentLimits): content is readonly ContentBlock[] {
  if (!Array.isArray(content) || content.length !== 1) return false
  const block: unknown = content[0]
  if (block === null || typeof block !== 'object' || (block as { type?: unknown }).type !== 'text') return false
  const text = (block as { text?: unknown }).text
  if (typeof text !== 'string') return false
  // As capContent decides: lines are counted only when the characters could exceed the line cap.
  return (limits.maxChars === 0 || text.length <= limits.maxChars) && (limits.maxLines === 0 || text.length + 1 <= limits.maxLines)
}

/**
 * Cuts text blocks so the result stays within `limits`, never splitting a surrogate pair, and
 * appends {@link truncationMarker} to the last kept block. Image blocks pass unchanged.
 * Returns the input array itself when nothing is cut (no allocation on the common path).
 */
export function capContent(content: readonly ContentBlock[], limits: ContentLimits): readonly ContentBlock[] {
  const { maxChars, maxLines } = limits
  if (maxChars === 0 && maxLines === 0) return content
  let totalChars = 0
  let textBlocks = 0
  for (const block of content) {
    if (block.type !== 'text') continue
    totalChars += block.text.length
    textBlocks++
  }
  const overChars = maxChars > 0 && totalChars > maxChars
  // A text of n characters has at most n + 1 lines: lines are counted only when that bound
  // passes the cap (or the text is cut anyway and the marker reports them). Short results skip
  // the scan, which would also flatten a concatenated string the caller may never read.
  let totalLines = -1
  if (overChars || (maxLines > 0 && totalChars + textBlocks > maxLines)) totalLines = countAllLines(content)
  const overLines = maxLines > 0 && totalLines > maxLines
  if (!overChars && !overLines) return content
  let charBudget = maxChars > 0 ? maxChars : Number.POSITIVE_INFINITY
  let lineBudget = maxLines > 0 ? maxLines : Number.POSITIVE_INFINITY
  const out: ContentBlock[] = []
  let shown = 0
  let cut = false
  let lastText = -1
  for (const block of content) {
    if (block.type !== 'text') {
      out.push(block)
      continue
    }
    // Once text was cut, later text is dropped; image blocks still pass unchanged.
    if (cut || charBudget <= 0 || lineBudget <= 0) {
      cut = true
      continue
    }
    let end = Math.min(block.text.length, charBudget)
    // Stop at the line budget.
    let lines = 0
    for (let i = 0; i < end; i++) {
      if (block.text.charCodeAt(i) === 10 && ++lines >= lineBudget) {
        end = i
        break
      }
    }
    // Never split a surrogate pair.
    if (end > 0 && end < block.text.length) {
      const code = block.text.charCodeAt(end - 1)
      if (code >= 0xd800 && code <= 0xdbff) end--
    }
    const text = block.text.slice(0, end)
    shown += text.length
    charBudget -= text.length
    lineBudget -= lines + 1
    out.push({ type: 'text', text })
    lastText = out.length - 1
    if (end < block.text.length) cut = true
  }
  const marker = truncationMarker(shown, totalChars, totalLines)
  if (lastText === -1) out.push({ type: 'text', text: marker.trimStart() })
  else out[lastText] = { type: 'text', text: (out[lastText] as { text: string }).text + marker }
  return out
}
