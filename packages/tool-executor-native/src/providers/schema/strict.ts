/**
 * Strict mode (OpenAI Structured Outputs for function calling, DeepSeek strict beta): every
 * object closed with `additionalProperties: false`, every property required (an optional one
 * becomes required and nullable), only the supported keywords and formats. A schema that
 * cannot be made strict (a free-form object, an unconstrained value, a tuple, nesting deeper
 * than {@link STRICT_MAX_DEPTH}) raises {@link StrictUnavailable}; the caller then sends the tool
 * with `strict: false`.
 *
 * Widening optional properties to nullable is what bug case B11 is about: the model may send
 * `null` for an unused field, which the original schema rejects — enable the core's
 * null-as-absent repair for tools reported with `STRICT_NULLABLE`.
 */
import type { JsonObject, JsonValue } from '@deepseek-ai/dsh-tools'
import { Origins, Report, childPointer, isObject, setKey, show, typeList } from './json'
import { mergeInto } from './split'

/** How an optional property is widened: `type: [t, "null"]` (OpenAI) or `anyOf: [s, {type: "null"}]`. */
export type NullableStyle = 'type-array' | 'any-of'

/** OpenAI's documented nesting limit for strict schemas. */
export const STRICT_MAX_DEPTH = 10

const KEPT = new Set([
  'type',
  'description',
  'title',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  '$ref',
  '$defs',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
])

const FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid'])

/** A reason the schema cannot be strict, at a pointer. */
export class StrictUnavailable extends Error {
  readonly pointer: string
  constructor(pointer: string, message: string) {
    super(message)
    this.pointer = pointer
  }
}

/**
 * Converts a normalized, `$ref`-inlined parameters root to a strict schema.
 *
 * @throws StrictUnavailable naming the first node that cannot be strict.
 */
export function toStrictSchema(root: JsonObject, base: string, report: Report, origins: Origins, style: NullableStyle): JsonObject {
  const out = convert(root, base, 1, { report, origins, style })
  if (!isObject(out)) throw new StrictUnavailable(base, 'the parameters root is not an object schema')
  return out
}

interface Ctx {
  readonly report: Report
  readonly origins: Origins
  readonly style: NullableStyle
}

