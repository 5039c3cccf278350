/**
 * Gemini `FunctionDeclaration.parameters`: the "select subset of an OpenAPI 3.0 schema object"
 * (Gemini API reference, `Schema`). No `$ref`, no `additionalProperties`, no type arrays (a
 * `nullable` flag instead), no `oneOf`/`allOf`/`const`/`not`, enums of strings only, `format`
 * limited to `enum`/`date-time` (strings), `int32`/`int64`, `float`/`double`; objects need
 * declared properties and arrays need `items`. Everything else is rewritten or dropped, and
 * each change is reported.
 */
import type { JsonObject, JsonValue } from '@deepseek-ai/dsh-tools'
import { ConversionFailure, Origins, Report, childPointer, isObject, setKey, show, typeList } from './json'
import { jsonType, mergeInto, splitByType } from './split'

const KEPT = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
])

const FORMATS: Record<string, readonly string[]> = {
  string: ['enum', 'date-time'],
  integer: ['int32', 'int64'],
  number: ['float', 'double'],
}

const SIMPLE_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object'])

/**
 * Converts a normalized parameters root to Gemini's schema subset. Returns `undefined` when the
 * tool takes no declared arguments (the declaration then has no `parameters`, which Gemini
 * requires instead of an OBJECT with empty properties).
 */
export function toGeminiParameters(root: JsonObject, base: string, report: Report, origins: Origins): JsonObject | undefined {
  const properties = isObject(root.properties) ? root.properties : {}
  if (Object.keys(properties).length === 0) {
    const freeForm = root.additionalProperties !== undefined && root.additionalProperties !== false
    report.warn(
      base,
      'PARAMETERS_OMITTED',
      freeForm
        ? 'a free-form argument object cannot be declared for Gemini; declared without parameters (the model can only send {})'
        : 'no declared properties: declared without parameters (Gemini rejects an OBJECT with empty properties)',
    )
    return undefined
  }
  const converted = new GeminiConverter(report, origins).node(root, base, true)
  if (converted !== undefined) return converted
  // Every declared property was dropped (each has a PROPERTY_DROPPED warning): Gemini needs an
  // object root, and a tool whose required properties cannot be sent cannot be called at all.
  const required = Array.isArray(root.required) ? root.required.filter((n): n is string => typeof n === 'string' && Object.hasOwn(properties, n)) : []
  if (required.length > 0) {
    throw new ConversionFailure(
      'SCHEMA_UNSUPPORTED',
      childPointer(base, 'properties', required[0] as string),
      `no property of the parameters can be expressed for Gemini, and the required ${required.map((n) => JSON.stringify(n)).join(', ')} cannot be sent (Gemini requires an object root)`,
    )
  }
  report.warn(base, 'PARAMETERS_OMITTED', 'no property can be expressed for Gemini: declared without parameters (the model can only send {})')
  return undefined
}

class GeminiConverter {
  constructor(
    private readonly report: Report,
    private readonly origins: Origins,
  ) {}

