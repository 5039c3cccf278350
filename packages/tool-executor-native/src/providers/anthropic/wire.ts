/**
 * The parts of the Anthropic Messages API the parsers read: response content blocks and
 * streaming events. Source: Anthropic API reference, "Messages" and "Streaming messages".
 */

/** A response content block (`text`, `tool_use`, `thinking`, `redacted_thinking`; others are skipped). */
export interface AnthropicContentBlockWire {
  readonly type: string
  readonly text?: string
  /** `thinking` blocks: the thinking text and the signature to send back. */
  readonly thinking?: string
  readonly signature?: string
  /** `redacted_thinking` blocks: the encrypted thinking to send back. */
  readonly data?: string
  readonly id?: string
  readonly name?: string
  /** The tool input object (typed `unknown` like the SDK's; it is JSON from the wire). */
  readonly input?: unknown
}

/** A complete (non-streamed) message. */
export interface AnthropicMessageWire {
  readonly content: readonly AnthropicContentBlockWire[]
  readonly stop_reason?: string | null
}

/** One streaming event (`message_start`, `content_block_start`, `content_block_delta`, …). */
export interface AnthropicStreamEventWire {
  readonly type: string
  readonly index?: number
  readonly content_block?: AnthropicContentBlockWire
  readonly delta?: {
    readonly type?: string
    readonly text?: string
    readonly partial_json?: string
    readonly thinking?: string
    readonly signature?: string
    readonly stop_reason?: string | null
  }
  readonly message?: { readonly stop_reason?: string | null; readonly content?: readonly AnthropicContentBlockWire[] }
  readonly error?: { readonly type?: string; readonly message?: string }
}
