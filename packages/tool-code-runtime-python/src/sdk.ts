/**
 * The Python SDK the model reads when `run_code` runs Python: a valid Python 3 module (it
 * compiles and executes under the interpreter) with a `TypedDict` per argument and output
 * object and one `async` function per tool inside `class tools:`.
 *
 * Call form: `await tools.search_files(query="refund", limit=5)`. Keyword arguments are how
 * Python code passes named fields; `**args: Unpack[SearchFilesArgs]` (PEP 692) types them with
 * the argument TypedDict, so the model reads one class with the field docs, and a dict it
 * already has still goes in as `tools.x(**d)`. Argument names that are not identifiers
 * (`class`, `max-results`) get sanitised keywords (`class_`, `max_results`) that the runtime maps
 * back; nested objects are plain dicts with their real keys.
 *
 * JSON Schema → Python: `string` → `str`, `integer` → `int`, `number` → `float`, `boolean` →
 * `bool`, `null` → `None`, arrays → `list[T]` (tuples → `list[A | B]`), objects with properties
 * → a named `TypedDict` (optional keys `NotRequired[...]`; keys that are not identifiers use the
 * functional form), other objects → `dict[str, T]`, `enum`/`const` → `Literal[...]`,
 * `oneOf`/`anyOf` → unions, `allOf` of objects → one merged TypedDict, `nullable` → `| None`,
 * local `$ref`s inline (a recursive one becomes a named class referenced as a string).
 * Everything else is `Any`. Deterministic: the same set in any order gives byte-identical text;
 * never throws (a tool whose schemas cannot be rendered gets `**args: Any` → `Any`).
 */
import { compareCodeUnits, pascalCase, schemaRefName, type SdkTool } from '@deepseek-ai/dsh-tool-executor-ptc'
import { argumentIdentifiers, argumentSchema, isPlainIdentifier, isObject, mergeAllOf, pythonToolNames, resolvePointer, type Schema } from './names'

/** Nesting depth past which a schema is rendered as `Any` (as the TypeScript SDK's `MAX_DEPTH`). */
export const PY_MAX_DEPTH = 24

/** The header every Python SDK starts with: how to call, the result rule, the error class. */
export const PY_SDK_PREAMBLE = [
  '# Tools callable from run_code programs (Python 3): `result = await tools.name(arg=value)`; a dict `d` of arguments goes in as `tools.name(**d)`.',
  '# Arguments and results are JSON copies (dict, list, str, int, float, bool, None). A failed call raises ToolCallError (`tool_name`, `message`); independent calls can run together with asyncio.gather.',
  "# The program runs as the body of an async function: print() prints lines; the program's output is the printed lines and the value of a top-level `return` (JSON).",
  'from typing import Any, Literal, NotRequired, TypedDict, Unpack',
  '',
  'class ToolCallError(Exception):',
  '    tool_name: str',
  '    message: str',
].join('\n')

/** Type names the SDK itself uses. */
const RESERVED = new Set(['Any', 'Literal', 'NotRequired', 'TypedDict', 'Unpack', 'ToolCallError', 'tools', 'str', 'int', 'float', 'bool', 'list', 'dict', 'None'])

/**
 * Generates the Python SDK for `tools`: the preamble, the TypedDict classes (dependencies first),
 * and `class tools:` with one `async def` per tool in lexicographic order of the tool names.
 */
export function generatePythonSdk(tools: readonly SdkTool[]): string {
  const sorted = [...tools].sort((a, b) => compareCodeUnits(nameOf(a), nameOf(b)))
  const ids = new Map(pythonToolNames(sorted).map((t) => [t.name, t.py]))
  const classes = new ClassTable()
  const functions: string[] = []
  for (const tool of sorted) functions.push(renderTool(tool, ids.get(nameOf(tool)) as string, classes))
  const body = functions.length === 0 ? ['    pass'] : functions
  return [PY_SDK_PREAMBLE, ...classes.declarations(), '', 'class tools:', body.join('\n\n')].join('\n')
}

function nameOf(tool: SdkTool): string {
  return typeof tool?.name === 'string' ? tool.name : String(tool?.name)
}

