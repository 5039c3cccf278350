/**
 * The DSL's spec types: one interface per node kind (`string`, `number`/`integer`, `boolean`,
 * `null`, `array`, `object`, `json`, `oneOf`, `enum`, `const`), their shared annotations, and
 * the parameters record.
 */
import type { JsonPrimitive } from '../contracts'

/** A JSON value an author may write as a literal (readonly arrays and objects accepted). */
export type JsonLiteral = JsonPrimitive | readonly JsonLiteral[] | { readonly [key: string]: JsonLiteral }

/**
 * Annotations every spec node accepts. They are projected to JSON Schema and shown to the
 * model, but never applied as values (no default is inserted into arguments).
 * `required: true` marks a property of a parameters record or of an object's `properties`
 * as required; elsewhere it has no effect.
 */
export interface SpecAnnotations {
  readonly description?: string
  readonly title?: string
  readonly default?: JsonLiteral
  readonly examples?: readonly JsonLiteral[]
  readonly required?: boolean
}

/** `{ type: 'string' }` with optional literal `enum`/`const` and string constraints. */
export interface StringSpec extends SpecAnnotations {
  readonly type: 'string'
  readonly enum?: readonly string[]
  readonly const?: string
  readonly minLength?: number
  readonly maxLength?: number
  /** An ECMA-262 regular expression (JSON Schema `pattern`). */
  readonly pattern?: string
  /** A JSON Schema format (`uri`, `date-time`, `email`, …); unknown formats are not checked. */
  readonly format?: string
}

/** `{ type: 'number' }` or `{ type: 'integer' }` with optional literal `enum`/`const` and bounds. */
export interface NumberSpec extends SpecAnnotations {
  readonly type: 'number' | 'integer'
  readonly enum?: readonly number[]
  readonly const?: number
  readonly minimum?: number
  readonly maximum?: number
  readonly exclusiveMinimum?: number
  readonly exclusiveMaximum?: number
  readonly multipleOf?: number
}

/** `{ type: 'boolean' }`. */
export interface BooleanSpec extends SpecAnnotations {
  readonly type: 'boolean'
  readonly enum?: readonly boolean[]
  readonly const?: boolean
}

/** `{ type: 'null' }`. */
export interface NullSpec extends SpecAnnotations {
  readonly type: 'null'
}

/** `{ type: 'array' }`; without `items` the elements are any JSON value. */
export interface ArraySpec extends SpecAnnotations {
  readonly type: 'array'
  readonly items?: SchemaSpec
  readonly minItems?: number
  readonly maxItems?: number
}

/**
 * `{ type: 'object' }`. Without `properties` it is any JSON object. Extra keys are allowed
 * unless `additionalProperties` says otherwise (`false`, or a spec every extra value must match).
 */
export interface ObjectSpec extends SpecAnnotations {
  readonly type: 'object'
  readonly properties?: ParametersSpec
  readonly additionalProperties?: boolean | SchemaSpec
}

/** `{ type: 'json' }`: any JSON value (an author-only escape hatch; projects to `{}`). */
export interface JsonSpec extends SpecAnnotations {
  readonly type: 'json'
}

/** Exactly one of the branches must match (JSON Schema `oneOf`). */
export interface OneOfSpec extends SpecAnnotations {
  readonly oneOf: readonly SchemaSpec[]
  readonly type?: undefined
}

/** One of a list of JSON primitives (JSON Schema `enum` without `type`). */
export interface EnumSpec extends SpecAnnotations {
  readonly enum: readonly JsonPrimitive[]
  readonly type?: undefined
}

/** Exactly this JSON value (JSON Schema `const`). */
export interface ConstSpec extends SpecAnnotations {
  readonly const: JsonLiteral
  readonly type?: undefined
}

/** One node of the DSL. */
export type SchemaSpec =
  | StringSpec
  | NumberSpec
  | BooleanSpec
  | NullSpec
  | ArraySpec
  | ObjectSpec
  | JsonSpec
  | OneOfSpec
  | EnumSpec
  | ConstSpec

/** A parameters record: property name → spec (`required: true` marks required properties). */
export type ParametersSpec = { readonly [name: string]: SchemaSpec }
