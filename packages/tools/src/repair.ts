/**
 * Opt-in, schema-guided repair of model arguments that failed validation.
 *
 * Source: bug cases B07 (objects sent as JSON strings, modelcontextprotocol/typescript-sdk#1562),
 * B11 (null for unused optional fields, mastra-ai/mastra#17655) and B12 (integers sent as
 * numeric strings, cline/cline#12641) in `tool-testkit/fixtures/real/cases/bug_cases.json`.
 * The pipeline calls {@link repairArguments} only after validation failed, re-validates the
 * repaired value, and records the repairs in `ToolResultMeta.repairs`. The schema shown to the
 * model is never changed, and annotations (`default`) are never applied as values.
 */
import type { JsonObject, JsonSchemaNode, JsonValue } from './contracts'
import { typeLabel } from './errors'
import { escapePointer } from './json'
import { resolveLocalRef } from './json-schema'

/** Which repairs are enabled (all off by default). */
export interface RepairModes {
  /**
   * Decode a string once with `JSON.parse` where the schema expects an object or an array (and
   * not a string), keeping the result only when it is of an expected type (bug case B07, see the file header).
   */
  readonly jsonStrings?: boolean
  /**
   * Read a canonical decimal string (`String(Number(s)) === s`, e.g. `"12"`, `"-3.5"`; not
   * `"012"`, `"1e3"`, `" 1"`) as a number where the schema expects `number`/`integer` (and not a
   * string); for `integer`-only positions the number must be a safe integer (bug case B12, see the file header).
   */
  readonly numericStrings?: boolean
  /**
   * Remove a property whose value is `null` when it is optional (not in `required`) and its
   * schema does not admit `null` (bug case B11, see the file header). A required property given `null` is never repaired.
   */
  readonly nullAsAbsent?: boolean
}

/** The repaired value and one line per repair, in document order. */
export interface RepairOutcome {
  /** The repaired value (the input itself when nothing changed; the input is never mutated). */
  readonly value: JsonValue
  /**
   * E.g. `/home: JSON string decoded as object`, `/insert_line: numeric string "12" read as 12`,
   * `/limit: null treated as absent`.
   */
  readonly repairs: readonly string[]
}

type SchemaObject = { readonly [keyword: string]: unknown }

const MAX_REF_HOPS = 32

function isObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isJsonObject(value: JsonValue): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Defines an own enumerable property (plain assignment of `__proto__` would set the prototype). */
function setOwn(target: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

/** Follows local `$ref`s; a non-local or dangling reference is an unconstrained schema (`{}`). */
function resolve(root: unknown, node: unknown): unknown {
  let current = node
  for (let hops = 0; isObject(current) && typeof current.$ref === 'string'; hops++) {
    if (hops >= MAX_REF_HOPS) return {}
    const target = resolveLocalRef(root, current.$ref)
    if (target === undefined) return {}
    current = target
  }
  return current
}

/** The JSON types a schema admits; `undefined` = no type restriction. */
function admitted(root: unknown, node: unknown, depth = 0): Set<string> | undefined {
  const schema = resolve(root, node)
  if (schema === false) return new Set()
  if (!isObject(schema) || depth > MAX_REF_HOPS) return undefined
  if (typeof schema.type === 'string') return new Set([schema.type])
  if (Array.isArray(schema.type)) return new Set(schema.type.map(String))
  if ('const' in schema) return new Set([typeLabel(schema.const as JsonValue)])
  if (Array.isArray(schema.enum)) return new Set((schema.enum as JsonValue[]).map(typeLabel))
  const branches = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined
  if (branches !== undefined) {
    const union = new Set<string>()
    for (const branch of branches) {
      const types = admitted(root, branch, depth + 1)
      if (types === undefined) return undefined
      for (const type of types) union.add(type)
    }
    return union
  }
  if (Array.isArray(schema.allOf)) {
    for (const member of schema.allOf) {
      const types = admitted(root, member, depth + 1)
      if (types !== undefined) return types
    }
  }
  return undefined
}

function admitsNull(root: unknown, node: unknown): boolean {
  const types = admitted(root, node)
  return types === undefined || types.has('null')
}

function numericString(text: string, types: Set<string>): number | undefined {
  if (!/^-?\d/.test(text)) return undefined
  const number = Number(text)
  if (!Number.isFinite(number) || String(number) !== text) return undefined
  if (types.has('number')) return number
  return Number.isSafeInteger(number) ? number : undefined
}

interface Walk {
  readonly root: unknown
  readonly modes: RepairModes
  readonly repairs: string[]
}

/** The subschema of an object property: `properties`, else a matching `patternProperties`, else `additionalProperties`. */
function propertySchema(schema: SchemaObject, key: string): unknown {
  if (isObject(schema.properties) && Object.prototype.hasOwnProperty.call(schema.properties, key)) return schema.properties[key]
  if (isObject(schema.patternProperties)) {
    for (const [pattern, sub] of Object.entries(schema.patternProperties)) {
      try {
        if (new RegExp(pattern, 'u').test(key)) return sub
      } catch {
        // An invalid pattern constrains nothing here; validation reports it.
      }
    }
  }
  return isObject(schema.additionalProperties) ? schema.additionalProperties : undefined
}

/** For `anyOf`/`oneOf` without own structure: the single branch admitting the value's type. */
function selectBranch(walk: Walk, schema: SchemaObject, value: JsonValue): unknown {
  const branches = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined
  if (branches === undefined) return undefined
  const actual = typeLabel(value)
  const matching = branches.filter((branch) => {
    const types = admitted(walk.root, branch)
    return types !== undefined && (types.has(actual) || (actual === 'number' && types.has('integer')))
  })
  return matching.length === 1 ? matching[0] : undefined
}

function repairNode(walk: Walk, node: unknown, value: JsonValue, pointer: string, depth: number): JsonValue {
  if (depth > 64) return value
  const schema = resolve(walk.root, node)
  if (!isObject(schema)) return value
  let current = value

  if (typeof current === 'string') {
    const types = admitted(walk.root, schema)
    if (types !== undefined && !types.has('string')) {
      if (walk.modes.jsonStrings === true && (types.has('object') || types.has('array'))) {
        try {
          const decoded = JSON.parse(current) as JsonValue
          const decodedType = typeLabel(decoded)
          if ((decodedType === 'object' || decodedType === 'array') && types.has(decodedType)) {
            walk.repairs.push(`${pointer}: JSON string decoded as ${decodedType}`)
            current = decoded
          }
        } catch {
          // Not JSON: leave it for validation to report.
        }
      }
      if (typeof current === 'string' && walk.modes.numericStrings === true && (types.has('number') || types.has('integer'))) {
        const number = numericString(current, types)
        if (number !== undefined) {
          walk.repairs.push(`${pointer}: numeric string ${JSON.stringify(current)} read as ${String(number)}`)
          return number
        }
      }
    }
    if (typeof current === 'string') return current
  }

  if (Array.isArray(schema.allOf)) {
    for (const member of schema.allOf) current = repairNode(walk, member, current, pointer, depth + 1)
  }
  const hasStructure = 'properties' in schema || 'items' in schema || 'prefixItems' in schema || 'additionalProperties' in schema
  if (!hasStructure) {
    const branch = selectBranch(walk, schema, current)
    return branch === undefined ? current : repairNode(walk, branch, current, pointer, depth + 1)
  }

  if (isJsonObject(current)) {
    const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : [])
    let copy: JsonObject | undefined
    for (const [key, item] of Object.entries(current)) {
      const at = `${pointer}/${escapePointer(key)}`
      const sub = propertySchema(schema, key)
      if (item === null && walk.modes.nullAsAbsent === true && sub !== undefined && !required.has(key) && !admitsNull(walk.root, sub)) {
        walk.repairs.push(`${at}: null treated as absent`)
        copy ??= { ...current }
        delete copy[key]
        continue
      }
      if (sub === undefined) continue
      const repaired = repairNode(walk, sub, item, at, depth + 1)
      if (repaired !== item) {
        copy ??= { ...current }
        setOwn(copy, key, repaired)
      }
    }
    return copy ?? current
  }

  if (Array.isArray(current)) {
    const tuple = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : []
    const rest = Array.isArray(schema.items) ? schema.additionalItems : schema.items
    let copy: JsonValue[] | undefined
    current.forEach((item, index) => {
      const sub = index < tuple.length ? tuple[index] : rest
      if (!isObject(sub)) return
      const repaired = repairNode(walk, sub, item, `${pointer}/${index}`, depth + 1)
      if (repaired !== item) {
        copy ??= [...(current as JsonValue[])]
        copy[index] = repaired
      }
    })
    return copy ?? current
  }
  return current
}

/**
 * Repairs `value` against `schema` with the enabled {@link RepairModes}, following
 * `properties` (then `patternProperties`, `additionalProperties`), `items`/`prefixItems`,
 * `allOf`, the single type-matching branch of an `anyOf`/`oneOf`, and local `$ref`s. Pure: the
 * input is never mutated; unchanged subtrees are shared with it. Never throws. The result is
 * not validated here; the caller re-validates (bug case B12: `"0"` becomes `0` and still fails
 * `minimum: 1`).
 */
export function repairArguments(schema: JsonSchemaNode | JsonValue, value: JsonValue, modes: RepairModes): RepairOutcome {
  const walk: Walk = { root: schema, modes, repairs: [] }
  if (modes.jsonStrings !== true && modes.numericStrings !== true && modes.nullAsAbsent !== true) {
    return { value, repairs: [] }
  }
  try {
    const repaired = repairNode(walk, schema, value, '', 0)
    return { value: repaired, repairs: Object.freeze(walk.repairs) }
  } catch {
    return { value, repairs: [] }
  }
}