function renderTool(tool: SdkTool, py: string, classes: ClassTable): string {
  const doc = docstring(typeof tool.description === 'string' ? tool.description : '', '        ')
  const base = pascalCase(py)
  const mark = classes.mark()
  try {
    const args = renderArgs(tool.parameters, base, classes)
    const output = tool.outputSchema === undefined ? 'Any' : new Renderer(tool.outputSchema, classes).type(tool.outputSchema, `${base}Result`, 0)
    return `    async def ${py}(${args}) -> ${output}:\n${doc === '' ? '        ...' : doc}`
  } catch {
    classes.rollback(mark)
    return `    async def ${py}(**args: Any) -> Any:\n${doc === '' ? '        ...' : doc}`
  }
}

/**
 * The parameter list: `**args: Unpack[XArgs]` for an object with named properties (after
 * merging a top-level `allOf`), nothing for an empty closed object, `**args: T` for a map of
 * `T`, `**args: Any` otherwise.
 */
function renderArgs(schema: unknown, base: string, classes: ClassTable): string {
  const parameters = argumentSchema(schema)
  if (!isObject(parameters)) return '**args: Any'
  const ids = argumentIdentifiers(parameters)
  const renderer = new Renderer(schema, classes)
  if (ids.size === 0) {
    if (parameters.additionalProperties === false) return ''
    if (isObject(parameters.additionalProperties)) return `**args: ${renderer.type(parameters.additionalProperties, `${base}Arg`, 1)}`
    return '**args: Any'
  }
  const name = renderer.typedDict(parameters, `${base}Args`, 0, (key) => ids.get(key) ?? key)
  return `**args: Unpack[${name}]`
}

/** Named TypedDict classes of one SDK, shared by all tools (identical bodies are declared once). */
class ClassTable {
  private readonly names = new Set<string>(RESERVED)
  private readonly byBody = new Map<string, string>()
  private readonly bodies: { name: string; text: string }[] = []

  /** A fresh class name from `hint`. */
  reserve(hint: string): string {
    const base = /^[A-Za-z_]/.test(hint) ? hint : `T${hint}`
    let name = base
    for (let i = 2; this.names.has(name); i++) name = `${base}${i}`
    this.names.add(name)
    return name
  }

  /** Declares `name` with `render(name)` as its text, or returns the existing class with the same body. */
  define(name: string, bodyKey: string, text: string): string {
    const existing = this.byBody.get(bodyKey)
    if (existing !== undefined) {
      this.names.delete(name)
      return existing
    }
    this.byBody.set(bodyKey, name)
    this.bodies.push({ name, text })
    return name
  }

  mark(): { bodies: number; names: Set<string>; byBody: Map<string, string> } {
    return { bodies: this.bodies.length, names: new Set(this.names), byBody: new Map(this.byBody) }
  }

  rollback(mark: ReturnType<ClassTable['mark']>): void {
    this.bodies.length = mark.bodies
    this.names.clear()
    for (const n of mark.names) this.names.add(n)
    this.byBody.clear()
    for (const [k, v] of mark.byBody) this.byBody.set(k, v)
  }

  /** Whether `name` is a declared class. */
  declared(name: string): boolean {
    return this.bodies.some((b) => b.name === name)
  }

  /** Renames the declared class `from` to the reserved name `to` (a recursive ref's class). */
  rename(from: string, to: string): string {
    const entry = this.bodies.find((b) => b.name === from)
    if (entry === undefined) return from
    entry.text = entry.text.replace(new RegExp(`\\b${from}\\b`, 'g'), to)
    entry.name = to
    for (const [k, v] of this.byBody) if (v === from) this.byBody.set(k, to)
    return to
  }

  /** Declares `name = type` (a recursive ref that is not an object). */
  alias(name: string, type: string): string {
    this.bodies.push({ name, text: `${name} = ${type}` })
    return name
  }

  declarations(): string[] {
    return this.bodies.flatMap((b) => ['', b.text])
  }
}

/** Renders the schemas of one root (a tool's parameters or output). */
class Renderer {
  /** Refs being expanded → the class name they get when one turns out recursive. */
  private readonly expanding = new Map<string, { name?: string }>()
  private readonly recursive = new Map<string, string>()

  constructor(
    private readonly root: unknown,
    private readonly classes: ClassTable,
  ) {}

