/**
 * One tool's parameters through one provider's sanitizer, without building a declaration
 * (for inspecting what a provider will receive, or for a provider shape this module does not
 * build). The declaration builders use the same pipelines.
 */
import { deepFreeze, type JsonObject, type ToolSchema } from '@deepseek-ai/dsh-tools'
import { PARAMETERS_POINTER } from './declare'
import { ConversionFailure, Origins, Report, copyJson } from './schema/json'
import { convertAnthropic, convertGemini, convertOpenAIFamily } from './schema/profiles'
import type { ConversionError, ConversionWarning, WireProvider } from './types'

/** Options of {@link sanitizeToolParameters}. */
export interface SanitizeOptions {
  /** Strict mode for `openai-chat`, `openai-responses`, `deepseek` and `openai-compatible`. */
  readonly strict?: boolean
}

/**
 * The outcome: the schema to send (`undefined` for a Gemini tool without arguments), whether it
 * is strict, and every change; or the error that excludes the tool. Names are not mapped here.
 */
export type SanitizedParameters =
  | { readonly ok: true; readonly parameters: JsonObject | undefined; readonly strict: boolean; readonly warnings: readonly ConversionWarning[] }
  | { readonly ok: false; readonly error: ConversionError }

/** Runs `tool.parameters` through `provider`'s sanitizer (see the declaration builders). */
export function sanitizeToolParameters(provider: WireProvider, tool: ToolSchema, options: SanitizeOptions = {}): SanitizedParameters {
  const report = new Report(tool.name)
  const origins = new Origins()
  try {
    const parameters = copyJson(tool.parameters === undefined ? true : tool.parameters, PARAMETERS_POINTER)
    let schema: JsonObject | undefined
    let strict = false
    if (provider === 'anthropic') schema = convertAnthropic(parameters, report, origins).schema
    else if (provider === 'gemini') schema = convertGemini(parameters, report, origins, tool).schema
    else {
      const result = convertOpenAIFamily(parameters, report, origins, tool, {
        strict: options.strict === true,
        compatible: provider === 'deepseek' || provider === 'openai-compatible',
      })
      schema = result.schema
      strict = result.strict
    }
    return deepFreeze({ ok: true as const, parameters: schema, strict, warnings: report.warnings })
  } catch (error) {
    if (!(error instanceof ConversionFailure)) throw error
    return deepFreeze({ ok: false as const, error: { tool: tool.name, pointer: error.pointer, code: error.code, message: `tool ${JSON.stringify(tool.name)}: ${error.message}` } })
  }
}
