/**
 * The stream accumulator of each provider behind one shape: push a chunk, ask how many leading
 * calls are settled (their arguments can no longer change), read the parse so far.
 */
import { AnthropicStreamAccumulator } from '../providers/anthropic/parse'
import type { AnthropicStreamEventWire } from '../providers/anthropic/wire'
import { GeminiStreamAccumulator, type GeminiParseOptions } from '../providers/gemini/parse'
import type { GeminiResponseWire } from '../providers/gemini/wire'
import { OpenAIChatStreamAccumulator, type OpenAIChatParseOptions } from '../providers/openai-chat/parse'
import type { OpenAIChatChunkWire } from '../providers/openai-chat/wire'
import { OpenAIResponsesStreamAccumulator } from '../providers/openai-responses/parse'
import type { OpenAIResponsesStreamEventWire } from '../providers/openai-responses/wire'
import type { ParsedToolCalls } from '../providers/types'

/**
 * The providers `executeToolStream` reads, and what one stream chunk of each is: the JSON of one
 * SSE `data:` line, as the official SDK clients yield it (`openai` chat chunks for
 * `openai-chat`, `deepseek` and `openai-compatible`; `openai` Responses stream events;
 * `@anthropic-ai/sdk` message stream events; `@google/genai` `generateContentStream` responses).
 */
export interface StreamChunkTypes {
  readonly 'openai-chat': OpenAIChatChunkWire
  readonly deepseek: OpenAIChatChunkWire
  readonly 'openai-compatible': OpenAIChatChunkWire
  readonly 'openai-responses': OpenAIResponsesStreamEventWire
  readonly anthropic: AnthropicStreamEventWire
  readonly gemini: GeminiResponseWire
}

/** A provider whose stream `executeToolStream` reads (the keys of {@link StreamChunkTypes}). */
export type StreamProvider = keyof StreamChunkTypes

/** Every {@link StreamProvider}, in the order `executeToolStream`'s error message lists them. */
export const STREAM_PROVIDERS: readonly StreamProvider[] = ['openai-chat', 'deepseek', 'openai-compatible', 'openai-responses', 'anthropic', 'gemini']

/** Parse options of every provider's accumulator (each reads the fields it knows). */
export type StreamParseOptions = OpenAIChatParseOptions & GeminiParseOptions

/** One provider's accumulator, as the stream runner drives it. */
export interface StreamSource {
  push(chunk: unknown): void
  readyCalls(): number
  result(): ParsedToolCalls
}

/** A fresh accumulator for `provider`. */
export function streamSource(provider: StreamProvider, options: StreamParseOptions): StreamSource {
  switch (provider) {
    case 'openai-chat':
    case 'deepseek':
    case 'openai-compatible':
      return wrap(new OpenAIChatStreamAccumulator({ ...options, provider }))
    case 'openai-responses':
      return wrap(new OpenAIResponsesStreamAccumulator(options))
    case 'anthropic':
      return wrap(new AnthropicStreamAccumulator(options))
    case 'gemini':
      return wrap(new GeminiStreamAccumulator(options))
  }
}

function wrap<C>(accumulator: { push(chunk: C): void; readyCalls(): number; result(): ParsedToolCalls }): StreamSource {
  return {
    push: (chunk) => accumulator.push(chunk as C),
    readyCalls: () => accumulator.readyCalls(),
    result: () => accumulator.result(),
  }
}