  /** Converts one schema node; `undefined` means the node cannot be expressed and its property is dropped. */
  node(input: JsonValue, fallback: string, isRoot = false): JsonObject | undefined {
    const pointer = this.origins.of(input, fallback)
    if (input === true) return this.anyValue({}, pointer, 'an unconstrained schema (`true`)')
    if (!isObject(input)) return undefined
    const w: JsonObject = { ...input }

    for (const key of ['$schema', '$id', '$comment', '$anchor', '$defs', 'definitions']) {
      if (w[key] === undefined) continue
      delete w[key]
      this.report.warn(childPointer(pointer, key), 'KEYWORD_DROPPED', `removed \`${key}\` (not part of Gemini's schema subset)`)
    }

    if (Array.isArray(w.allOf)) {
      const branches = w.allOf
      delete w.allOf
      for (const branch of branches) if (isObject(branch)) mergeInto(w, branch)
      this.report.warn(childPointer(pointer, 'allOf'), 'COMBINATOR_REWRITTEN', `allOf of ${branches.length} schema(s) merged into one (Gemini has no allOf)`)
    }
    if (Array.isArray(w.oneOf)) {
      const branches = w.oneOf
      delete w.oneOf
      if (w.anyOf === undefined) {
        w.anyOf = branches
        this.report.warn(childPointer(pointer, 'oneOf'), 'COMBINATOR_REWRITTEN', 'oneOf declared as anyOf (Gemini has no oneOf; the local validator still enforces exactly one)')
      } else {
        this.report.warn(childPointer(pointer, 'oneOf'), 'KEYWORD_DROPPED', 'removed oneOf beside anyOf (Gemini has no oneOf)')
      }
    }

    let nullable = w.nullable === true

    // type arrays → nullable flag and/or anyOf branches
    if (Array.isArray(w.type)) {
      const types = typeList(w)
      const rest = types.filter((t) => t !== 'null')
      if (types.includes('null')) nullable = true
      if (rest.length === 0) return this.nullOnly(pointer)
      if (rest.length === 1) {
        w.type = rest[0] as string
        this.report.warn(childPointer(pointer, 'type'), 'TYPE_ARRAY_REWRITTEN', `type ${show(input.type as JsonValue)} declared as "${rest[0]}"${nullable ? ' with nullable: true' : ''}`)
      } else if (w.anyOf !== undefined) {
        delete w.type
        this.report.warn(childPointer(pointer, 'type'), 'KEYWORD_DROPPED', `removed type ${show(input.type as JsonValue)} beside anyOf (Gemini has no type arrays)`)
      } else {
        w.anyOf = splitByType(w, rest)
        delete w.type
        this.report.warn(childPointer(pointer, 'type'), 'TYPE_ARRAY_REWRITTEN', `type ${show(input.type as JsonValue)} declared as anyOf of ${rest.length} single-type schemas${nullable ? ' with nullable: true' : ''}`)
      }
    } else if (w.type === 'null') {
      return this.nullOnly(pointer)
    }

    if (w.const !== undefined) {
      const value = w.const
      delete w.const
      if (value === null) return this.nullOnly(pointer)
      if (typeof value === 'string') {
        if (w.enum === undefined) w.enum = [value]
        if (w.type === undefined) w.type = 'string'
        this.report.warn(childPointer(pointer, 'const'), 'ENUM_REWRITTEN', `const ${show(value)} declared as a one-value string enum`)
      } else {
        appendDescription(w, `Must be ${JSON.stringify(value)}.`)
        if (w.type === undefined) w.type = jsonType(value)
        this.report.warn(childPointer(pointer, 'const'), 'ENUM_REWRITTEN', `const ${show(value)} moved into the description (Gemini enums hold strings only)`)
      }
    }

    if (Array.isArray(w.enum)) {
      const values = w.enum
      const nonNull = values.filter((v) => v !== null)
      if (nonNull.length !== values.length) {
        nullable = true
        this.report.warn(childPointer(pointer, 'enum'), 'NULLABLE_REWRITTEN', 'null removed from the enum and declared as nullable: true')
      }
      if (nonNull.length === 0) return this.nullOnly(pointer)
      if (nonNull.every((v): v is string => typeof v === 'string')) {
        w.enum = nonNull
        if (w.type === undefined) w.type = 'string'
      } else {
        delete w.enum
        appendDescription(w, `Allowed values: ${nonNull.map((v) => JSON.stringify(v)).join(', ')}.`)
        if (w.type === undefined) w.type = commonType(nonNull) ?? 'string'
        this.report.warn(childPointer(pointer, 'enum'), 'ENUM_REWRITTEN', `enum ${show(values)} moved into the description (Gemini enums hold strings only)`)
      }
    }

    if (Array.isArray(w.anyOf)) return this.anyOf(w, pointer, nullable)

    // a single type from here on
    let type = typeof w.type === 'string' ? w.type : undefined
    if (type === undefined) {
      if (isObject(w.properties)) type = 'object'
      else if (w.items !== undefined || w.prefixItems !== undefined) type = 'array'
      if (type !== undefined) w.type = type
    }
    if (type === undefined || !SIMPLE_TYPES.has(type)) {
      return this.anyValue(w, pointer, type === undefined ? 'a schema without a type' : `the unknown type ${show(type)}`, nullable)
    }

    if (type === 'object') {
      // The root must stay an object: the caller decides what a root without properties becomes.
      if (this.object(w, pointer) === undefined) return isRoot ? undefined : this.freeFormObject(w, pointer, nullable)
    } else if (type === 'array') {
      this.array(w, pointer)
    }

    this.exclusiveBounds(w, pointer, type)

    if (typeof w.format === 'string' && !(FORMATS[type] ?? []).includes(w.format)) {
      this.report.warn(childPointer(pointer, 'format'), 'KEYWORD_DROPPED', `removed format ${show(w.format)} (Gemini accepts ${(FORMATS[type] ?? []).map((f) => `"${f}"`).join(', ') || 'no format'} for ${type})`)
      delete w.format
    }

    if (Array.isArray(w.examples)) {
      const examples = w.examples
      delete w.examples
      if (w.example === undefined && examples.length > 0) {
        w.example = examples[0] as JsonValue
        this.report.warn(childPointer(pointer, 'examples'), 'KEYWORD_REWRITTEN', 'examples declared as example (its first value)')
      } else {
        this.report.warn(childPointer(pointer, 'examples'), 'KEYWORD_DROPPED', 'removed examples (Gemini has example)')
      }
    }

    for (const key of Object.keys(w)) {
      if (KEPT.has(key)) continue
      delete w[key]
      this.report.warn(childPointer(pointer, key), 'KEYWORD_DROPPED', `removed \`${key}\` (not part of Gemini's schema subset)`)
    }
    if (nullable) w.nullable = true
    return w
  }

