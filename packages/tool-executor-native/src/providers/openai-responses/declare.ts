/**
 * OpenAI Responses API tool declarations (`tools: [{ type: "function", name, … }]`).
 * Source: OpenAI Responses API reference (`FunctionTool`: `strict` is required there).
 */
import type { JsonObject } from '@deepseek-ai/dsh-tools'
import { buildDeclarations } from '../declare'
import { OPENAI_NAME_RULE } from '../names'
import { openAIConverter, type OpenAIDeclarationOptions } from '../openai-chat/declare'
import type { DeclarationInput, Declarations } from '../types'

/** One Responses API function tool. */
export interface OpenAIResponsesTool {
  readonly type: 'function'
  readonly name: string
  readonly description: string
  readonly parameters: JsonObject
  /** Always present: the Responses API treats an absent `strict` as `true`. */
  readonly strict: boolean
}

/** Declares `input.tools` for the Responses API; see {@link toOpenAIChatTools} for the sanitizing. */
export function toOpenAIResponsesTools(input: DeclarationInput, options: OpenAIDeclarationOptions = {}): Declarations<OpenAIResponsesTool> {
  const strict = options.strict === true
  return buildDeclarations(
    input,
    OPENAI_NAME_RULE,
    openAIConverter(strict),
    ({ wireName, description, converted }) => ({
      type: 'function' as const,
      name: wireName,
      description,
      parameters: converted.schema,
      strict: converted.extra?.strict === true,
    }),
    options,
    'toOpenAIResponsesRequest()',
  )
}
