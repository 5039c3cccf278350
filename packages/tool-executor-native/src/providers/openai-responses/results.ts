/**
 * Results → Responses API input items: one `function_call_output` per call, in call order,
 * paired by `call_id` (emission E05). Text-only output is a string; output with images is a
 * list of `input_text` / `input_image` parts.
 */
import type { RawToolCall, ToolResult } from '@deepseek-ai/dsh-tools'
import { dataUrl, modelBlocks, pairResults } from '../results'

/** A part of a multimodal function output. */
export type OpenAIResponsesOutputPart =
  | { readonly type: 'input_text'; readonly text: string }
  | { readonly type: 'input_image'; readonly image_url: string; readonly detail: 'auto' }

/** A `function_call_output` input item. */
export interface OpenAIResponsesFunctionCallOutput {
  readonly type: 'function_call_output'
  readonly call_id: string
  readonly output: string | OpenAIResponsesOutputPart[]
}

/**
 * Builds the `function_call_output` items answering `calls` with `results`. Failures need no
 * flag: their output is exactly `Error: <message>`.
 *
 * @throws ResultPairingError when calls and results do not pair one to one.
 */
export function toOpenAIResponsesOutputs(calls: readonly RawToolCall[], results: readonly ToolResult[]): OpenAIResponsesFunctionCallOutput[] {
  return pairResults(calls, results).map(({ call, result }) => {
    const blocks = modelBlocks(result)
    const output = blocks.every((b) => b.type === 'text')
      ? blocks.map((b) => (b.type === 'text' ? b.text : '')).join('\n')
      : blocks.map((b): OpenAIResponsesOutputPart => (b.type === 'text' ? { type: 'input_text', text: b.text } : { type: 'input_image', image_url: dataUrl(b), detail: 'auto' }))
    return { type: 'function_call_output' as const, call_id: call.callId, output }
  })
}
