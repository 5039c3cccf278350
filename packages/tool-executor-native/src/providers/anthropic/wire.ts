/**
 * The Anthropic Messages API as the parsers take it: response content blocks and streaming
 * events. The fields the parsers read are typed; the other documented fields of the real API
 * (`id`, `type`, `role`, `model`, `usage`, `stop_sequence`, `citations`, …) are listed as
 * optional `unknown`, so a real message written as an annotated object literal typechecks. There
 * is deliberately no index signature: the official SDK's types are interfaces, and an interface
 * is not assignable to a type with one.
 * Source: Anthropic API reference, "Messages" and "Streaming messages".
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
  /** Documented fields the parsers do not read (text citations, server tool blocks). */
  readonly citations?: unknown
  readonly caller?: unknown
  readonly toolset_name?: unknown
  readonly tool_use_id?: unknown
  readonly content?: unknown
}

/** Documented message fields the parsers do not read. */
interface AnthropicMessageExtrasWire {
  readonly id?: unknown
  readonly type?: unknown
  readonly role?: unknown
  readonly model?: unknown
  readonly stop_sequence?: unknown
  readonly stop_details?: unknown
  readonly usage?: unknown
  readonly container?: unknown
  readonly diagnostics?: unknown
  readonly context_management?: unknown
}

/** A complete (non-streamed) message. */
export interface AnthropicMessageWire extends AnthropicMessageExtrasWire {
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
    /** Documented fields the parsers do not read (`citations_delta`, `message_delta`). */
    readonly citation?: unknown
    readonly stop_sequence?: unknown
    readonly stop_details?: unknown
    readonly container?: unknown
  }
  /** `message_start`: the message so far (its `content` is empty on the wire). */
  readonly message?: AnthropicMessageExtrasWire & { readonly stop_reason?: string | null; readonly content?: readonly AnthropicContentBlockWire[] }
  readonly error?: { readonly type?: string; readonly message?: string }
  /** `message_delta`: the usage so far; not read. */
  readonly usage?: unknown
  /** Documented fields the parsers do not read. */
  readonly context_management?: unknown
}
