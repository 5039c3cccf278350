/**
 * One call per provider that returns everything a request needs from an executor description
 * (`ctx.tools.describe()`): the tool declarations and the system text the executor requires.
 * The PTC executor shows one tool, `run_code`, and puts the SDK (the tool names, their
 * parameters and results) in a prompt section: declared without that section, the model does
 * not know which tools its program may call.
 */
import type { PromptSection } from '@deepseek-ai/dsh-tools'
import { toAnthropicTools, type AnthropicTool } from './anthropic/declare'
import { toGeminiTools, type GeminiFunctionDeclaration } from './gemini/declare'
import { toOpenAIChatTools, toOpenAICompatibleTools, type OpenAIChatTool, type OpenAIDeclarationOptions } from './openai-chat/declare'
import { toOpenAIResponsesTools, type OpenAIResponsesTool } from './openai-responses/declare'
import type { DeclarationInput, DeclarationOptions, Declarations } from './types'

/**
 * What the request helpers read: an executor description as `ctx.tools.describe()` returns it
 * (`tools` and `sections`), or any `{ tools, sections? }`.
 */
export type RequestInput = DeclarationInput

/**
 * A provider request's tool part: the declarations ({@link Declarations}: `tools`, `nameMap`,
 * `warnings`, `errors`) plus `system`, the text the executor requires in the system prompt.
 */
export interface ProviderRequest<T> extends Declarations<T> {
  /**
   * Every prompt section of the description, in order, each as `## <title>` + a blank line +
   * its text, separated by a blank line; `''` when there are none (the native executor). Put it
   * in the system prompt, after your own instructions: Chat Completions `{ role: 'system',
   * content }` (or `developer`), Responses `instructions`, Anthropic `system`, Gemini
   * `systemInstruction: { parts: [{ text }] }`. See {@link withSystemText}.
   */
  readonly system: string
  /** The sections `system` was built from. */
  readonly sections: readonly PromptSection[]
}

/**
 * The system text of prompt sections: `## <title>\n\n<text>` per section, joined by a blank
 * line; `''` for none. Pure.
 */
export function renderPromptSections(sections: readonly PromptSection[]): string {
  return sections.map((section) => `## ${section.title}\n\n${section.text.trimEnd()}`).join('\n\n')
}

/**
 * Your own system prompt followed by the executor's text (`request.system`), separated by a
 * blank line; either alone when the other is empty. Pure.
 */
export function withSystemText(own: string, system: string): string {
  if (system === '') return own
  if (own === '') return system
  return `${own.trimEnd()}\n\n${system}`
}

function request<T>(input: RequestInput, declare: (tools: DeclarationInput) => Declarations<T>): ProviderRequest<T> {
  const sections: readonly PromptSection[] = Array.isArray(input?.sections) ? input.sections : []
  // Only the tools: the sections are returned, not dropped (no SECTIONS_DROPPED warning).
  const declared = declare({ tools: Array.isArray(input?.tools) ? input.tools : [] })
  return { ...declared, system: renderPromptSections(sections), sections }
}

/**
 * OpenAI Chat Completions: `tools` as {@link toOpenAIChatTools} builds them, and `system` for
 * the system (or developer) message: `messages: [{ role: 'system', content: withSystemText(own,
 * req.system) }, …]`.
 */
export function toOpenAIChatRequest(input: RequestInput, options: OpenAIDeclarationOptions = {}): ProviderRequest<OpenAIChatTool> {
  return request(input, (tools) => toOpenAIChatTools(tools, options))
}

/** DeepSeek and other OpenAI-compatible servers: {@link toOpenAICompatibleTools} plus `system`, as {@link toOpenAIChatRequest}. */
export function toOpenAICompatibleRequest(input: RequestInput, options: OpenAIDeclarationOptions = {}): ProviderRequest<OpenAIChatTool> {
  return request(input, (tools) => toOpenAICompatibleTools(tools, options))
}

/** DeepSeek: the same as {@link toOpenAICompatibleRequest}. */
export const toDeepSeekRequest: typeof toOpenAICompatibleRequest = toOpenAICompatibleRequest

/** OpenAI Responses: {@link toOpenAIResponsesTools} plus `system`, for the request's `instructions`. */
export function toOpenAIResponsesRequest(input: RequestInput, options: OpenAIDeclarationOptions = {}): ProviderRequest<OpenAIResponsesTool> {
  return request(input, (tools) => toOpenAIResponsesTools(tools, options))
}

/** Anthropic Messages: {@link toAnthropicTools} plus `system`, for the request's `system`. */
export function toAnthropicRequest(input: RequestInput, options: DeclarationOptions = {}): ProviderRequest<AnthropicTool> {
  return request(input, (tools) => toAnthropicTools(tools, options))
}

/**
 * Gemini: {@link toGeminiTools} plus `system`, for `config.systemInstruction` (send the tools as
 * `tools: [{ functionDeclarations: req.tools }]`).
 */
export function toGeminiRequest(input: RequestInput, options: DeclarationOptions = {}): ProviderRequest<GeminiFunctionDeclaration> {
  return request(input, (tools) => toGeminiTools(tools, options))
}
