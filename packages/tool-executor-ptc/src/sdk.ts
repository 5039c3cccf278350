/**
 * The TypeScript SDK the model reads under PTC (docs/design.md, "PTC executor": a generated TypeScript SDK
 * for every visible tool (exact argument and output types from the schemas, lexicographic
 * order, byte-identical for an unchanged set, never throws: unsupported constructs degrade to
 * `unknown`)").
 *
 * JSON Schema → TypeScript: `type` (string or array) → primitive types, arrays, tuples
 * (`prefixItems`, draft-07 array `items`) and object literal types; `required` → optional
 * marks; `additionalProperties` → an index signature (absent/`true` → `[key: string]: unknown`,
 * a schema → its type, `false` → none; `unevaluatedProperties: false` closes an object too); `enum`/`const` → literal unions; `oneOf`/`anyOf` →
 * unions; `allOf` → intersections; `nullable: true` → `| null`; local `$ref`s (`#`, `#/$defs/…`,
 * `#/definitions/…`, any JSON pointer into the same schema) are inlined, and a recursive one
 * becomes a named type alias. Everything else (remote refs, `not`, conditionals, malformed
 * schemas, nesting deeper than {@link MAX_DEPTH}) is `unknown`.
 */
import type { JsonSchemaNode } from '@deepseek-ai/dsh-tools'

/** One tool as the SDK describes it. */
export interface SdkTool {
  readonly name: string
  readonly description: string
  /** JSON Schema of the argument object. */
  readonly parameters: JsonSchemaNode
  /** JSON Schema of the canonical result; absent → `unknown`. */
  readonly outputSchema?: JsonSchemaNode
}

/** Object types without member docs up to this many characters are printed on one line. */
const ONE_LINE_MAX = 80

/** Nesting depth past which a schema is rendered as `unknown`. */
export const MAX_DEPTH = 24

/** The header and the error class every SDK starts with. */
export const SDK_PREAMBLE = [
  '// Tools callable from run_code programs: `const result = await tools.name(args)` (exotic names: `tools["a.b"](args)`).',
  '// Arguments and results are JSON copies. A failed call throws ToolCallError (`toolName`, `message`); independent calls can run together with Promise.all.',
  '// console.log prints a line; the printed lines and the returned value are the program\'s output.',
  'declare class ToolCallError extends Error {',
  '  constructor(toolName: string, message: string)',
  '  readonly toolName: string',
  '}',
].join('\n')

type Schema = { readonly [keyword: string]: unknown }

/**
 * Generates the SDK text for `tools`: the preamble, named aliases for recursive schemas, and
 * `declare const tools: { … }` with one method per tool in lexicographic (UTF-16 code unit)
 * order. Pure and deterministic: the same set in any order gives byte-identical text. Never
 * throws; a tool whose schemas cannot be rendered gets `(args?: unknown) => Promise<unknown>`.
 */
export function generateSdk(tools: readonly SdkTool[]): string {
  const sorted = [...tools].sort((a, b) => compareCodeUnits(safeName(a), safeName(b)))
  const aliases = new AliasTable()
  const members: string[] = []
  for (const tool of sorted) {
    members.push(renderTool(tool, aliases))
  }
  const lines = [SDK_PREAMBLE, ...aliases.declarations(), 'declare const tools: {', ...members, '}']
  return lines.join('\n')
}

function renderTool(tool: SdkTool, aliases: AliasTable): string {
  const name = safeName(tool)
  const key = propertyKey(name)
  const doc = jsDoc(typeof tool.description === 'string' ? tool.description : '', '  ')
  try {
    const params = new SchemaRenderer(tool.parameters, aliases, `${name} args`)
    const argsType = params.render(tool.parameters, 0, '  ')
    const optional = !hasRequired(tool.parameters) ? '?' : ''
    const output = tool.outputSchema === undefined ? 'unknown' : new SchemaRenderer(tool.outputSchema, aliases, `${name} result`).render(tool.outputSchema, 0, '  ')
    return `${doc}  ${key}(args${optional}: ${argsType}): Promise<${output}>`
  } catch {
    return `${doc}  ${key}(args?: unknown): Promise<unknown>`
  }
}

function safeName(tool: SdkTool): string {
  return typeof tool?.name === 'string' ? tool.name : String(tool?.name)
}

