/**
 * OpenAI Chat Completions tool declarations (`tools: [{ type: "function", function: {…} }]`),
 * also used by DeepSeek and other OpenAI-compatible servers.
 * Source: OpenAI function-calling guide; DeepSeek function-calling guide.
 */
import type { JsonObject } from '@deepseek-ai/dsh-tools'
import { buildDeclarations } from '../declare'
import { OPENAI_NAME_RULE } from '../names'
import { convertOpenAIFamily } from '../schema/profiles'
import type { DeclarationInput, DeclarationOptions, Declarations } from '../types'

/** One Chat Completions tool. `strict` is present only when strict mode was requested. */
export interface OpenAIChatTool {
  readonly type: 'function'
  readonly function: {
    readonly name: string
    readonly description: string
    readonly parameters: JsonObject
    readonly strict?: boolean
  }
}

/** Options of the OpenAI-family declaration builders (and `names`, the conversation's name map). */
export interface OpenAIDeclarationOptions extends DeclarationOptions {
  /**
   * Request strict mode (Structured Outputs). Each tool that can be made strict gets
   * `strict: true` (optional properties become required + nullable: `STRICT_NULLABLE`
   * warnings, bug case B11); one that cannot gets `strict: false` and a `STRICT_UNAVAILABLE`
   * warning. Default `false`: schemas are sent as they are, after sanitizing.
   */
  readonly strict?: boolean
}

/**
 * The schema conversion shared by Chat Completions and Responses: OpenAI's own profile
 * (`compatible: false`) or the portable DeepSeek / OpenAI-compatible one, with optional strict
 * mode; the per-tool outcome is `extra.strict`.
 */
export function openAIConverter(strict: boolean, compatible = false): Parameters<typeof buildDeclarations<JsonObject, unknown>>[2] {
  return (parameters, report, origins, tool) => {
    const result = convertOpenAIFamily(parameters, report, origins, tool, { strict, compatible })
    return { schema: result.schema, extra: { strict: result.strict } }
  }
}

/** The Chat Completions declarations for either profile. */
function chatTools(input: DeclarationInput, options: OpenAIDeclarationOptions, compatible: boolean): Declarations<OpenAIChatTool> {
  const strict = options.strict === true
  return buildDeclarations(
    input,
    OPENAI_NAME_RULE,
    openAIConverter(strict, compatible),
    ({ wireName, description, converted }) => ({
      type: 'function' as const,
      function: { name: wireName, description, parameters: converted.schema, ...(strict ? { strict: converted.extra?.strict === true } : {}) },
    }),
    options,
    compatible ? 'toOpenAICompatibleRequest()' : 'toOpenAIChatRequest()',
  )
}

/**
 * Declares `input.tools` for OpenAI Chat Completions: names mapped to `^[a-zA-Z0-9_-]{1,64}$`,
 * local `$ref`s inlined (recursive ones kept through `$defs`), the root made a plain object
 * schema with `properties`. Excluded tools are listed in `errors`; every change in `warnings`.
 */
export function toOpenAIChatTools(input: DeclarationInput, options: OpenAIDeclarationOptions = {}): Declarations<OpenAIChatTool> {
  return chatTools(input, options, false)
}

/**
 * Declares `input.tools` for DeepSeek and other OpenAI-compatible chat servers: the Chat
 * Completions shape with portable schemas — recursive `$ref`s degraded (with a warning) instead
 * of kept, union `type` arrays rewritten as `anyOf`, strict widening through `anyOf`.
 */
export function toOpenAICompatibleTools(input: DeclarationInput, options: OpenAIDeclarationOptions = {}): Declarations<OpenAIChatTool> {
  return chatTools(input, options, true)
}

/** DeepSeek (`api.deepseek.com`, OpenAI-compatible): the same as {@link toOpenAICompatibleTools}. */
export const toDeepSeekTools: typeof toOpenAICompatibleTools = toOpenAICompatibleTools
