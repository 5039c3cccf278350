/**
 * Loaders for the real-world fixtures in `fixtures/real/` (provenance and licenses:
 * `fixtures/real/SOURCES.md`). Paths are resolved from this module (`import.meta.url`), so the
 * loaders work from `src/` and from a built `dist/`. Every loader reads and parses the files
 * afresh (synchronously) and returns detached data; nothing is edited.
 *
 * Source: docs/design.md, "Testkit" (the real-data fixtures: MCP tool lists, BFCL functions and calls,
 * with their provenance) and "Reliability" (every schema in the real-data fixtures registers without
 * throwing. The bug cases … are regression tests.").
 */
import { readdirSync, readFileSync } from 'node:fs'
import type { JsonObject, JsonSchemaNode, JsonValue } from '@deepseek-ai/dsh-tools'

const FIXTURES = new URL('../fixtures/real/', import.meta.url)

function readJson(relative: string): unknown {
  return JSON.parse(readFileSync(new URL(relative, FIXTURES), 'utf8')) as unknown
}

function readJsonLines(relative: string): unknown[] {
  return readFileSync(new URL(relative, FIXTURES), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as unknown)
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function fail(file: string, detail: string): never {
  throw new Error(`real-data fixture ${file}: ${detail}`)
}

// ---------------------------------------------------------------------------------------------
// MCP
// ---------------------------------------------------------------------------------------------

/** One tool of an MCP `tools/list` answer. */
export interface McpToolFixture {
  readonly name: string
  /** `''` when the server sent none. */
  readonly description: string
  readonly inputSchema: JsonSchemaNode
  /** Present when the server declares structured output (e.g. filesystem, memory). */
  readonly outputSchema?: JsonSchemaNode
  readonly title?: string
  /** MCP tool annotations (`readOnlyHint`, …) when present. */
  readonly annotations?: JsonObject
}

/** One `fixtures/real/mcp/*.tools*.json` file. */
export interface McpToolList {
  /** File name, e.g. `server-filesystem.tools.json`. */
  readonly file: string
  /**
   * Server id derived from the file name: the part before the first `.`, without the
   * `server-` / `thirdparty__` prefix (`filesystem`, `everything`, `playwright__mcp`).
   */
  readonly server: string
  /** The variant between the server id and `.tools`, e.g. `full-caps` (`server-everything.full-caps.tools.json`). */
  readonly variant?: string
  /** `serverInfo` of the dump (`name`, `version`, …) when recorded. */
  readonly serverInfo?: JsonObject
  /** How the list was obtained (npm package and version, or repo/path/commit for `*.from-source.json`). */
  readonly source: JsonObject
  readonly tools: readonly McpToolFixture[]
}

function serverOf(file: string): { server: string; variant?: string } {
  const stem = file.slice(0, file.indexOf('.tools'))
  const [head = stem, ...rest] = stem.split('.')
  const server = head.replace(/^server-/, '').replace(/^thirdparty__/, '')
  return rest.length > 0 ? { server, variant: rest.join('.') } : { server }
}

/**
 * Every MCP `tools/list` fixture (`fixtures/real/mcp/*.tools*.json`), sorted by file name:
 * the official servers dumped over stdio (modelcontextprotocol/servers: everything 13 and 16
 * with full capabilities, filesystem 14, github 26, memory 9, sequential-thinking 1), the Python
 * servers' schemas generated from source (git 12, fetch 1, time 2; pydantic style) and six
 * third-party servers (brave search 8, chrome-devtools 32, kubernetes 23, playwright 25,
 * tavily 5, context7 2) — 189 tools. The files share `{ source, serverInfo?, tools }` but
 * tools differ in the optional members they carry (`title`, `outputSchema`, `annotations`,
 * `execution`, `annotations_source`); this loader keeps the members listed in
 * {@link McpToolFixture}. Throws naming the file when a tool lacks `name` or `inputSchema`.
 */
export function loadMcpToolLists(): McpToolList[] {
  const files = readdirSync(new URL('mcp/', FIXTURES))
    .filter((file) => /\.tools(\.[\w-]+)*\.json$/.test(file))
    .sort()
  return files.map((file) => {
    const data = readJson(`mcp/${file}`)
    if (!isObject(data) || !Array.isArray(data.tools)) fail(file, 'expected { tools: [...] }')
    const tools = data.tools.map((tool, index): McpToolFixture => {
      if (!isObject(tool) || typeof tool.name !== 'string') fail(file, `tools[${index}] has no name`)
      const inputSchema = tool.inputSchema
      if (typeof inputSchema !== 'boolean' && !isObject(inputSchema)) fail(file, `tool ${tool.name} has no inputSchema`)
      return {
        name: tool.name,
        description: typeof tool.description === 'string' ? tool.description : '',
        inputSchema,
        ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema as JsonSchemaNode }),
        ...(typeof tool.title === 'string' ? { title: tool.title } : {}),
        ...(isObject(tool.annotations) ? { annotations: tool.annotations as JsonObject } : {}),
      }
    })
    return {
      file,
      ...serverOf(file),
      ...(isObject(data.serverInfo) ? { serverInfo: data.serverInfo as JsonObject } : {}),
      source: (isObject(data.source) ? data.source : {}) as JsonObject,
      tools,
    }
  })
}