  /**
   * Gemini has no exclusive bounds. For an integer the bound moves by one (`exclusiveMinimum: 0`
   * → `minimum: 1`; a draft-04 `exclusiveMinimum: true` moves `minimum` the same way); for a
   * number it cannot be expressed, so it is kept as description text. The local validator
   * keeps the original bound either way.
   */
  private exclusiveBounds(w: JsonObject, pointer: string, type: string): void {
    for (const key of ['exclusiveMinimum', 'exclusiveMaximum'] as const) {
      const value = w[key]
      if (value === undefined) continue
      delete w[key]
      const lower = key === 'exclusiveMinimum'
      const target = lower ? 'minimum' : 'maximum'
      const current = w[target]
      // draft 2019+: a number; draft 4: a boolean that makes `minimum`/`maximum` exclusive.
      const bound = typeof value === 'number' ? value : value === true && typeof current === 'number' ? current : undefined
      if (bound === undefined) {
        this.report.warn(childPointer(pointer, key), 'KEYWORD_DROPPED', `removed ${key} ${show(value)} (Gemini has no exclusive bounds)`)
        continue
      }
      if (type === 'integer') {
        const moved = lower ? Math.floor(bound) + 1 : Math.ceil(bound) - 1
        const inclusive = typeof value === 'number' && typeof current === 'number' ? (lower ? Math.max(current, moved) : Math.min(current, moved)) : moved
        w[target] = inclusive
        this.report.warn(childPointer(pointer, key), 'KEYWORD_REWRITTEN', `${key} ${show(value)} declared as ${target} ${inclusive} (Gemini has no exclusive bounds; for an integer the bound moves by one)`)
        continue
      }
      if (value === true) delete w[target]
      appendDescription(w, `Must be ${lower ? 'greater' : 'less'} than ${bound}.`)
      this.report.warn(childPointer(pointer, key), 'KEYWORD_REWRITTEN', `${key} ${show(value)} moved into the description (Gemini has no exclusive bounds; an inclusive ${target} would admit ${bound})`)
    }
  }

  private anyOf(w: JsonObject, pointer: string, nullableIn: boolean): JsonObject | undefined {
    let nullable = nullableIn
    const branches = w.anyOf as JsonValue[]
    delete w.anyOf
    const kept: JsonObject[] = []
    branches.forEach((branch, i) => {
      const branchPointer = this.origins.of(branch, childPointer(pointer, 'anyOf', i))
      if (isNullSchema(branch)) {
        nullable = true
        this.report.warn(branchPointer, 'NULLABLE_REWRITTEN', 'null branch declared as nullable: true')
        return
      }
      const converted = this.node(branch, branchPointer)
      if (converted !== undefined) kept.push(converted)
    })
    if (kept.length === 0) return this.nullOnly(pointer)
    const outer: JsonObject = {}
    for (const key of ['title', 'description', 'default', 'example'] as const) if (w[key] !== undefined) outer[key] = w[key] as JsonValue
    for (const key of Object.keys(w)) {
      if (key in outer || key === 'nullable') continue
      this.report.warn(childPointer(pointer, key), 'KEYWORD_DROPPED', `removed \`${key}\` beside anyOf (kept only on the branches)`)
    }
    if (kept.length === 1) {
      const only = kept[0] as JsonObject
      this.report.warn(childPointer(pointer, 'anyOf'), 'COMBINATOR_REWRITTEN', 'anyOf with a single remaining branch declared as that branch')
      const merged: JsonObject = { ...only, ...outer }
      if (nullable) merged.nullable = true
      return merged
    }
    const out: JsonObject = { ...outer, anyOf: kept }
    if (nullable) out.nullable = true
    return out
  }