/**
 * Ordinal string comparison by UTF-16 code units (not locale-aware): how the generated SDK sorts
 * tools and names. Exported so SDKs of other languages (the Python runtime's) order alike.
 *
 * @returns `-1`, `0` or `1`, for `Array.prototype.sort`.
 */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

function hasRequired(schema: JsonSchemaNode): boolean {
  if (!isSchemaObject(schema)) return false
  const required = schema.required
  return Array.isArray(required) && required.some((r) => typeof r === 'string')
}

/** Named type aliases for recursive references, shared by all tools of one SDK. */
class AliasTable {
  private readonly byKey = new Map<string, string>()
  private readonly bodies = new Map<string, string>()
  private readonly used = new Set<string>()

  /** The alias for `key`, creating its name (`Tool_Def`, deduplicated) on first use. */
  nameFor(key: string, hint: string): { name: string; isNew: boolean } {
    const existing = this.byKey.get(key)
    if (existing !== undefined) return { name: existing, isNew: false }
    let base = pascalCase(hint) || 'Schema'
    if (!/^[A-Za-z_$]/.test(base)) base = `T${base}`
    let name = base
    for (let i = 2; this.used.has(name) || RESERVED.has(name); i++) name = `${base}${i}`
    this.used.add(name)
    this.byKey.set(key, name)
    return { name, isNew: true }
  }

  define(name: string, body: string): void {
    this.bodies.set(name, body)
  }

  declarations(): string[] {
    return [...this.bodies.entries()].map(([name, body]) => `type ${name} = ${body}`)
  }
}

const RESERVED = new Set(['ToolCallError', 'Promise', 'Error', 'Array', 'Object', 'String', 'Number', 'Boolean', 'Record', 'Partial', 'unknown'])

/** Renders the schemas of one root (a tool's parameters or output). */
class SchemaRenderer {
  /** Refs being expanded (cycle detection) → alias name once a cycle was found. */
  private readonly expanding = new Map<string, { alias?: string }>()
  /** Refs that became named aliases. */
  private readonly knownAliases = new Map<string, string>()

  constructor(
    private readonly root: JsonSchemaNode,
    private readonly aliases: AliasTable,
    private readonly rootLabel: string,
  ) {}

  render(schema: unknown, depth: number, indent: string): string {
    if (depth > MAX_DEPTH) return 'unknown'
    if (schema === true || schema === undefined) return 'unknown'
    if (schema === false) return 'never'
    if (!isSchemaObject(schema)) return 'unknown'

    if (typeof schema.$ref === 'string') return this.renderRef(schema.$ref, depth, indent)

    const parts: string[] = []
    const base = this.renderBase(schema, depth, indent)
    if (base !== undefined) parts.push(base)
    for (const keyword of ['oneOf', 'anyOf'] as const) {
      const branches = schema[keyword]
      if (Array.isArray(branches) && branches.length > 0) {
        parts.push(union(branches.map((b) => this.render(b, depth + 1, indent))))
      }
    }
    const all = schema.allOf
    if (Array.isArray(all) && all.length > 0) {
      for (const b of all) parts.push(this.render(b, depth + 1, indent))
    }
    let type = intersection(parts)
    if (schema.nullable === true && type !== 'unknown' && type !== 'null') type = union([type, 'null'])
    return type
  }

  /** The type from `const`, `enum` and `type` (with the keywords of each type); `undefined` when none applies. */
  private renderBase(schema: Schema, depth: number, indent: string): string | undefined {
    if ('const' in schema) return literal(schema.const)
    if (Array.isArray(schema.enum)) {
      const members = schema.enum.map(literal)
      return members.length === 0 ? 'never' : union(members)
    }
    const declared = schema.type
    const types = typeof declared === 'string' ? [declared] : Array.isArray(declared) ? declared.filter((t): t is string => typeof t === 'string') : undefined
    if (types !== undefined) {
      if (types.length === 0) return 'unknown'
      return union(types.map((t) => this.renderType(t, schema, depth, indent)))
    }
    if (isSchemaObject(schema.properties) || 'additionalProperties' in schema || Array.isArray(schema.required)) {
      return this.renderObject(schema, depth, indent)
    }
    if ('items' in schema || Array.isArray(schema.prefixItems)) return this.renderArray(schema, depth, indent)
    return undefined
  }

