/**
 * The projection of DSL specs to model-facing JSON Schema (`projectSchema`,
 * `projectParameters`): total, deterministic, detached; a spec outside the DSL is a
 * `SchemaSpecError` with a pointer into the projected schema.
 */
import type { JsonObject, JsonValue } from '../contracts'
import { capPointer, findDepthProblem, MAX_JSON_DEPTH } from '../limits'
import type { ParametersSpec, SchemaSpec } from './spec'

/** Thrown by the projection for a spec outside the DSL (a JavaScript caller's mistake). */
export class SchemaSpecError extends Error {
  override readonly name = 'SchemaSpecError'
  /** `INVALID_SCHEMA_SPEC`. */
  readonly code = 'INVALID_SCHEMA_SPEC'
  /** JSON pointer into the projected JSON Schema, e.g. `/properties/path/type`. */
  readonly pointer: string
  constructor(pointer: string, detail: string) {
    super(`${pointer === '' ? '(root)' : capPointer(pointer)}: ${detail}`)
    this.pointer = pointer
  }
}

const SPEC_TYPES = ['string', 'number', 'integer', 'boolean', 'null', 'array', 'object', 'json'] as const
type SpecType = (typeof SPEC_TYPES)[number]

const ANNOTATION_KEYS = ['description', 'title', 'default', 'examples', 'required'] as const
const KEYS_BY_TYPE: Readonly<Record<SpecType | 'oneOf' | 'enum' | 'const', readonly string[]>> = {
  string: ['type', 'enum', 'const', 'minLength', 'maxLength', 'pattern', 'format'],
  number: ['type', 'enum', 'const', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  integer: ['type', 'enum', 'const', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  boolean: ['type', 'enum', 'const'],
  null: ['type'],
  array: ['type', 'items', 'minItems', 'maxItems'],
  object: ['type', 'properties', 'additionalProperties'],
  json: ['type'],
  oneOf: ['type', 'oneOf'],
  enum: ['type', 'enum'],
  const: ['type', 'const'],
}
const NUMERIC_KEYWORDS = [
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
] as const
const COUNT_KEYWORDS = new Set(['minLength', 'maxLength', 'minItems', 'maxItems'])

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function escapeToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1')
}

/** Defines an own enumerable property (plain assignment of `__proto__` would set the prototype). */
function setOwn(target: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

/** A detached copy of a JSON literal; throws for anything that is not JSON. */
function copyJson(value: unknown, pointer: string, seen: Set<object> = new Set()): JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new SchemaSpecError(pointer, `must be a JSON value (got ${String(value)})`)
    return value
  }
  if (typeof value === 'object') {
    if (seen.has(value)) throw new SchemaSpecError(pointer, 'must be a JSON value (got a cyclic object)')
    seen.add(value)
    let copy: JsonValue
    if (Array.isArray(value)) {
      copy = value.map((item, index) => copyJson(item, `${pointer}/${index}`, seen))
    } else {
      const object: JsonObject = {}
      for (const [key, item] of Object.entries(value)) setOwn(object, key, copyJson(item, `${pointer}/${escapeToken(key)}`, seen))
      copy = object
    }
    seen.delete(value)
    return copy
  }
  throw new SchemaSpecError(pointer, `must be a JSON value (got ${typeof value})`)
}

function kindOf(spec: Record<string, unknown>, pointer: string): SpecType | 'oneOf' | 'enum' | 'const' {
  const type = spec.type
  if (type !== undefined) {
    if (typeof type === 'string' && (SPEC_TYPES as readonly string[]).includes(type)) return type as SpecType
    throw new SchemaSpecError(
      `${pointer}/type`,
      `must be one of ${SPEC_TYPES.map((name) => `"${name}"`).join(', ')} (got ${JSON.stringify(type) ?? String(type)})`,
    )
  }
  if ('oneOf' in spec) return 'oneOf'
  if ('enum' in spec) return 'enum'
  if ('const' in spec) return 'const'
  throw new SchemaSpecError(pointer, 'a spec needs "type", "oneOf", "enum" or "const"')
}

