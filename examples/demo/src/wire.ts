/**
 * Provider payload ↔ raw batch, through the native executor's provider wire formats.
 */
import type { RawToolCall, ToolResult } from '@deepseek-ai/dsh-tools'
import {
  parseAnthropicMessage,
  parseOpenAIChatCompletion,
  toAnthropicToolResultMessage,
  toOpenAIChatToolMessages,
  type AnthropicMessageWire,
  type OpenAIChatCompletionWire,
  type ParsedToolCalls,
} from '@deepseek-ai/dsh-tool-executor-native'
import type { RecordedStep } from './recorded'

/** Parses a recorded provider payload into the raw batch `ctx.tools.execute` takes. */
export function stepToBatch(step: RecordedStep): ParsedToolCalls {
  return step.provider === 'openai-chat'
    ? parseOpenAIChatCompletion(step.payload as unknown as OpenAIChatCompletionWire)
    : parseAnthropicMessage(step.payload as unknown as AnthropicMessageWire)
}

/** The provider's tool-result message(s) for the step: what the model reads next. */
export function resultsToMessages(step: RecordedStep, calls: readonly RawToolCall[], results: readonly ToolResult[]): unknown {
  return step.provider === 'openai-chat' ? toOpenAIChatToolMessages(calls, results) : toAnthropicToolResultMessage(calls, results)
}