  private renderType(type: string, schema: Schema, depth: number, indent: string): string {
    switch (type) {
      case 'string':
        return 'string'
      case 'number':
      case 'integer':
        return 'number'
      case 'boolean':
        return 'boolean'
      case 'null':
        return 'null'
      case 'array':
        return this.renderArray(schema, depth, indent)
      case 'object':
        return this.renderObject(schema, depth, indent)
      default:
        return 'unknown'
    }
  }

  private renderArray(schema: Schema, depth: number, indent: string): string {
    const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : undefined
    if (prefix !== undefined) {
      const rest = Array.isArray(schema.prefixItems) ? schema.items : schema.additionalItems
      const elements = prefix.map((s) => this.render(s, depth + 1, indent))
      const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0
      const shown = elements.map((e, i) => (i < minItems ? e : `${e}?`))
      if (rest === false) return `[${shown.join(', ')}]`
      const restType = this.render(rest, depth + 1, indent)
      if (restType === 'never') return `[${shown.join(', ')}]`
      // A rest element cannot follow optional elements; fall back to a plain array then.
      if (shown.some((e) => e.endsWith('?'))) return `${wrapArrayElement(union([...elements, restType]))}[]`
      return `[${[...shown, `...${wrapArrayElement(restType)}[]`].join(', ')}]`
    }
    const items = this.render(schema.items, depth + 1, indent)
    return `${wrapArrayElement(items)}[]`
  }

  private renderObject(schema: Schema, depth: number, indent: string): string {
    const inner = `${indent}  `
    const properties = isSchemaObject(schema.properties) ? schema.properties : {}
    const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [])
    const members: { doc: string; text: string }[] = []
    for (const name of Object.keys(properties)) {
      const prop = properties[name]
      const description = isSchemaObject(prop) && typeof prop.description === 'string' ? prop.description : ''
      members.push({ doc: jsDoc(description, inner), text: `${propertyKey(name)}${required.has(name) ? '' : '?'}: ${this.render(prop, depth + 1, inner)}` })
    }
    // Required names without a schema still exist (with any value).
    for (const name of required) {
      if (!Object.prototype.hasOwnProperty.call(properties, name)) members.push({ doc: '', text: `${propertyKey(name)}: unknown` })
    }
    const additional = schema.additionalProperties
    const hasPatterns = isSchemaObject(schema.patternProperties) && Object.keys(schema.patternProperties).length > 0
    // A closed object (`additionalProperties: false`, or `unevaluatedProperties: false` without
    // `additionalProperties`; the registry option `unknownKeys: 'reject'` projects the former)
    // takes no other keys, so it gets no index signature.
    const closed = additional === false || (additional === undefined && schema.unevaluatedProperties === false)
    if (!closed || hasPatterns) {
      // With named members the index type must cover theirs too; `unknown` always does.
      const valueType = isSchemaObject(additional) && members.length === 0 && !hasPatterns ? this.render(additional, depth + 1, inner) : 'unknown'
      members.push({ doc: '', text: `[key: string]: ${valueType}` })
    }
    if (members.length === 0) return '{}'
    const oneLine = `{ ${members.map((m) => m.text).join('; ')} }`
    if (members.every((m) => m.doc === '' && !m.text.includes('\n')) && oneLine.length <= ONE_LINE_MAX) return oneLine
    return `{\n${members.map((m) => `${m.doc}${inner}${m.text}`).join('\n')}\n${indent}}`
  }

  private renderRef(ref: string, depth: number, indent: string): string {
    const target = resolvePointer(this.root, ref)
    if (target === undefined) return 'unknown'
    const key = `${this.rootLabel}\u0000${ref}`
    const known = this.knownAliases.get(key)
    if (known !== undefined) return known
    const expanding = this.expanding.get(key)
    if (expanding !== undefined) {
      // A cycle: refer to a named alias; the outermost expansion of this ref defines it.
      expanding.alias ??= this.aliases.nameFor(key, `${this.rootLabel.replace(/ (args|result)$/, '')} ${schemaRefName(ref)}`).name
      return expanding.alias
    }
    const entry: { alias?: string } = {}
    this.expanding.set(key, entry)
    let body: string
    try {
      body = this.render(target, depth + 1, indent)
    } finally {
      this.expanding.delete(key)
    }
    if (entry.alias === undefined) return body
    this.knownAliases.set(key, entry.alias)
    this.aliases.define(entry.alias, this.render(target, 0, ''))
    return entry.alias
  }
}

