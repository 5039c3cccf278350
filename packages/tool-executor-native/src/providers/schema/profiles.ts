/**
 * The per-provider sanitizer pipelines: `$ref` inlining → root normalization → the provider's
 * own pass. Each returns the schema to send plus the strict flag where one applies.
 */
import type { JsonObject, JsonValue, ToolSchema } from '@deepseek-ai/dsh-tools'
import { PARAMETERS_POINTER, type ConvertedTool } from '../declare'
import { ensureArrayItems } from './arrays'
import { rewriteTypeArrays } from './compat'
import { toGeminiParameters } from './gemini'
import { Origins, Report } from './json'
import { inlineRefs } from './refs'
import { normalizeRoot } from './root'
import { StrictUnavailable, toStrictSchema, type NullableStyle } from './strict'

/** Options of the OpenAI-family pipelines. */
export interface OpenAIFamilyOptions {
  /** Request strict mode (falls back to `strict: false` per tool when impossible). */
  readonly strict: boolean
  /** DeepSeek / OpenAI-compatible: degrade recursive refs, rewrite type arrays, widen with anyOf. */
  readonly compatible: boolean
}

/** OpenAI Chat/Responses and DeepSeek/OpenAI-compatible parameters. */
export function convertOpenAIFamily(parameters: JsonValue, report: Report, origins: Origins, tool: ToolSchema, options: OpenAIFamilyOptions): ConvertedTool<JsonObject> & { readonly strict: boolean } {
  dropDeferLoading(tool, report)
  const inlined = inlineRefs(parameters, PARAMETERS_POINTER, options.compatible ? 'degrade' : 'keep', report, origins)
  let schema = normalizeRoot(inlined, PARAMETERS_POINTER, report, origins, { requireProperties: true })
  if (options.compatible) schema = rewriteTypeArrays(schema, PARAMETERS_POINTER, report, origins)
  schema = ensureArrayItems(schema, PARAMETERS_POINTER, report, origins)
  if (!options.strict) return { schema, strict: false }
  const tentative = new Report(report.tool)
  const style: NullableStyle = options.compatible ? 'any-of' : 'type-array'
  try {
    const strictSchema = toStrictSchema(schema, PARAMETERS_POINTER, tentative, origins, style)
    report.absorb(tentative)
    return { schema: strictSchema, strict: true }
  } catch (error) {
    if (!(error instanceof StrictUnavailable)) throw error
    report.warn(error.pointer, 'STRICT_UNAVAILABLE', `strict mode unavailable: ${error.message}; declared with strict: false`)
    return { schema, strict: false }
  }
}

/** Anthropic `input_schema`: refs inlined (recursive ones kept), root normalized. */
export function convertAnthropic(parameters: JsonValue, report: Report, origins: Origins): ConvertedTool<JsonObject> {
  const inlined = inlineRefs(parameters, PARAMETERS_POINTER, 'keep', report, origins)
  return { schema: normalizeRoot(inlined, PARAMETERS_POINTER, report, origins, { requireProperties: false }) }
}

/** Gemini `parameters` (OpenAPI subset); `undefined` for a tool without declared arguments. */
export function convertGemini(parameters: JsonValue, report: Report, origins: Origins, tool: ToolSchema): ConvertedTool<JsonObject | undefined> {
  dropDeferLoading(tool, report)
  const inlined = inlineRefs(parameters, PARAMETERS_POINTER, 'degrade', report, origins)
  const root = normalizeRoot(inlined, PARAMETERS_POINTER, report, origins, { requireProperties: false })
  return { schema: toGeminiParameters(root, PARAMETERS_POINTER, report, origins) }
}

function dropDeferLoading(tool: ToolSchema, report: Report): void {
  if (tool.deferLoading === true) {
    report.warn('/deferLoading', 'DEFER_LOADING_DROPPED', 'deferLoading is not carried by this provider\'s tool declaration; the tool is declared normally')
  }
}
