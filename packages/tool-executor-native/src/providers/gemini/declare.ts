/**
 * Gemini function declarations (`tools: [{ functionDeclarations: [...] }]`).
 * Source: Gemini API reference, `FunctionDeclaration` and `Schema`.
 */
import type { JsonObject } from '@deepseek-ai/dsh-tools'
import { buildDeclarations } from '../declare'
import { GEMINI_NAME_RULE } from '../names'
import { convertGemini } from '../schema/profiles'
import type { DeclarationInput, DeclarationOptions, Declarations } from '../types'

/**
 * One Gemini function declaration. `parameters` is absent for a tool without declared
 * arguments. Send them as `tools: [{ functionDeclarations: result.tools }]`.
 */
export interface GeminiFunctionDeclaration {
  readonly name: string
  readonly description: string
  readonly parameters?: JsonObject
}

/**
 * Declares `input.tools` for Gemini: names mapped to Gemini's rule, schemas reduced to the
 * OpenAPI subset (see `toGeminiParameters`): `$ref` inlined (recursive → degraded), no
 * `additionalProperties`, `nullable` instead of null unions, string-only enums, objects with
 * properties, arrays with items.
 */
export function toGeminiTools(input: DeclarationInput, options: DeclarationOptions = {}): Declarations<GeminiFunctionDeclaration> {
  return buildDeclarations(
    input,
    GEMINI_NAME_RULE,
    convertGemini,
    ({ wireName, description, converted }) => (converted.schema === undefined ? { name: wireName, description } : { name: wireName, description, parameters: converted.schema }),
    options,
    'toGeminiRequest()',
  )
}