/** One recorded MCP `tools/call` exchange. */
export interface McpCallSample {
  /** Server id as in {@link McpToolList.server} (`everything`, `filesystem`, `memory`, `sequential-thinking`). */
  readonly server: string
  readonly request: { readonly name: string; readonly arguments: JsonObject }
  readonly result: {
    readonly content: readonly JsonObject[]
    readonly isError?: boolean
    readonly structuredContent?: JsonValue
  }
}

/**
 * The 26 real `tools/call` request/response pairs of `mcp/calls.sample.json`, in file order,
 * recorded by the project against the npm servers over stdio; many carry deliberately bad
 * arguments. A server-side schema rejection shows as an `isError` result whose text contains
 * `Input validation error`.
 */
export function loadMcpCallSamples(): McpCallSample[] {
  const data = readJson('mcp/calls.sample.json')
  if (!isObject(data) || !Array.isArray(data.calls)) fail('mcp/calls.sample.json', 'expected { calls: [...] }')
  return data.calls as McpCallSample[]
}

// ---------------------------------------------------------------------------------------------
// BFCL
// ---------------------------------------------------------------------------------------------

/** A function in the BFCL dialect (`type: 'dict' | 'float' | 'tuple' | 'any' | …`). */
export interface BfclFunction {
  /** As published; may contain dots (`spotify.play`), kept as is. */
  readonly name: string
  readonly description: string
  readonly parameters: JsonObject
}

/** A BFCL function converted to JSON Schema by BFCL's own mapping. */
export interface BfclJsonSchemaFunction {
  readonly name: string
  /** `name` with dots replaced by `_` (OpenAI-style `^[a-zA-Z0-9_-]{1,64}$`). */
  readonly openai_safe_name: string
  readonly description: string
  readonly parameters: JsonObject
}

/** One call: a function name (as published) and its arguments. */
export interface BfclCall {
  readonly name: string
  readonly arguments: JsonObject
}

/** One entry of `bfcl/bfcl_subset.json`. */
export interface BfclSubsetEntry {
  /** e.g. `simple_python_0`, `live_multiple_87-38-4`. */
  readonly id: string
  readonly category: string
  readonly question: JsonValue
  readonly functions: readonly BfclFunction[]
  readonly functions_json_schema: readonly BfclJsonSchemaFunction[]
  /** Per call: function name → parameter → list of acceptable values (`""` = may be omitted). */
  readonly ground_truth: readonly JsonObject[]
  /** One concrete call per ground-truth call (first acceptable value; `""` params omitted). */
  readonly example_call: readonly BfclCall[]
  readonly dialect_types: readonly string[]
  readonly extra_keywords: readonly string[]
}

/** `bfcl/bfcl_subset.json`: provenance (`meta.source`, `meta.license`, `meta.format_notes`) and entries. */
export interface BfclSubset {
  readonly meta: JsonObject
  readonly entries: readonly BfclSubsetEntry[]
}

