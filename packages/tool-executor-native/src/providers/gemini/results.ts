/**
 * Results → the Gemini content answering a function-call turn: one `functionResponse` part per
 * call, in call order, with the provider-side name (pairing is by name and order; a
 * Gemini-sent id is echoed, a minted one is not). Success is `response: { output }`, failure
 * `response: { error }` (Gemini API reference, `FunctionResponse.response`). Images follow as
 * `inlineData` parts, each announced by a text part.
 */
import type { RawToolCall, ToolResult } from '@deepseek-ai/dsh-tools'
import type { NameMap } from '../names'
import { modelBlocks, pairResults, textWithImageLines } from '../results'
import { RECOVERED_CALL_ID_PREFIX } from '../finalize'
import { GEMINI_CALL_ID_PREFIX } from './parse'

/** A `functionResponse` part. */
export interface GeminiFunctionResponsePart {
  readonly functionResponse: {
    readonly id?: string
    readonly name: string
    readonly response: { readonly output: string } | { readonly error: string }
  }
}

/** A part of the answering content. */
export type GeminiResultPart = GeminiFunctionResponsePart | { readonly text: string } | { readonly inlineData: { readonly mimeType: string; readonly data: string } }

/** The `user` content answering a function-call turn. */
export interface GeminiFunctionResponseContent {
  readonly role: 'user'
  readonly parts: GeminiResultPart[]
}

/** Options of {@link toGeminiFunctionResponses}. */
export interface GeminiResultOptions {
  /**
   * Maps tool names back to the declared Gemini names: pass `declared.nameMap` from
   * `toGeminiTools` whenever it rewrote a name. Gemini pairs responses with calls by
   * function name, and without the map each response is named with the registry name
   * (`math.factorial` rather than the declared `math_factorial`), silently.
   */
  readonly nameMap?: NameMap
  /** The prefix used for minted ids (default `gemini_call_`): such ids are not echoed. */
  readonly idPrefix?: string
  /** `parts` (default): images as `inlineData` parts after the responses; `omit`: placeholder text only. */
  readonly images?: 'parts' | 'omit'
}

/**
 * Builds the content answering `calls` with `results`. Pass `{ nameMap: declared.nameMap }`
 * whenever `toGeminiTools` rewrote a name: Gemini pairs each `functionResponse` with its
 * call by function name, and without the map the response carries the registry name instead of
 * the declared one (nothing fails here; the model sees a response for a function it never called).
 *
 * @throws ResultPairingError when calls and results do not pair one to one.
 */
export function toGeminiFunctionResponses(calls: readonly RawToolCall[], results: readonly ToolResult[], options: GeminiResultOptions = {}): GeminiFunctionResponseContent {
  // Minted ids (and ids of calls recovered from text) were never sent by Gemini: not echoed.
  const minted = new RegExp(`^(?:${escapeRegExp(options.idPrefix ?? GEMINI_CALL_ID_PREFIX)}|${RECOVERED_CALL_ID_PREFIX})\\d+$`)
  const imageParts: GeminiResultPart[] = []
  let imageCount = 0
  const parts: GeminiResultPart[] = pairResults(calls, results).map(({ call, result }) => {
    const name = options.nameMap?.toWire(call.name) ?? call.name
    const text = textWithImageLines(modelBlocks(result), (block) => {
      imageCount++
      if (options.images === 'omit') return `[image ${imageCount} (${block.mimeType}) omitted]`
      imageParts.push({ text: `image ${imageCount} (${name} call ${call.callId}):` }, { inlineData: { mimeType: block.mimeType, data: block.data } })
      return `[image ${imageCount} (${block.mimeType}) is attached after the function responses]`
    })
    return {
      functionResponse: {
        ...(minted.test(call.callId) ? {} : { id: call.callId }),
        name,
        response: result.isError ? { error: text } : { output: text },
      },
    }
  })
  return { role: 'user', parts: [...parts, ...imageParts] }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
