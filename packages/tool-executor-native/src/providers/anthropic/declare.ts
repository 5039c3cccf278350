/**
 * Anthropic Messages tool declarations (`tools: [{ name, description, input_schema }]`).
 * Source: Anthropic tool-use guide (names `^[a-zA-Z0-9_-]{1,64}$`; `input_schema` an object
 * schema without root `oneOf`/`allOf`/`anyOf`); `defer_loading` from the tool-search guide.
 */
import type { JsonValue } from '@deepseek-ai/dsh-tools'
import { buildDeclarations } from '../declare'
import { ANTHROPIC_NAME_RULE } from '../names'
import { convertAnthropic } from '../schema/profiles'
import type { DeclarationInput, DeclarationOptions, Declarations } from '../types'

/** An Anthropic `input_schema`: always an object schema at the root. */
export interface AnthropicInputSchema {
  readonly type: 'object'
  readonly [keyword: string]: JsonValue
}

/** One Anthropic client tool. */
export interface AnthropicTool {
  readonly name: string
  readonly description: string
  readonly input_schema: AnthropicInputSchema
  /**
   * Present when the tool was registered with `deferLoading: true`: Anthropic's tool search then
   * loads the declaration on demand instead of sending it with every request.
   */
  readonly defer_loading?: true
}

/**
 * Declares `input.tools` for Anthropic Messages: names mapped, local `$ref`s inlined (recursive
 * ones kept through `$defs`), the root made a plain object schema; `deferLoading` carried as
 * `defer_loading: true`.
 */
export function toAnthropicTools(input: DeclarationInput, options: DeclarationOptions = {}): Declarations<AnthropicTool> {
  return buildDeclarations(
    input,
    ANTHROPIC_NAME_RULE,
    convertAnthropic,
    ({ tool, wireName, description, converted }) => ({
      name: wireName,
      description,
      // normalizeRoot guarantees `type: "object"` at the root.
      input_schema: converted.schema as AnthropicInputSchema,
      ...(tool.deferLoading === true ? { defer_loading: true as const } : {}),
    }),
    options,
    'toAnthropicRequest()',
  )
}