/**
 * The BFCL v4 subset (131 entries: simple_python 45, parallel 30, multiple 22,
 * parallel_multiple 14, live_simple 12, live_multiple 8) from ShishirPatil/gorilla
 * (Berkeley Function Calling Leaderboard, Apache-2.0), with each entry's functions in the BFCL
 * dialect, the same functions as JSON Schema, ground truth and one `example_call`.
 */
export function loadBfclSubset(): BfclSubset {
  const data = readJson('bfcl/bfcl_subset.json')
  if (!isObject(data) || !Array.isArray(data.entries)) fail('bfcl/bfcl_subset.json', 'expected { meta, entries }')
  return { meta: (data.meta ?? {}) as JsonObject, entries: data.entries as BfclSubsetEntry[] }
}

/** One function of a raw BFCL question file, with where it came from. */
export interface BfclRawFunction extends BfclFunction {
  /** The question entry id, e.g. `live_multiple_0-0-0`. */
  readonly entryId: string
  /** The category from the file name, e.g. `live_multiple`. */
  readonly category: string
  /** File name under `bfcl/raw/`. */
  readonly file: string
}

/** One raw BFCL question entry with its functions and, when published, its ground truth. */
export interface BfclRawEntry {
  readonly id: string
  readonly category: string
  readonly file: string
  readonly question: JsonValue
  readonly functions: readonly BfclFunction[]
  /** From `possible_answer_<file>` (absent for `irrelevance`, which has no answers). */
  readonly groundTruth?: readonly JsonObject[]
}


/**
 * The untouched BFCL v4 question files of `bfcl/raw/` (JSON Lines; 7 categories: irrelevance,
 * live_multiple, live_simple, multiple, parallel, parallel_multiple, simple_python) with their
 * `possible_answer_*` ground truth; ShishirPatil/gorilla, Apache-2.0. Sorted by file, then
 * file order.
 */
export function loadBfclRawEntries(): BfclRawEntry[] {
  const entries: BfclRawEntry[] = []
  const available = new Set(readdirSync(new URL('bfcl/raw/', FIXTURES)))
  const questionFiles = [...available].filter((file) => /^BFCL_v4_.*\.json$/.test(file)).sort()
  for (const file of questionFiles) {
    const category = file.replace(/^BFCL_v4_/, '').replace(/\.json$/, '')
    const answers = new Map<string, readonly JsonObject[]>()
    if (available.has(`possible_answer_${file}`)) {
      for (const line of readJsonLines(`bfcl/raw/possible_answer_${file}`)) {
        if (isObject(line) && typeof line.id === 'string' && Array.isArray(line.ground_truth)) {
          answers.set(line.id, line.ground_truth as JsonObject[])
        }
      }
    }
    for (const line of readJsonLines(`bfcl/raw/${file}`)) {
      if (!isObject(line) || typeof line.id !== 'string' || !Array.isArray(line.function)) fail(`bfcl/raw/${file}`, 'expected { id, function: [...] } lines')
      const groundTruth = answers.get(line.id)
      entries.push({
        id: line.id,
        category,
        file,
        question: (line.question ?? null) as JsonValue,
        functions: line.function as BfclFunction[],
        ...(groundTruth === undefined ? {} : { groundTruth }),
      })
    }
  }
  return entries
}

/**
 * Every function definition of the raw BFCL question files (6,353 in the 7 copied categories),
 * flattened in entry order, in the BFCL dialect; normalise with {@link normalizeBfclSchema}.
 * Names with dots are kept as published.
 */
export function loadBfclRawFunctions(): BfclRawFunction[] {
  return loadBfclRawEntries().flatMap((entry) =>
    entry.functions.map((fn) => ({ ...fn, entryId: entry.id, category: entry.category, file: entry.file })),
  )
}

/**
 * BFCL dialect → JSON Schema `type`, as {@link normalizeBfclSchema} applies it:
 *
 * | BFCL      | JSON Schema                              |
 * |-----------|------------------------------------------|
 * | `dict`    | `object`                                 |
 * | `float`   | `number`                                 |
 * | `tuple`   | `array`                                  |
 * | `any`     | no `type` (unconstrained, `{}`)          |
 * | `integer` `string` `boolean` `array` (and `object` `number` `null`) | kept |
 *
 * Differs from BFCL's own converter (`type_mappings.py`) only for `any`, which BFCL maps to
 * `string`; "any" means any JSON value here. Unknown type names are left unchanged (so
 * `checkSchema` reports them).
 */
