/**
 * Results → the Anthropic `user` message answering a tool-use turn: one `tool_result` block
 * per `tool_use`, in call order, all in one message (emission E07: a missing one is a 400),
 * failures flagged `is_error: true`, image blocks as base64 `image` blocks.
 */
import type { RawToolCall, ToolResult } from '@deepseek-ai/dsh-tools'
import { modelBlocks, pairResults } from '../results'

/** A block inside a `tool_result`. */
export type AnthropicToolResultContent =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image'; readonly source: { readonly type: 'base64'; readonly media_type: AnthropicImageMediaType; readonly data: string } }

/** The image types Anthropic accepts; an image of another type is sent as a text placeholder. */
export type AnthropicImageMediaType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp'

const MEDIA_TYPES: ReadonlySet<string> = new Set<AnthropicImageMediaType>(['image/png', 'image/jpeg', 'image/gif', 'image/webp'])

/**
 * A `tool_result` block. `content` is a string for a single text block, a block list otherwise,
 * absent for empty content; `is_error` is present only on failures.
 */
export interface AnthropicToolResultBlock {
  readonly type: 'tool_result'
  readonly tool_use_id: string
  readonly content?: string | AnthropicToolResultContent[]
  readonly is_error?: true
}

/** The user message carrying every tool result of a turn. */
export interface AnthropicToolResultMessage {
  readonly role: 'user'
  readonly content: AnthropicToolResultBlock[]
}

/**
 * Builds the one `user` message answering `calls` with `results`.
 *
 * @throws ResultPairingError when calls and results do not pair one to one.
 */
export function toAnthropicToolResultMessage(calls: readonly RawToolCall[], results: readonly ToolResult[]): AnthropicToolResultMessage {
  const content = pairResults(calls, results).map(({ call, result }): AnthropicToolResultBlock => {
    const blocks = modelBlocks(result).map(
      (b): AnthropicToolResultContent => {
        if (b.type === 'text') return { type: 'text', text: b.text }
        if (MEDIA_TYPES.has(b.mimeType)) return { type: 'image', source: { type: 'base64', media_type: b.mimeType as AnthropicImageMediaType, data: b.data } }
        return { type: 'text', text: `[image (${b.mimeType}) omitted: Anthropic accepts image/png, image/jpeg, image/gif and image/webp]` }
      },
    )
    const only = blocks[0]
    const body = blocks.length === 0 ? {} : blocks.length === 1 && only?.type === 'text' ? { content: only.text } : { content: blocks }
    return { type: 'tool_result', tool_use_id: call.callId, ...body, ...(result.isError ? { is_error: true as const } : {}) }
  })
  return { role: 'user', content }
}
