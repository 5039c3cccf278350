/**
 * The parts of the Gemini `generateContent` / `streamGenerateContent` responses the parsers
 * read. Source: Gemini API reference, "GenerateContentResponse", "FunctionCall".
 */

/** One content part: text (possibly a thought) or a function call. */
export interface GeminiPartWire {
  readonly text?: string
  readonly thought?: boolean
  /** An opaque signature of the model's thinking, to send back on the same part. */
  readonly thoughtSignature?: string
  readonly functionCall?: { readonly id?: string; readonly name?: string; readonly args?: unknown }
}

/** A response, or one chunk of a streamed response. */
export interface GeminiResponseWire {
  readonly candidates?: readonly {
    readonly index?: number
    readonly content?: { readonly role?: string; readonly parts?: readonly GeminiPartWire[] }
    readonly finishReason?: string
    readonly finishMessage?: string
  }[]
  readonly promptFeedback?: { readonly blockReason?: string }
}