function checkKeys(spec: Record<string, unknown>, kind: keyof typeof KEYS_BY_TYPE, pointer: string): void {
  const allowed = KEYS_BY_TYPE[kind]
  for (const key of Object.keys(spec)) {
    if (spec[key] === undefined) continue
    if (!allowed.includes(key) && !(ANNOTATION_KEYS as readonly string[]).includes(key)) {
      const what = kind === 'oneOf' || kind === 'enum' || kind === 'const' ? `a ${kind} spec` : `a "${kind}" spec`
      throw new SchemaSpecError(`${pointer}/${escapeToken(key)}`, `is not a keyword of ${what}`)
    }
  }
}

function checkLiteralList(values: unknown, pointer: string, itemType: SpecType | 'primitive'): JsonValue[] {
  if (!Array.isArray(values) || values.length === 0) throw new SchemaSpecError(pointer, 'must be a non-empty array')
  return values.map((value, index) => {
    const at = `${pointer}/${index}`
    const ok =
      itemType === 'primitive'
        ? value === null || ['string', 'number', 'boolean'].includes(typeof value)
        : itemType === 'integer'
          ? Number.isInteger(value)
          : typeof value === itemType
    if (!ok) throw new SchemaSpecError(at, `must be ${itemType === 'primitive' ? 'a JSON primitive' : `of type ${itemType}`} (got ${JSON.stringify(value) ?? typeof value})`)
    return copyJson(value, at)
  })
}

function projectNode(input: unknown, pointer: string): JsonObject {
  if (!isRecord(input)) throw new SchemaSpecError(pointer, `a spec must be an object (got ${input === null ? 'null' : Array.isArray(input) ? 'array' : typeof input})`)
  const spec = input
  const kind = kindOf(spec, pointer)
  checkKeys(spec, kind, pointer)
  const out: JsonObject = {}

  // 1. type
  if (kind !== 'json' && kind !== 'oneOf' && kind !== 'enum' && kind !== 'const') out.type = kind
  // 2. title, description
  for (const key of ['title', 'description'] as const) {
    const value = spec[key]
    if (value === undefined) continue
    if (typeof value !== 'string') throw new SchemaSpecError(`${pointer}/${key}`, `must be a string (got ${typeof value})`)
    out[key] = value
  }
  // 3. const / enum
  if (spec.const !== undefined) {
    const at = `${pointer}/const`
    const value = copyJson(spec.const, at)
    if (kind !== 'const') checkLiteralList([value], `${pointer}/const`, kind === 'integer' ? 'integer' : (kind as SpecType))
    out.const = value
  }
  if (spec.enum !== undefined) {
    out.enum = checkLiteralList(spec.enum, `${pointer}/enum`, kind === 'enum' ? 'primitive' : (kind as SpecType))
  }
  // 4–5. string and number constraints
  for (const key of NUMERIC_KEYWORDS) {
    if (key === 'minItems' || key === 'maxItems') continue
    const value = spec[key]
    if (value === undefined) continue
    checkNumber(value, `${pointer}/${key}`, COUNT_KEYWORDS.has(key), key === 'multipleOf')
    out[key] = value as number
  }
  if (spec.pattern !== undefined) {
    if (typeof spec.pattern !== 'string') throw new SchemaSpecError(`${pointer}/pattern`, 'must be a string')
    try {
      new RegExp(spec.pattern, 'u')
    } catch (error) {
      throw new SchemaSpecError(`${pointer}/pattern`, `is not a valid regular expression: ${(error as Error).message}`)
    }
    out.pattern = spec.pattern
  }
  if (spec.format !== undefined) {
    if (typeof spec.format !== 'string') throw new SchemaSpecError(`${pointer}/format`, 'must be a string')
    out.format = spec.format
  }
  // 6. array
  if (kind === 'array') {
    if (spec.items !== undefined) out.items = projectNode(spec.items, `${pointer}/items`)
    for (const key of ['minItems', 'maxItems'] as const) {
      if (spec[key] === undefined) continue
      checkNumber(spec[key], `${pointer}/${key}`, true, false)
      out[key] = spec[key] as number
    }
  }
  // 7. object
  if (kind === 'object') {
    if (spec.properties !== undefined) Object.assign(out, projectPropertiesInto(spec.properties, pointer))
    const additional = spec.additionalProperties
    if (typeof additional === 'boolean') out.additionalProperties = additional
    else if (additional !== undefined) out.additionalProperties = projectNode(additional, `${pointer}/additionalProperties`)
  }
  // 8. oneOf
  if (kind === 'oneOf') {
    const branches = spec.oneOf
    if (!Array.isArray(branches) || branches.length === 0) throw new SchemaSpecError(`${pointer}/oneOf`, 'must be a non-empty array of specs')
    out.oneOf = branches.map((branch, index) => projectNode(branch, `${pointer}/oneOf/${index}`))
  }
  // 9. default, examples
  if (spec.default !== undefined) out.default = copyJson(spec.default, `${pointer}/default`)
  if (spec.examples !== undefined) {
    if (!Array.isArray(spec.examples)) throw new SchemaSpecError(`${pointer}/examples`, 'must be an array')
    out.examples = copyJson(spec.examples, `${pointer}/examples`)
  }
  if (spec.required !== undefined && typeof spec.required !== 'boolean') {
    throw new SchemaSpecError(`${pointer}/required`, `must be a boolean (got ${typeof spec.required})`)
  }
  return out
}

