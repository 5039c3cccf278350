/** Real-data fixtures for the provider tests (read from the testkit's copy, never from /work/shared). */
import { readFileSync, readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { JsonSchemaNode, JsonValue, ToolSchema } from '@deepseek-ai/dsh-tools'
import type { ConversionWarning } from '../src/providers'

const REAL = fileURLToPath(new URL('../../tool-testkit/fixtures/real/', import.meta.url))

function readJson<T>(relative: string): T {
  return JSON.parse(readFileSync(`${REAL}${relative}`, 'utf8')) as T
}

/** A one-tool declaration input (`t`, description `d`) with `parameters` taken as given, unchecked. */
export const one = (parameters: unknown, name = 't'): { tools: ToolSchema[] } => ({ tools: [{ name, description: 'd', parameters: parameters as JsonSchemaNode }] })

/** Conversion warnings as `CODE /pointer` lines, for exact comparison. */
export const brief = (warnings: readonly ConversionWarning[]): string[] => warnings.map((w) => `${w.code} ${w.pointer}`)

/** One provider emission example (`model-outputs/provider_emissions.json`). */
export interface EmissionExample {
  readonly id: string
  readonly provider: string
  readonly api: string
  readonly kind: string
  readonly tool_schema?: JsonValue
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- raw provider payloads of many shapes
  readonly payload: any
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the expectation's shape differs per example
  readonly expected: any
}

export function emissionExamples(): EmissionExample[] {
  return readJson<{ examples: EmissionExample[] }>('model-outputs/provider_emissions.json').examples
}

/** One bug case (`cases/bug_cases.json`). */
export interface BugCase {
  readonly id: string
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the input's shape differs per case
  readonly input: any
  readonly expected: string
}

export function bugCase(id: string): BugCase {
  const found = readJson<BugCase[]>('cases/bug_cases.json').find((c) => c.id === id)
  if (!found) throw new Error(`bug case ${id} not found`)
  return found
}

/** The MCP `tools/list` fixtures as tool schemas, by file name. */
export function mcpToolLists(): { file: string; tools: ToolSchema[] }[] {
  return readdirSync(`${REAL}mcp`)
    .filter((file) => file.endsWith('.json') && file !== 'calls.sample.json')
    .sort()
    .map((file) => ({
      file,
      tools: readJson<{ tools: { name: string; description?: string; inputSchema: JsonValue }[] }>(`mcp/${file}`).tools.map((t) => ({
        name: t.name,
        description: t.description ?? '',
        parameters: t.inputSchema as ToolSchema['parameters'],
      })),
    }))
}

/** BFCL functions as JSON Schema with the name BFCL itself sends to OpenAI-style APIs. */
export function bfclFunctions(): { entry: string; name: string; openaiSafeName: string; tool: ToolSchema }[] {
  const data = readJson<{ entries: { id: string; functions_json_schema: { name: string; openai_safe_name: string; description: string; parameters: JsonValue }[] }[] }>('bfcl/bfcl_subset.json')
  return data.entries.flatMap((entry) =>
    entry.functions_json_schema.map((f) => ({
      entry: entry.id,
      name: f.name,
      openaiSafeName: f.openai_safe_name,
      tool: { name: f.name, description: f.description, parameters: f.parameters as ToolSchema['parameters'] },
    })),
  )
}

/** One ToolBench trace (`model-outputs/toolbench_problem_calls.json`): a legacy `function_call` the run rejected. */
export interface ToolbenchTrace {
  readonly source: string
  readonly name: string
  readonly arguments_raw: string
  readonly problem: string
  readonly schema: JsonValue
}

export function toolbenchTraces(): ToolbenchTrace[] {
  return readJson<ToolbenchTrace[]>('model-outputs/toolbench_problem_calls.json')
}
