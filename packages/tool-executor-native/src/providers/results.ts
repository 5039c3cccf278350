/**
 * Shared helpers of the result-message builders: pairing results with calls one to one (by
 * `callId`, in call order) and flattening a result's content and contexts.
 */
import { quoteText, type ContentBlock, type ImageBlock, type RawToolCall, type ToolResult } from '@deepseek-ai/dsh-tools'
import { ResultPairingError } from './types'

/** A call with its result. */
export interface PairedResult {
  readonly call: RawToolCall
  readonly result: ToolResult
}

/**
 * Pairs each call with the result of the same `callId`, in call order (repeated ids pair in
 * order of appearance).
 *
 * @throws ResultPairingError when a call has no result or a result matches no call.
 */
export function pairResults(calls: readonly RawToolCall[], results: readonly ToolResult[]): PairedResult[] {
  const byId = new Map<string, ToolResult[]>()
  for (const result of results) {
    const queue = byId.get(result.callId)
    if (queue) queue.push(result)
    else byId.set(result.callId, [result])
  }
  const paired = calls.map((call) => {
    const result = byId.get(call.callId)?.shift()
    if (!result) throw new ResultPairingError(`no result for call ${quoteText(call.callId)} (${call.name}); every call needs exactly one result`, call.callId)
    return { call, result }
  })
  for (const [callId, rest] of byId) {
    if (rest.length > 0) throw new ResultPairingError(`result for call ${quoteText(callId)} matches no call in the batch`, callId)
  }
  return paired
}

/**
 * The model-facing blocks of a result: its `content`, then each attached context as a
 * `[context from <source>]` line followed by the context's blocks.
 */
export function modelBlocks(result: ToolResult): ContentBlock[] {
  const blocks: ContentBlock[] = [...result.content]
  for (const context of result.contexts ?? []) {
    blocks.push({ type: 'text', text: `[context from ${context.source}]` })
    blocks.push(...context.content)
  }
  return blocks
}

/**
 * A text-only rendering of blocks: text blocks as they are and each image as the line
 * `imageLine(image)` returns (the callback may also collect the image), joined with `\n`.
 */
export function textWithImageLines(blocks: readonly ContentBlock[], imageLine: (image: ImageBlock) => string): string {
  return blocks.map((block) => (block.type === 'text' ? block.text : imageLine(block))).join('\n')
}

/** A `data:` URL for an image block. */
export function dataUrl(block: { readonly data: string; readonly mimeType: string }): string {
  return `data:${block.mimeType};base64,${block.data}`
}