function convert(input: JsonValue, fallback: string, depth: number, ctx: Ctx): JsonValue {
  const pointer = ctx.origins.of(input, fallback)
  if (!isObject(input)) throw new StrictUnavailable(pointer, `the boolean schema ${show(input)} cannot be strict`)
  const w: JsonObject = { ...input }

  if (Array.isArray(w.allOf)) {
    const branches = w.allOf
    delete w.allOf
    for (const branch of branches) {
      if (!isObject(branch)) throw new StrictUnavailable(childPointer(pointer, 'allOf'), 'an allOf with a boolean branch cannot be strict')
      mergeInto(w, branch)
    }
    ctx.report.warn(childPointer(pointer, 'allOf'), 'COMBINATOR_REWRITTEN', `allOf of ${branches.length} schema(s) merged into one (strict mode has no allOf)`)
  }
  if (Array.isArray(w.oneOf)) {
    const branches = w.oneOf
    delete w.oneOf
    if (w.anyOf !== undefined) throw new StrictUnavailable(childPointer(pointer, 'oneOf'), 'oneOf beside anyOf cannot be strict')
    w.anyOf = branches
    ctx.report.warn(childPointer(pointer, 'oneOf'), 'COMBINATOR_REWRITTEN', 'oneOf declared as anyOf (strict mode has no oneOf; the local validator still enforces exactly one)')
  }

  for (const key of Object.keys(w)) {
    if (KEPT.has(key)) continue
    if (key === 'patternProperties' || key === 'propertyNames' || key === 'unevaluatedProperties') {
      throw new StrictUnavailable(childPointer(pointer, key), `an object constrained by ${key} (free-form keys) cannot be strict`)
    }
    if (key === 'prefixItems') throw new StrictUnavailable(childPointer(pointer, key), 'a tuple (prefixItems) cannot be strict')
    delete w[key]
    ctx.report.warn(childPointer(pointer, key), 'KEYWORD_DROPPED', `removed \`${key}\` (not supported in strict mode)`)
  }
  if (typeof w.format === 'string' && !FORMATS.has(w.format)) {
    ctx.report.warn(childPointer(pointer, 'format'), 'KEYWORD_DROPPED', `removed format ${show(w.format)} (not supported in strict mode)`)
    delete w.format
  }

  if (typeof w.$ref === 'string') return w
  if (w.$defs !== undefined) {
    if (isObject(w.$defs)) {
      const defs: JsonObject = {}
      for (const [name, def] of Object.entries(w.$defs)) setKey(defs, name, convert(def, childPointer(pointer, '$defs', name), depth, ctx))
      w.$defs = defs
    }
  }

  if (Array.isArray(w.anyOf)) {
    w.anyOf = w.anyOf.map((branch, i) => convert(branch, childPointer(pointer, 'anyOf', i), depth, ctx))
    return w
  }

  const types = typeList(w)
  if (types.length === 0 && w.enum === undefined && w.const === undefined) {
    if (isObject(w.properties)) {
      w.type = 'object'
      types.push('object')
    } else {
      throw new StrictUnavailable(pointer, 'a schema without a type (any value) cannot be strict')
    }
  }

  if (types.includes('object')) {
    if (depth > STRICT_MAX_DEPTH) throw new StrictUnavailable(pointer, `objects nest deeper than ${STRICT_MAX_DEPTH} levels`)
    const additional = w.additionalProperties
    const properties = isObject(w.properties) ? w.properties : undefined
    if (additional !== undefined && additional !== false) {
      throw new StrictUnavailable(childPointer(pointer, 'additionalProperties'), 'an object with additional properties (free-form keys) cannot be strict')
    }
    if (properties === undefined && additional !== false) {
      throw new StrictUnavailable(pointer, 'an object without declared properties (free-form) cannot be strict')
    }
    const declared = properties ?? {}
    const required = new Set(Array.isArray(w.required) ? w.required.filter((n): n is string => typeof n === 'string') : [])
    const next: JsonObject = {}
    for (const [name, schema] of Object.entries(declared)) {
      const propertyPointer = ctx.origins.of(schema, childPointer(pointer, 'properties', name))
      let converted = convert(schema, propertyPointer, depth + 1, ctx)
      if (!required.has(name)) {
        converted = widenNullable(converted as JsonObject, ctx.style)
        ctx.report.warn(
          propertyPointer,
          'STRICT_NULLABLE',
          `optional property ${JSON.stringify(name)} declared as required and nullable (strict mode requires every property; treat null as absent)`,
        )
      }
      setKey(next, name, converted)
    }
    w.properties = next
    w.required = Object.keys(next)
    if (additional !== false) {
      w.additionalProperties = false
      ctx.report.warn(childPointer(pointer, 'additionalProperties'), 'KEYWORD_REWRITTEN', 'added additionalProperties: false (strict mode closes every object)')
    }
  }
  if (types.includes('array')) {
    if (Array.isArray(w.items)) throw new StrictUnavailable(childPointer(pointer, 'items'), 'a tuple (items array) cannot be strict')
    if (w.items === undefined) throw new StrictUnavailable(pointer, 'an array without an items schema cannot be strict')
    w.items = convert(w.items, childPointer(pointer, 'items'), depth, ctx)
  }
  return w
}

/** Makes a converted property schema admit null. */
function widenNullable(schema: JsonObject, style: NullableStyle): JsonObject {
  if (admitsNull(schema)) return schema
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...schema.anyOf, { type: 'null' }] }
  if (style === 'any-of' || typeof schema.$ref === 'string' || schema.type === undefined) {
    const { description, ...rest } = schema
    const out: JsonObject = { anyOf: [rest, { type: 'null' }] }
    if (description !== undefined) out.description = description
    return out
  }
  const out: JsonObject = { ...schema, type: [...typeList(schema), 'null'] }
  if (Array.isArray(schema.enum)) out.enum = [...schema.enum, null]
  if (schema.const !== undefined) {
    out.enum = [schema.const, null]
    delete out.const
  }
  return out
}

function admitsNull(schema: JsonObject): boolean {
  if (typeList(schema).includes('null')) return Array.isArray(schema.enum) ? schema.enum.includes(null) : schema.const === undefined || schema.const === null
  if (Array.isArray(schema.anyOf)) return schema.anyOf.some((b) => isObject(b) && (b.type === 'null' || b.const === null))
  return schema.const === null || (Array.isArray(schema.enum) && schema.enum.includes(null) && schema.type === undefined)
}