  type(schema: unknown, hint: string, depth: number): string {
    if (depth > PY_MAX_DEPTH || schema === true || schema === undefined || !isObject(schema)) return schema === false ? 'Any' : 'Any'
    if (typeof schema.$ref === 'string') return this.ref(schema.$ref, hint, depth)
    const parts: string[] = []
    const base = this.base(schema, hint, depth)
    if (base !== undefined) parts.push(base)
    for (const keyword of ['oneOf', 'anyOf'] as const) {
      const branches = schema[keyword]
      if (Array.isArray(branches) && branches.length > 0) parts.push(union(branches.map((b, i) => this.type(b, `${hint}${i + 1}`, depth + 1))))
    }
    const all = schema.allOf
    if (Array.isArray(all) && all.length > 0) {
      const merged = mergeAllOf(schema, all, this.root)
      if (merged !== undefined) return nullable(schema, this.typedDict(merged, hint, depth, (k) => k))
      for (const b of all) parts.push(this.type(b, hint, depth + 1))
    }
    // Python has no intersection type: the most specific part wins, `Any` when none.
    const type = parts.find((p) => p !== 'Any') ?? 'Any'
    return nullable(schema, type)
  }

  private base(schema: Schema, hint: string, depth: number): string | undefined {
    if ('const' in schema) return literal([schema.const])
    if (Array.isArray(schema.enum)) return schema.enum.length === 0 ? 'Any' : literal(schema.enum)
    const declared = schema.type
    const types = typeof declared === 'string' ? [declared] : Array.isArray(declared) ? declared.filter((t): t is string => typeof t === 'string') : undefined
    if (types !== undefined) return types.length === 0 ? 'Any' : union(types.map((t) => this.primitive(t, schema, hint, depth)))
    if (isObject(schema.properties) || 'additionalProperties' in schema || Array.isArray(schema.required)) return this.object(schema, hint, depth)
    if ('items' in schema || Array.isArray(schema.prefixItems)) return this.array(schema, hint, depth)
    return undefined
  }

  private primitive(type: string, schema: Schema, hint: string, depth: number): string {
    switch (type) {
      case 'string':
        return 'str'
      case 'integer':
        return 'int'
      case 'number':
        return 'float'
      case 'boolean':
        return 'bool'
      case 'null':
        return 'None'
      case 'array':
        return this.array(schema, hint, depth)
      case 'object':
        return this.object(schema, hint, depth)
      default:
        return 'Any'
    }
  }

  private array(schema: Schema, hint: string, depth: number): string {
    const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : undefined
    if (prefix !== undefined) {
      const rest = Array.isArray(schema.prefixItems) ? schema.items : schema.additionalItems
      const members = prefix.map((s, i) => this.type(s, `${hint}Item${i + 1}`, depth + 1))
      if (rest !== false && rest !== undefined) members.push(this.type(rest, `${hint}Item`, depth + 1))
      else if (rest === undefined && !Array.isArray(schema.prefixItems)) members.push('Any')
      return `list[${union(members)}]`
    }
    return `list[${this.type(schema.items, `${hint}Item`, depth + 1)}]`
  }

  private object(schema: Schema, hint: string, depth: number): string {
    if (isObject(schema.properties) && Object.keys(schema.properties).length > 0) return this.typedDict(schema, hint, depth, (k) => k)
    if (Array.isArray(schema.required) && schema.required.some((r) => typeof r === 'string')) return this.typedDict(schema, hint, depth, (k) => k)
    const additional = schema.additionalProperties
    if (isObject(additional)) return `dict[str, ${this.type(additional, `${hint}Value`, depth + 1)}]`
    return 'dict[str, Any]'
  }