function checkNumber(value: unknown, pointer: string, count: boolean, positive: boolean): void {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new SchemaSpecError(pointer, 'must be a finite number')
  if (count && (!Number.isInteger(value) || value < 0)) throw new SchemaSpecError(pointer, 'must be a non-negative integer')
  if (positive && value <= 0) throw new SchemaSpecError(pointer, 'must be greater than 0')
}

/** `{ properties, required? }` of a properties record, in declaration order. */
function projectPropertiesInto(properties: unknown, pointer: string): JsonObject {
  if (!isRecord(properties)) throw new SchemaSpecError(`${pointer}/properties`, 'must be an object of specs')
  const projected: JsonObject = {}
  const required: string[] = []
  for (const [name, spec] of Object.entries(properties)) {
    const at = `${pointer}/properties/${escapeToken(name)}`
    setOwn(projected, name, projectNode(spec, at))
    if (isRecord(spec) && spec.required === true) required.push(name)
  }
  return required.length > 0 ? { properties: projected, required } : { properties: projected }
}

/**
 * Projects one DSL node to JSON Schema. Total over {@link SchemaSpec} and deterministic: keys
 * are emitted in a fixed order (`type`, `title`, `description`, `const`, `enum`, string and
 * number constraints, `items`/`minItems`/`maxItems`, `properties`/`required`/
 * `additionalProperties`, `oneOf`, `default`, `examples`); properties keep declaration order
 * (JavaScript orders integer-like keys first); `required` lists required properties in that
 * order and is omitted when empty; `json` projects to `{}` plus annotations. The result is a
 * fresh, detached object. Throws {@link SchemaSpecError} (with a pointer into the projected
 * schema) for input outside the DSL: unknown `type` or keyword, non-JSON literals, an empty
 * `enum`/`oneOf`, an invalid `pattern`, negative or fractional counts.
 */
export function projectSchema(spec: SchemaSpec): JsonObject {
  checkDepth(spec, '', MAX_JSON_DEPTH)
  return projectNode(spec, '')
}

/**
 * The projection recurses; a spec nested deeper than {@link MAX_JSON_DEPTH} is refused first
 * (iteratively), so no input overflows the stack. A spec's nesting is its projection's.
 */
function checkDepth(spec: unknown, prefix: string, limit: number): void {
  const deep = findDepthProblem(spec, limit)
  if (deep !== undefined) throw new SchemaSpecError(`${prefix}${deep.pointer}`, `nests deeper than ${MAX_JSON_DEPTH} levels (MAX_JSON_DEPTH)`)
}

/**
 * Projects a parameters record to the object-rooted JSON Schema of a tool's arguments:
 * `{ type: 'object', properties, required? }` — without `additionalProperties` (extra keys are
 * allowed by default, so a model adding a harmless key does not fail the call) unless `closed` is given: `true` → `additionalProperties: false`, `false`
 * → `additionalProperties: true`. Deterministic as {@link projectSchema}.
 */
export function projectParameters(parameters: ParametersSpec, closed?: boolean): JsonObject {
  // The record sits under `properties` of the projected root: one level deeper.
  checkDepth(parameters, '/properties', MAX_JSON_DEPTH - 1)
  const projected: JsonObject = { type: 'object', ...projectPropertiesInto(parameters, '') }
  if (closed !== undefined) projected.additionalProperties = !closed
  return projected
}
