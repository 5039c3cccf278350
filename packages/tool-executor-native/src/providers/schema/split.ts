/** Type-directed helpers shared by the sanitizers: splitting multi-type nodes, merging `allOf`. */
import type { JsonObject, JsonValue } from '@deepseek-ai/dsh-tools'
import { isObject, setKey } from './json'

/** The keywords that constrain only one JSON type. */
const TYPE_KEYWORDS: Readonly<Record<string, readonly string[]>> = {
  string: ['minLength', 'maxLength', 'pattern', 'format', 'contentEncoding', 'contentMediaType'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'format'],
  integer: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'format'],
  array: ['items', 'prefixItems', 'minItems', 'maxItems', 'uniqueItems', 'contains', 'additionalItems'],
  object: ['properties', 'required', 'additionalProperties', 'patternProperties', 'propertyNames', 'minProperties', 'maxProperties'],
  boolean: [],
  null: [],
}

/** Every keyword of {@link TYPE_KEYWORDS}. */
const TYPED_KEYWORDS: ReadonlySet<string> = new Set(Object.values(TYPE_KEYWORDS).flat())

/** The JSON Schema type of a JSON value (`integer` for whole numbers). */
export function jsonType(value: JsonValue): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number'
  return typeof value
}

/**
 * Splits a multi-type node into one branch per type, each with the keywords (and enum values)
 * of its type; a type none of whose enum values match is left out. Removes the split keywords
 * (and `enum`) from `w`.
 */
export function splitByType(w: JsonObject, types: readonly string[]): JsonObject[] {
  const branches: JsonObject[] = []
  for (const type of types) {
    const branch: JsonObject = { type }
    for (const key of TYPE_KEYWORDS[type] ?? []) if (w[key] !== undefined) branch[key] = w[key] as JsonValue
    if (Array.isArray(w.enum)) {
      const values = w.enum.filter((v) => jsonType(v) === type || (type === 'number' && typeof v === 'number'))
      if (values.length === 0) continue
      branch.enum = values
    }
    branches.push(branch)
  }
  for (const key of Object.keys(w)) if (TYPED_KEYWORDS.has(key)) delete w[key]
  delete w.enum
  return branches
}

/** Merges an `allOf` branch into `target`: properties and required united, other keywords kept when absent. */
export function mergeInto(target: JsonObject, branch: JsonObject): void {
  for (const [key, value] of Object.entries(branch)) {
    if (key === 'properties' && isObject(value)) target.properties = { ...(isObject(target.properties) ? target.properties : {}), ...value }
    else if (key === 'required' && Array.isArray(value)) target.required = [...new Set([...(Array.isArray(target.required) ? target.required : []), ...value])]
    else if (target[key] === undefined) setKey(target, key, value)
  }
}