  /** Converts properties and required; `undefined` when no property remains (a free-form object). */
  private object(w: JsonObject, pointer: string): JsonObject | undefined {
    const properties = isObject(w.properties) ? w.properties : {}
    const out: JsonObject = {}
    for (const [name, schema] of Object.entries(properties)) {
      const propertyPointer = childPointer(pointer, 'properties', name)
      const converted = this.node(schema, propertyPointer)
      if (converted === undefined) {
        this.report.warn(this.origins.of(schema, propertyPointer), 'PROPERTY_DROPPED', `property ${JSON.stringify(name)} cannot be expressed for Gemini and was not declared (the local validator still enforces it)`)
        continue
      }
      setKey(out, name, converted)
    }
    if (Object.keys(out).length === 0) return undefined
    w.properties = out
    if (Array.isArray(w.required)) {
      const required = w.required.filter((n): n is string => typeof n === 'string' && Object.hasOwn(out, n))
      if (required.length !== w.required.length) {
        this.report.warn(childPointer(pointer, 'required'), 'KEYWORD_REWRITTEN', `required names without a declared property removed: ${w.required.filter((n) => !required.includes(n as string)).map((n) => JSON.stringify(n)).join(', ')}`)
      }
      if (required.length > 0 || w.required.length === 0) w.required = required
      else delete w.required
    }
    return w
  }

  private array(w: JsonObject, pointer: string): void {
    let items: JsonValue | undefined = w.items
    if (Array.isArray(items) || Array.isArray(w.prefixItems)) {
      const tuple = (Array.isArray(w.prefixItems) ? w.prefixItems : items) as JsonValue[]
      const key = Array.isArray(w.prefixItems) ? 'prefixItems' : 'items'
      delete w.prefixItems
      items = tuple.length === 0 ? undefined : tuple.length === 1 ? tuple[0] : { anyOf: tuple }
      this.report.warn(childPointer(pointer, key), 'VALUE_DEGRADED', `tuple ${key} declared as an array whose items match any of the ${tuple.length} position schemas`)
    }
    const itemsPointer = childPointer(pointer, 'items')
    const converted = items === undefined ? undefined : this.node(items, itemsPointer)
    if (converted === undefined) {
      this.report.warn(itemsPointer, 'VALUE_DEGRADED', 'array items without an expressible schema declared as strings (Gemini requires items)')
      w.items = { type: 'string' }
    } else {
      w.items = converted
    }
  }

  private anyValue(w: JsonObject, pointer: string, what: string, nullable = false): JsonObject {
    this.report.warn(pointer, 'VALUE_DEGRADED', `${what} declared as a string (Gemini has no any-value type; the local validator still accepts any value)`)
    const out: JsonObject = { type: 'string' }
    if (typeof w.title === 'string') out.title = w.title
    if (typeof w.description === 'string') out.description = w.description
    if (nullable) out.nullable = true
    return out
  }

  private freeFormObject(w: JsonObject, pointer: string, nullable: boolean): JsonObject {
    this.report.warn(pointer, 'VALUE_DEGRADED', 'an object without declared properties declared as a JSON-encoded string (Gemini rejects OBJECT without properties)')
    const out: JsonObject = { type: 'string' }
    if (typeof w.title === 'string') out.title = w.title
    out.description = `${typeof w.description === 'string' && w.description !== '' ? `${w.description} ` : ''}(a JSON object, sent as a JSON-encoded string)`
    if (nullable) out.nullable = true
    return out
  }

  private nullOnly(pointer: string): undefined {
    this.report.warn(pointer, 'VALUE_DEGRADED', 'a schema that admits only null cannot be expressed for Gemini')
    return undefined
  }
}

function isNullSchema(branch: JsonValue): boolean {
  if (!isObject(branch)) return false
  if (branch.type === 'null') return true
  if (branch.const === null) return true
  return Array.isArray(branch.enum) && branch.enum.length === 1 && branch.enum[0] === null
}

function appendDescription(w: JsonObject, text: string): void {
  w.description = typeof w.description === 'string' && w.description !== '' ? `${w.description} ${text}` : text
}

function commonType(values: readonly JsonValue[]): string | undefined {
  const types = new Set(values.map(jsonType))
  if (types.size === 1) return [...types][0]
  if ([...types].every((t) => t === 'integer' || t === 'number')) return 'number'
  return undefined
}
