/**
 * Cutting one result's content to a character budget (pure): the kept prefix of its text, block
 * by block, and the full text a store keeps.
 */
import type { ContentBlock } from '../contracts'

/** The text of `content` a budget measures and a store keeps: its text blocks joined with `\n`. */
export function fullText(content: readonly ContentBlock[]): string {
  let text = ''
  let first = true
  for (const block of content) {
    if (block.type !== 'text') continue
    text = first ? block.text : `${text}\n${block.text}`
    first = false
  }
  return text
}

/** Characters of {@link fullText} without building it. */
export function textChars(content: readonly ContentBlock[]): number {
  let chars = -1
  for (const block of content) if (block.type === 'text') chars += block.text.length + 1
  return Math.max(0, chars)
}

/**
 * Where a cut to `maxChars` characters (and at most `maxLines` lines, `0`: no line cap) of
 * `text` ends: the kept prefix is `text.slice(0, end)`. Never splits a surrogate pair.
 */
export function cutPoint(text: string, maxChars: number, maxLines: number): number {
  let end = Math.min(text.length, maxChars)
  if (maxLines > 0) {
    let lines = 1
    for (let i = text.indexOf('\n'); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) {
      if (++lines > maxLines) {
        end = i
        break
      }
    }
  }
  if (end > 0 && end < text.length) {
    const code = text.charCodeAt(end - 1)
    if (code >= 0xd800 && code <= 0xdbff) end--
  }
  return end
}

/**
 * `content` with its text cut after `keep` characters of {@link fullText} (the `\n` between two
 * blocks counts as one character of the earlier block), then `marker` as a last text block. Text
 * blocks past the cut are dropped; image blocks stay in place.
 */
export function keepPrefix(content: readonly ContentBlock[], keep: number, marker: string): readonly ContentBlock[] {
  const out: ContentBlock[] = []
  let left = keep
  let first = true
  for (const block of content) {
    if (block.type !== 'text') {
      out.push(block)
      continue
    }
    if (!first) left-- // the joining `\n`
    first = false
    if (left <= 0) continue
    if (block.text.length <= left) out.push(block)
    else out.push({ type: 'text', text: block.text.slice(0, left) })
    left -= block.text.length
  }
  out.push({ type: 'text', text: marker })
  return out
}
