/**
 * Provider wire formats for the native executor, as pure functions with no network: tool
 * declarations per provider (with schema sanitizing and a reversible name map), emissions → raw
 * batch (complete responses and streams, truncation, unique call ids, calls recovered from
 * leaked markup), the assistant turn for the next request, and results → provider messages.
 */
export {
  type WireProvider,
  type DeclarationInput,
  type DeclarationOptions,
  type ConversionWarningCode,
  type ConversionWarning,
  type ConversionErrorCode,
  type ConversionError,
  type Declarations,
  type FinishKind,
  type FinishInfo,
  type TruncatedCall,
  type LeakedMarkup,
  type ParseIssue,
  type CallIdChange,
  type AssistantPart,
  type RecoveredMarker,
  type RecoveredCall,
  type MarkupError,
  type CompleteToolCalls,
  type RecoveredToolCalls,
  type MalformedMarkupToolCalls,
  type TruncatedToolCalls,
  type ParsedToolCalls,
  type ParseOptions,
  type SanitizedSchema,
  MAX_INLINED_NODES,
  ProviderFormatError,
  ResultPairingError,
} from './types'
export {
  type NameRule,
  type NameMap,
  type NameMapEntry,
  OPENAI_NAME_RULE,
  ANTHROPIC_NAME_RULE,
  GEMINI_NAME_RULE,
  isValidToolName,
  assignWireNames,
  nameMapFromEntries,
} from './names'
export { type ArgumentsState, classifyArguments } from './arguments'
export { detectLeakedMarkup } from './markup'
export { markupErrorMessage } from './recover'
export { RECOVERED_CALL_ID_PREFIX } from './finalize'
export { TRUNCATED_ARGUMENTS, TRUNCATED_RESPONSE, truncatedCallResults } from './truncation'
export { type SettledCalls, settleParsedCalls } from './settle'
export { STRICT_MAX_DEPTH } from './schema/strict'
export {
  type RequestInput,
  type ProviderRequest,
  renderPromptSections,
  withSystemText,
  toOpenAIChatRequest,
  toOpenAICompatibleRequest,
  toDeepSeekRequest,
  toOpenAIResponsesRequest,
  toAnthropicRequest,
  toGeminiRequest,
} from './request'
export { type SanitizeOptions, type SanitizedParameters, sanitizeToolParameters } from './sanitize'

export { type OpenAIChatTool, type OpenAIDeclarationOptions, toOpenAIChatTools, toOpenAICompatibleTools, toDeepSeekTools } from './openai-chat/declare'
export type { OpenAIChatToolCallWire, OpenAIChatMessageWire, OpenAIChatCompletionWire, OpenAIChatToolCallDeltaWire, OpenAIChatChunkWire, OpenAIChatUnreadFieldsWire } from './openai-chat/wire'
export {
  type OpenAIChatParseOptions,
  MINTED_CALL_ID_PREFIX,
  openAIChatFinish,
  parseOpenAIChatCompletion,
  parseOpenAIChatMessage,
  OpenAIChatStreamAccumulator,
  parseOpenAIChatStream,
} from './openai-chat/parse'
export {
  type OpenAIChatToolMessage,
  type OpenAIChatUserPart,
  type OpenAIChatUserMessage,
  type OpenAIChatResultMessage,
  type OpenAIChatResultOptions,
  toOpenAIChatToolMessages,
} from './openai-chat/results'
export { type OpenAIChatAssistantToolCall, type OpenAIChatAssistantMessage, type OpenAIChatAssistantOptions, toOpenAIChatAssistantMessage } from './openai-chat/assistant'

export { type OpenAIResponsesTool, toOpenAIResponsesTools } from './openai-responses/declare'
export type {
  OpenAIResponsesFunctionCallWire,
  OpenAIResponsesMessageWire,
  OpenAIResponsesOutputItemWire,
  OpenAIResponsesResponseWire,
  OpenAIResponsesStreamEventWire,
} from './openai-responses/wire'
export { openAIResponsesFinish, parseOpenAIResponse, OpenAIResponsesStreamAccumulator, parseOpenAIResponsesStream } from './openai-responses/parse'
export { type OpenAIResponsesOutputPart, type OpenAIResponsesFunctionCallOutput, toOpenAIResponsesOutputs } from './openai-responses/results'
export {
  type OpenAIResponsesAssistantMessageInput,
  type OpenAIResponsesFunctionCallInput,
  type OpenAIResponsesReasoningInput,
  type OpenAIResponsesAssistantItem,
  toOpenAIResponsesAssistantItems,
} from './openai-responses/assistant'

export { type AnthropicTool, type AnthropicInputSchema, toAnthropicTools } from './anthropic/declare'
export type { AnthropicContentBlockWire, AnthropicMessageWire, AnthropicStreamEventWire } from './anthropic/wire'
export { anthropicFinish, parseAnthropicMessage, AnthropicStreamAccumulator, parseAnthropicStream } from './anthropic/parse'
export { type AnthropicToolResultContent, type AnthropicImageMediaType, type AnthropicToolResultBlock, type AnthropicToolResultMessage, toAnthropicToolResultMessage } from './anthropic/results'
export { type AnthropicAssistantBlock, type AnthropicAssistantMessage, toAnthropicAssistantMessage } from './anthropic/assistant'

export { type GeminiFunctionDeclaration, toGeminiTools } from './gemini/declare'
export type { GeminiPartWire, GeminiResponseWire } from './gemini/wire'
export { type GeminiParseOptions, GEMINI_CALL_ID_PREFIX, geminiFinish, parseGeminiResponse, GeminiStreamAccumulator, parseGeminiStream } from './gemini/parse'
export {
  type GeminiFunctionResponsePart,
  type GeminiResultPart,
  type GeminiFunctionResponseContent,
  type GeminiResultOptions,
  toGeminiFunctionResponses,
} from './gemini/results'
export { type GeminiModelPart, type GeminiModelContent, toGeminiModelContent } from './gemini/assistant'
