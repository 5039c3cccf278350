/**
 * Python identifiers for tool and argument names. The SDK shows the sanitised names; the
 * runtime maps them back to the real ones on every call, so both must come from here.
 *
 * Rules: ASCII letters, digits and `_` are kept and every other character (Unicode included:
 * Python would NFKC-normalise it, so two different tool names could become one identifier)
 * becomes `_`; a leading digit gets a `_` prefix; an empty name becomes `tool` / `arg`; a
 * keyword (`class`, `from`, `None`, …) gets a `_` suffix; a leading `__` gets a `t` prefix
 * (inside `class tools:` Python would mangle it); a name taken by an earlier one (in
 * lexicographic order of the original names) gets `_2`, `_3`, ….
 */
import { resolveJsonPointer } from '@deepseek-ai/dsh-tools'
import { compareCodeUnits, type SdkTool } from '@deepseek-ai/dsh-tool-executor-ptc'

/** Python's hard keywords (3.14): never valid identifiers. */
export const PYTHON_KEYWORDS: ReadonlySet<string> = new Set([
  'False', 'None', 'True', 'and', 'as', 'assert', 'async', 'await', 'break', 'class', 'continue', 'def', 'del', 'elif', 'else', 'except',
  'finally', 'for', 'from', 'global', 'if', 'import', 'in', 'is', 'lambda', 'nonlocal', 'not', 'or', 'pass', 'raise', 'return', 'try',
  'while', 'with', 'yield',
])

/** Whether `name` can be written as a Python identifier as is (ASCII, not a keyword). */
export function isPlainIdentifier(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !PYTHON_KEYWORDS.has(name)
}

/** The sanitised form of one name (see the module comment), before collision suffixes. */
export function pythonIdentifier(name: string, fallback: string): string {
  let id = name.replace(/[^A-Za-z0-9_]/g, '_')
  if (id === '') id = fallback
  if (/^[0-9]/.test(id)) id = `_${id}`
  if (id.startsWith('__')) id = `t${id}`
  if (PYTHON_KEYWORDS.has(id)) id = `${id}_`
  return id
}

/** Assigns unique identifiers to `names` (in lexicographic order of the names); returns name → identifier. */
export function uniqueIdentifiers(names: readonly string[], fallback: string, taken: Iterable<string> = []): Map<string, string> {
  const used = new Set(taken)
  const out = new Map<string, string>()
  for (const name of [...new Set(names)].sort(compareCodeUnits)) {
    const base = pythonIdentifier(name, fallback)
    let id = base
    for (let i = 2; used.has(id); i++) id = `${base}_${i}`
    used.add(id)
    out.set(name, id)
  }
  return out
}

/** One tool as a program calls it. */
export interface PythonToolName {
  /** The tool's real name (the binding key). */
  readonly name: string
  /** `tools.<py>` in the program. */
  readonly py: string
  /** Keyword argument → JSON property name, for the keywords that differ from their property. */
  readonly renamed: Readonly<Record<string, string>>
}

/** The identifiers of a tool set: tool names and top-level argument names, mapped both ways. */
export function pythonToolNames(tools: readonly SdkTool[]): PythonToolName[] {
  const names = tools.map((t) => (typeof t?.name === 'string' ? t.name : String(t?.name)))
  const toolIds = uniqueIdentifiers(names, 'tool')
  return tools.map((tool, i) => {
    const name = names[i] as string
    const renamed: Record<string, string> = {}
    for (const [json, py] of argumentIdentifiers(tool.parameters)) if (json !== py) renamed[py] = json
    return { name, py: toolIds.get(name) as string, renamed }
  })
}

/** A JSON Schema object node. */
export type Schema = { readonly [keyword: string]: unknown }

/** Whether `value` is a JSON object (not an array, not null). */
export function isObject(value: unknown): value is Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** Resolves a local `$ref` (`#`, `#/…` JSON pointer, percent-decoded) against `root` with the core's resolver; `undefined` for anything else. */
export function resolvePointer(root: unknown, ref: string): unknown {
  if (ref === '#') return root
  if (!ref.startsWith('#/')) return undefined
  try {
    return resolveJsonPointer(root, decodeURIComponent(ref.slice(1)))
  } catch {
    return undefined
  }
}

/** One object schema from `schema` and the object branches of `all` (local refs resolved against `root`); `undefined` when a branch has no properties. */
export function mergeAllOf(schema: Schema, all: readonly unknown[], root: unknown): Schema | undefined {
  const properties: Record<string, unknown> = isObject(schema.properties) ? { ...schema.properties } : {}
  const required = new Set<string>(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [])
  for (let branch of all) {
    if (isObject(branch) && typeof branch.$ref === 'string') branch = resolvePointer(root, branch.$ref)
    if (!isObject(branch) || !isObject(branch.properties)) return undefined
    Object.assign(properties, branch.properties)
    if (Array.isArray(branch.required)) for (const r of branch.required) if (typeof r === 'string') required.add(r)
  }
  return { ...schema, allOf: undefined, type: 'object', properties, required: [...required] }
}

/** The argument object schema of a tool: its parameters, with a top-level `allOf` of objects merged. */
export function argumentSchema(parameters: unknown): Schema | undefined {
  if (!isObject(parameters)) return undefined
  if (Array.isArray(parameters.allOf) && parameters.allOf.length > 0) return mergeAllOf(parameters, parameters.allOf, parameters) ?? parameters
  return parameters
}

/** JSON property → keyword identifier for the top-level properties of an argument schema (after {@link argumentSchema}). */
export function argumentIdentifiers(schema: unknown): Map<string, string> {
  const parameters = argumentSchema(schema)
  if (parameters === undefined) return new Map()
  const props = parameters.properties
  const required = parameters.required
  const names: string[] = []
  if (props !== null && typeof props === 'object' && !Array.isArray(props)) names.push(...Object.keys(props))
  if (Array.isArray(required)) for (const r of required) if (typeof r === 'string') names.push(r)
  // Plain names keep themselves; only the others are renamed, around them.
  const plain = names.filter(isPlainIdentifier)
  const out = new Map<string, string>(plain.map((n) => [n, n]))
  for (const [json, py] of uniqueIdentifiers(
    names.filter((n) => !isPlainIdentifier(n)),
    'arg',
    plain,
  ))
    out.set(json, py)
  return out
}
