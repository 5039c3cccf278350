/**
 * The declaration driver shared by every provider: validates names, converts each tool's
 * schema alone (a failure excludes only that tool, with an error naming it), assigns the
 * reversible provider names and collects every change as a warning.
 */
import { deepFreeze, type JsonValue, type ToolSchema } from '@deepseek-ai/dsh-tools'
import { assignWireNames, isValidToolName, type NameRule } from './names'
import { ConversionFailure, Origins, Report, copyJson } from './schema/json'
import type { ConversionError, ConversionWarning, DeclarationInput, DeclarationOptions, Declarations } from './types'

/** What a provider's schema conversion returns for one tool. */
export interface ConvertedTool<S> {
  readonly schema: S
  /** Extra fields of the declaration (e.g. `strict`). */
  readonly extra?: Readonly<Record<string, JsonValue>>
}

/** One tool ready to be shaped into the provider's declaration. */
export interface PreparedTool<S> {
  readonly tool: ToolSchema
  readonly wireName: string
  readonly description: string
  readonly converted: ConvertedTool<S>
}

/** The base pointer of a tool's parameters in warnings and errors. */
export const PARAMETERS_POINTER = '/parameters'

/**
 * Runs `convert` on each tool and `shape` on each converted one.
 *
 * @param convert receives a plain-JSON copy of the parameters; throws {@link ConversionFailure}
 *   to exclude the tool.
 */
export function buildDeclarations<S, T>(
  input: DeclarationInput,
  rule: NameRule,
  convert: (parameters: JsonValue, report: Report, origins: Origins, tool: ToolSchema) => ConvertedTool<S>,
  shape: (prepared: PreparedTool<S>) => T,
  options: DeclarationOptions = {},
  requestHelper = 'the provider\'s request helper',
): Declarations<T> {
  const errors: ConversionError[] = []
  const seen = new Set<string>()
  const converted: { tool: ToolSchema; report: Report; result: ConvertedTool<S> }[] = []
  const tools: readonly ToolSchema[] = Array.isArray(input?.tools) ? input.tools : []
  for (const tool of tools) {
    const name: unknown = tool?.name
    if (typeof name !== 'string' || name === '') {
      errors.push({ tool: typeof name === 'string' ? name : String(name), pointer: '/name', code: 'NAME_INVALID', message: `tool name must be a non-empty string, got ${JSON.stringify(name) ?? String(name)}` })
      continue
    }
    if (seen.has(name)) {
      errors.push({ tool: name, pointer: '/name', code: 'NAME_DUPLICATE', message: `tool ${JSON.stringify(name)} appears more than once; only the first is declared` })
      continue
    }
    seen.add(name)
    const report = new Report(name)
    const origins = new Origins()
    try {
      const parameters = copyJson(tool.parameters === undefined ? true : tool.parameters, PARAMETERS_POINTER)
      converted.push({ tool, report, result: convert(parameters, report, origins, tool) })
    } catch (error) {
      if (!(error instanceof ConversionFailure)) throw error
      errors.push({ tool: name, pointer: error.pointer, code: error.code, message: `tool ${JSON.stringify(name)}: ${error.message}` })
    }
  }
  const nameMap = assignWireNames(
    converted.map((c) => c.tool.name),
    rule,
    options.names,
  )
  const warnings: ConversionWarning[] = []
  const out: T[] = []
  for (const { tool, report, result } of converted) {
    const wireName = nameMap.toWire(tool.name) as string
    if (wireName !== tool.name) {
      const message = isValidToolName(tool.name, rule)
        ? `name ${JSON.stringify(tool.name)} was given to ${JSON.stringify(nameMap.toOriginal(tool.name))} earlier in this conversation; sent as ${JSON.stringify(wireName)}`
        : `name ${JSON.stringify(tool.name)} breaks the provider rule ${rule.description}; sent as ${JSON.stringify(wireName)}`
      warnings.push({ tool: tool.name, pointer: '/name', code: 'NAME_MAPPED', message })
    }
    warnings.push(...report.warnings)
    out.push(shape({ tool, wireName, description: typeof tool.description === 'string' ? tool.description : '', converted: result }))
  }
  const sections: unknown = input?.sections
  if (Array.isArray(sections)) {
    sections.forEach((section: { id?: unknown; title?: unknown } | null, i) => {
      const label = `${JSON.stringify(String(section?.title ?? ''))} (${String(section?.id ?? '')})`
      warnings.push({
        tool: typeof section?.id === 'string' ? section.id : '',
        pointer: `/sections/${i}`,
        code: 'SECTIONS_DROPPED',
        message: `prompt section ${label} is not part of a tools declaration and was left out: the model needs it in the system prompt. Use ${requestHelper}, whose \`system\` holds it, or put sections[].text in the system prompt yourself`,
      })
    })
  }
  // The tools stay unfrozen: SDKs such as @google/genai rewrite a declaration's schema in place.
  return { tools: out, nameMap, warnings: deepFreeze(warnings), errors: deepFreeze(errors) }
}