  /** Declares a TypedDict for an object schema; `key` maps a JSON property to the field name shown. */
  typedDict(schema: Schema, hint: string, depth: number, key: (json: string) => string): string {
    const properties = isObject(schema.properties) ? schema.properties : {}
    const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [])
    const name = this.classes.reserve(hint)
    const fields: { key: string; type: string; doc: string }[] = []
    for (const prop of Object.keys(properties)) {
      const sub = properties[prop]
      const type = this.type(sub, `${name}${pascalCase(prop) || 'Field'}`, depth + 1)
      const description = isObject(sub) && typeof sub.description === 'string' ? sub.description : ''
      fields.push({ key: key(prop), type: required.has(prop) ? type : `NotRequired[${type}]`, doc: description })
    }
    for (const prop of required) if (!Object.prototype.hasOwnProperty.call(properties, prop)) fields.push({ key: key(prop), type: 'Any', doc: '' })
    const functional = fields.some((f) => !isPlainIdentifier(f.key))
    let text: string
    if (functional) {
      const entries = fields.map((f) => `${f.doc === '' ? '' : `${comment(f.doc, '    ')}`}    ${JSON.stringify(f.key)}: ${f.type},`)
      text = `${name} = TypedDict(${JSON.stringify(name)}, {${entries.length === 0 ? '' : `\n${entries.join('\n')}\n`}})`
    } else {
      const lines = fields.flatMap((f) => [`    ${f.key}: ${f.type}`, ...(f.doc === '' ? [] : [docstring(f.doc, '    ')])])
      text = `class ${name}(TypedDict):\n${lines.length === 0 ? '    pass' : lines.join('\n')}`
    }
    const bodyKey = text.replace(new RegExp(`\\b${name}\\b`, 'g'), '\u0000')
    return this.classes.define(name, bodyKey, text)
  }

  private ref(ref: string, hint: string, depth: number): string {
    const target = resolvePointer(this.root, ref)
    if (target === undefined) return 'Any'
    const known = this.recursive.get(ref)
    if (known !== undefined) return JSON.stringify(known)
    const expanding = this.expanding.get(ref)
    if (expanding !== undefined) {
      // A cycle: the outermost expansion of this ref becomes a named class, referenced by name.
      expanding.name ??= this.classes.reserve(pascalCase(schemaRefName(ref)) || 'Schema')
      return JSON.stringify(expanding.name)
    }
    const entry: { name?: string } = {}
    this.expanding.set(ref, entry)
    let type: string
    try {
      type = this.type(target, entry.name ?? hint, depth + 1)
    } finally {
      this.expanding.delete(ref)
    }
    if (entry.name === undefined) return type
    // The recursive type gets the reserved name (its inner references already use it).
    this.recursive.set(ref, entry.name)
    return this.classes.declared(type) ? this.classes.rename(type, entry.name) : this.classes.alias(entry.name, type)
  }
}

function nullable(schema: Schema, type: string): string {
  return schema.nullable === true && type !== 'Any' && type !== 'None' ? union([type, 'None']) : type
}

/** `Literal[...]` for the literal-capable values, unioned with the types of the others. */
function literal(values: readonly unknown[]): string {
  const lits: string[] = []
  const others: string[] = []
  for (const v of values) {
    if (v === null) lits.push('None')
    else if (typeof v === 'string') lits.push(JSON.stringify(v))
    else if (typeof v === 'boolean') lits.push(v ? 'True' : 'False')
    else if (typeof v === 'number' && Number.isSafeInteger(v)) lits.push(String(v))
    else if (typeof v === 'number') others.push('float')
    else others.push('Any')
  }
  const unique = [...new Set(lits)]
  return union([...(unique.length === 0 ? [] : [`Literal[${unique.join(', ')}]`]), ...others])
}

function union(types: readonly string[]): string {
  if (types.includes('Any')) return 'Any'
  const unique = [...new Set(types)]
  if (unique.length === 0) return 'Any'
  return unique.join(' | ')
}

/** Escapes text for a `"""` docstring: backslashes, quotes that would close it, control characters. */
function escapeDoc(text: string): string {
  return text
    .replace(/\\/g, '\\\\')
    .replace(/"""/g, '\\"\\"\\"')
    .replace(/"$/, '\\"')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
}

/** A docstring at `indent` (one line when short and single-line); `''` for no text. */
function docstring(text: string, indent: string): string {
  const cleaned = text.replace(/\r\n?/g, '\n').trim()
  if (cleaned === '') return ''
  const lines = escapeDoc(cleaned)
    .split('\n')
    .map((l) => l.trimEnd())
  if (lines.length === 1) return `${indent}"""${lines[0]}"""`
  return `${indent}"""\n${lines.map((l) => (l === '' ? '' : `${indent}${l}`)).join('\n')}\n${indent}"""`
}

/** A `#` comment block at `indent` (functional TypedDicts cannot carry docstrings). */
function comment(text: string, indent: string): string {
  const cleaned = text.replace(/\r\n?/g, '\n').trim()
  return cleaned === '' ? '' : `${cleaned.split('\n').map((l) => `${indent}# ${l.trimEnd()}`.trimEnd()).join('\n')}\n`
}
