/**
 * The Gemini `generateContent` / `streamGenerateContent` responses as the parsers take them. The
 * fields the parsers read are typed; the other documented fields of the real API
 * (`usageMetadata`, `modelVersion`, `responseId`, `safetyRatings`, …) are listed as optional
 * `unknown`, so a real response written as an annotated object literal typechecks. There is
 * deliberately no index signature: the official SDK's types are classes and interfaces, which are
 * not assignable to a type with one.
 * Source: Gemini API reference, "GenerateContentResponse", "FunctionCall".
 */

/** One content part: text (possibly a thought) or a function call. */
export interface GeminiPartWire {
  readonly text?: string
  readonly thought?: boolean
  /** An opaque signature of the model's thinking, to send back on the same part. */
  readonly thoughtSignature?: string
  readonly functionCall?: { readonly id?: string; readonly name?: string; readonly args?: unknown; readonly partialArgs?: unknown; readonly willContinue?: unknown }
  /** Documented part kinds and fields the parsers do not read. */
  readonly inlineData?: unknown
  readonly fileData?: unknown
  readonly functionResponse?: unknown
  readonly executableCode?: unknown
  readonly codeExecutionResult?: unknown
  readonly videoMetadata?: unknown
  readonly partMetadata?: unknown
  readonly mediaResolution?: unknown
  readonly toolCall?: unknown
  readonly toolResponse?: unknown
}

/** A response, or one chunk of a streamed response. */
export interface GeminiResponseWire {
  readonly candidates?: readonly {
    readonly index?: number
    readonly content?: { readonly role?: string; readonly parts?: readonly GeminiPartWire[] }
    readonly finishReason?: string
    readonly finishMessage?: string
    /** Documented fields the parsers do not read. */
    readonly safetyRatings?: unknown
    readonly citationMetadata?: unknown
    readonly tokenCount?: unknown
    readonly groundingMetadata?: unknown
    readonly urlContextMetadata?: unknown
    readonly avgLogprobs?: unknown
    readonly logprobsResult?: unknown
  }[]
  readonly promptFeedback?: { readonly blockReason?: string; readonly blockReasonMessage?: unknown; readonly safetyRatings?: unknown }
  /** Documented fields the parsers do not read. */
  readonly usageMetadata?: unknown
  readonly modelVersion?: unknown
  readonly responseId?: unknown
  readonly createTime?: unknown
}
