/**
 * Results → Chat Completions messages: one `{ role: "tool", tool_call_id, content }` per call,
 * in call order (emission E02). Chat tool messages carry text only, so image blocks become a
 * placeholder line and, by default, one trailing `user` message holding the images.
 * Failures need no flag: their content is already exactly `Error: <message>`.
 */
import type { RawToolCall, ToolResult } from '@deepseek-ai/dsh-tools'
import { dataUrl, modelBlocks, pairResults, textWithImageLines } from '../results'

/** A tool-result message. */
export interface OpenAIChatToolMessage {
  readonly role: 'tool'
  readonly tool_call_id: string
  readonly content: string
}

/** A content part of the trailing image message. */
export type OpenAIChatUserPart = { readonly type: 'text'; readonly text: string } | { readonly type: 'image_url'; readonly image_url: { readonly url: string } }

/** The trailing `user` message that carries tool images. */
export interface OpenAIChatUserMessage {
  readonly role: 'user'
  readonly content: OpenAIChatUserPart[]
}

/** What {@link toOpenAIChatToolMessages} returns. */
export type OpenAIChatResultMessage = OpenAIChatToolMessage | OpenAIChatUserMessage

/** Options of {@link toOpenAIChatToolMessages}. */
export interface OpenAIChatResultOptions {
  /**
   * `user-message` (default): images go into one `user` message after the tool messages.
   * `omit`: images are replaced by a placeholder only (DeepSeek and other text-only servers).
   */
  readonly images?: 'user-message' | 'omit'
}

/**
 * Builds the messages that answer `calls` with `results` (paired by `callId`): one tool message
 * per call in call order, text blocks joined with `\n`, then the image message if any.
 *
 * @throws ResultPairingError when calls and results do not pair one to one.
 */
export function toOpenAIChatToolMessages(calls: readonly RawToolCall[], results: readonly ToolResult[], options: OpenAIChatResultOptions = {}): OpenAIChatResultMessage[] {
  const mode = options.images ?? 'user-message'
  const images: OpenAIChatUserPart[] = []
  let imageCount = 0
  const messages: OpenAIChatResultMessage[] = pairResults(calls, results).map(({ call, result }) => {
    const content = textWithImageLines(modelBlocks(result), (block) => {
      imageCount++
      if (mode === 'omit') return `[image ${imageCount} (${block.mimeType}) omitted: this model input takes text only]`
      images.push({ type: 'text', text: `image ${imageCount} (tool call ${call.callId}):` }, { type: 'image_url', image_url: { url: dataUrl(block) } })
      return `[image ${imageCount} (${block.mimeType}) is attached in the next user message]`
    })
    return { role: 'tool' as const, tool_call_id: call.callId, content }
  })
  if (images.length > 0) messages.push({ role: 'user', content: [{ type: 'text', text: 'Images returned by the tool calls above:' }, ...images] })
  return messages
}