export const BFCL_TYPE_MAP: Readonly<Record<string, string | null>> = Object.freeze({
  dict: 'object',
  float: 'number',
  tuple: 'array',
  any: null,
  integer: 'integer',
  string: 'string',
  boolean: 'boolean',
  array: 'array',
  object: 'object',
  number: 'number',
  null: 'null',
})

/** Defines an own enumerable property (plain assignment of `__proto__` would set the prototype). */
function setOwn(target: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

function normalizeNode(node: JsonValue): JsonValue {
  if (!isObject(node)) return node
  const out: JsonObject = {}
  for (const [key, value] of Object.entries(node as JsonObject)) {
    if (key === 'type' && typeof value === 'string' && Object.prototype.hasOwnProperty.call(BFCL_TYPE_MAP, value)) {
      const mapped = BFCL_TYPE_MAP[value]
      if (mapped !== null && mapped !== undefined) out.type = mapped
    } else if (key === 'properties' && isObject(value)) {
      const properties: JsonObject = {}
      for (const [name, sub] of Object.entries(value as JsonObject)) setOwn(properties, name, normalizeNode(sub))
      out.properties = properties
    } else if ((key === 'items' || key === 'additionalProperties') && isObject(value)) {
      out[key] = normalizeNode(value)
    } else if (key === 'items' && Array.isArray(value)) {
      out.items = value.map(normalizeNode)
    } else {
      setOwn(out, key, value)
    }
  }
  return out
}

/**
 * Maps a BFCL-dialect parameters schema to JSON Schema with {@link BFCL_TYPE_MAP}, recursively
 * through `properties`, `items` and `additionalProperties`. Every other keyword (including
 * BFCL's non-standard `optional`, and `default`, `enum`, `required`) is kept. Returns a new
 * object; the input is not modified.
 */
export function normalizeBfclSchema(parameters: JsonValue): JsonObject {
  const normalized = normalizeNode(parameters)
  return isObject(normalized) ? (normalized as JsonObject) : {}
}

/** One BFCL ground-truth call that violates its own schema. */
export interface BfclMismatch {
  /** The BFCL entry id (only some are in the subset). */
  readonly id: string
  /** Function name as published. */
  readonly fn: string
  readonly args: JsonObject
  /** ajv messages as recorded when the file was derived, e.g. `/x must be array`. */
  readonly errors: readonly string[]
}

/**
 * `bfcl/ground_truth_vs_schema_mismatches_all_categories.json`: 26 BFCL ground-truth calls that
 * violate their own JSON Schema (derived from BFCL, Apache-2.0).
 */
export function loadBfclMismatches(): BfclMismatch[] {
  const data = readJson('bfcl/ground_truth_vs_schema_mismatches_all_categories.json')
  if (!Array.isArray(data)) fail('bfcl/ground_truth_vs_schema_mismatches_all_categories.json', 'expected an array')
  return data as BfclMismatch[]
}

// ---------------------------------------------------------------------------------------------
// Bug cases
// ---------------------------------------------------------------------------------------------

/** One failure reported against another agent framework, re-expressed as neutral input. */
export interface BugCase {
  /** `B01` … `B22` (each explained in docs/glossary.md, "Bug cases"). */
  readonly id: string
  /** The issue or pull request it comes from. */
  readonly source: { readonly repo: string; readonly number: number; readonly type: string; readonly url: string }
  /** e.g. `schema-ref`, `validation-null-optional`. */
  readonly kind: string
  readonly summary: readonly string[]
  /** Case-specific input (schemas, raw arguments, call lists). */
  readonly input: JsonValue
  /** The expected behaviour, in prose. */
  readonly expected: string
}

/** The 15 bug cases of `cases/bug_cases.json` (summaries in the project's own words; source linked per case). */
export function loadBugCases(): BugCase[] {
  const data = readJson('cases/bug_cases.json')
  if (!Array.isArray(data)) fail('cases/bug_cases.json', 'expected an array')
  return data as BugCase[]
}