/** Resolves a local `$ref` (`#`, `#/…` JSON pointer) against `root`; `undefined` for anything else. */
function resolvePointer(root: JsonSchemaNode, ref: string): unknown {
  if (ref === '#') return root
  if (!ref.startsWith('#/')) return undefined
  let node: unknown = root
  for (const raw of ref.slice(2).split('/')) {
    let token: string
    try {
      token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~')
    } catch {
      return undefined
    }
    if (Array.isArray(node)) {
      const index = Number(token)
      if (!Number.isInteger(index)) return undefined
      node = node[index]
    } else if (node !== null && typeof node === 'object' && Object.prototype.hasOwnProperty.call(node, token)) {
      node = (node as Record<string, unknown>)[token]
    } else {
      return undefined
    }
  }
  return node
}

/**
 * The name a local `$ref` contributes to a generated type: `Root` for `#`, else its last JSON
 * pointer segment as written (`#/$defs/node` → `node`; not percent- or `~`-decoded). Shared with
 * SDKs of other languages so a recursive schema gets the same name in each.
 */
export function schemaRefName(ref: string): string {
  const last = ref.split('/').pop() ?? ''
  return ref === '#' ? 'Root' : last
}

function isSchemaObject(value: unknown): value is Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

function literal(value: unknown): string {
  if (value === null) return 'null'
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value)
    case 'number':
      return Number.isFinite(value) ? (Object.is(value, -0) ? '0' : String(value)) : 'number'
    case 'boolean':
      return String(value)
    default:
      return 'unknown'
  }
}

function union(types: readonly string[]): string {
  if (types.includes('unknown')) return 'unknown'
  const unique = [...new Set(types.filter((t) => t !== 'never'))]
  if (unique.length === 0) return 'never'
  if (unique.length === 1) return unique[0] as string
  return unique.map((t) => (needsParens(t, '|') ? `(${t})` : t)).join(' | ')
}

function intersection(types: readonly string[]): string {
  const unique = [...new Set(types.filter((t) => t !== 'unknown'))]
  if (unique.includes('never')) return 'never'
  if (unique.length === 0) return 'unknown'
  if (unique.length === 1) return unique[0] as string
  return unique.map((t) => (needsParens(t, '&') ? `(${t})` : t)).join(' & ')
}

function wrapArrayElement(type: string): string {
  return needsParens(type, '[]') ? `(${type})` : type
}

/** Whether `type` has a top-level `|` or `&` (outside brackets and strings) that binds looser than `context`. */
function needsParens(type: string, context: '|' | '&' | '[]'): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < type.length; i++) {
    const c = type[i]
    if (inString) {
      if (c === '\\') i++
      else if (c === '"') inString = false
      continue
    }
    if (c === '"') inString = true
    else if (c === '{' || c === '[' || c === '(' || c === '<') depth++
    else if (c === '}' || c === ']' || c === ')' || c === '>') depth--
    else if (depth === 0 && c === '|') return true
    else if (depth === 0 && c === '&' && context !== '|') return true
  }
  return false
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/

function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name)
}

/**
 * PascalCase of `text`: split on every run of characters outside `[A-Za-z0-9]`, each word's first
 * character upper-cased, the rest kept (`get_user-v2` → `GetUserV2`); `''` when nothing is left.
 * How the generated SDK names types; shared with SDKs of other languages.
 */
export function pascalCase(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== '')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('')
}

/** A JSDoc block for `text` at `indent` (one line when short and single-line); `''` for no text. `*\/` is escaped. */
function jsDoc(text: string, indent: string): string {
  const cleaned = text.replace(/\r\n?/g, '\n').trim()
  if (cleaned === '') return ''
  const escaped = cleaned.replace(/\*\//g, '*\\/')
  const lines = escaped.split('\n').map((l) => l.trimEnd())
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`
  return `${indent}/**\n${lines.map((l) => (l === '' ? `${indent} *` : `${indent} * ${l}`)).join('\n')}\n${indent} */\n`
}
