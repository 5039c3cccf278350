/**
 * The assistant-turn builder for Gemini: the `role: "model"` content that goes into the next
 * request's `contents` before the function responses, rebuilt from a parsed response or a
 * finished stream, with every `thoughtSignature` on the part it came with (Gemini 3 rejects a
 * function-calling turn whose signatures are missing).
 */
import type { JsonObject } from '@deepseek-ai/dsh-tools'
import { argumentsObject } from '../turn'
import type { ParsedToolCalls } from '../types'

/** A part of the rebuilt model content. */
export type GeminiModelPart =
  | { readonly text: string; readonly thought?: true; readonly thoughtSignature?: string }
  | { readonly functionCall: { readonly id?: string; readonly name: string; readonly args: JsonObject }; readonly thoughtSignature?: string }

/** The rebuilt model content. */
export interface GeminiModelContent {
  readonly role: 'model'
  readonly parts: GeminiModelPart[]
}

/**
 * Rebuilds the model content of `parsed`: text and thought parts (streamed fragments joined),
 * and one `functionCall` part per call with the provider-side name and the `args` object. An id
 * is included only when Gemini sent it (pairing is by name and order; minted ids stay local).
 * `thoughtSignature`s are kept on the part they came with, as Gemini's function-calling docs
 * require for thinking models. Pure; never throws.
 */
export function toGeminiModelContent(parsed: ParsedToolCalls): GeminiModelContent {
  const parts: GeminiModelPart[] = []
  for (const part of parsed.turn) {
    const signature = 'signature' in part && part.signature !== undefined ? { thoughtSignature: part.signature } : {}
    if (part.type === 'text') parts.push({ text: part.text, ...signature })
    else if (part.type === 'reasoning') parts.push({ text: part.text, thought: true, ...signature })
    else if (part.type === 'call') {
      const id = part.emittedId !== undefined && part.emittedId === part.callId ? { id: part.emittedId } : {}
      parts.push({ functionCall: { ...id, name: part.wireName, args: argumentsObject(part.arguments) }, ...signature })
    }
  }
  return { role: 'model', parts }
}
