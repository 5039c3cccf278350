/**
 * The typed schema DSL, `defineTool`, `defineRawTool` and the model-facing JSON Schema
 * projection.
 *
 * Design: docs/design.md, "Definitions and schemas" (string, number, integer, boolean, null, array, object,
 * author-only json and exact-one oneOf; `InferValue` exact through 16 container levels, then
 * `JsonValue`), and the typed-parameters contract (per-property `required: true`,
 * `default` never applied, extra keys allowed, an object/array without properties/items only
 * type-checks); the projection is total and deterministic.
 */
import type {
  ContentBlock,
  JsonObject,
  JsonPrimitive,
  JsonSchemaNode,
  JsonValue,
  ToolDefinition,
  ToolExecution,
} from './contracts'
import { callbackMembers } from './define-members'
import { capPointer, findDepthProblem, MAX_JSON_DEPTH } from './limits'
import { defineStandardTool, isStandardSchema, type AnyStandardSchema, type DefineStandardToolInput, type StandardToolDefinition } from './standard-schema'

// ---------------------------------------------------------------------------------------------
// Spec types
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Inference
// ---------------------------------------------------------------------------------------------

/** Container levels inferred exactly before widening to `JsonValue` (docs/design.md, "Definitions and schemas"). */
export type MaxInferenceDepth = 16

type Deeper<D extends readonly unknown[]> = [...D, unknown]
type Simplify<T> = { [K in keyof T]: T[K] } & {}
type DeepMutable<T> = JsonLiteral extends T ? JsonValue : MutableNode<T>
type MutableNode<T> = T extends readonly unknown[]
  ? { -readonly [K in keyof T]: DeepMutable<T[K]> }
  : T extends object
    ? { -readonly [K in keyof T]: DeepMutable<T[K]> }
    : T

type RequiredKeys<P> = { [K in keyof P]-?: P[K] extends { readonly required: true } ? K : never }[keyof P]
type OptionalKeys<P> = Exclude<keyof P, RequiredKeys<P>>

type InferProperties<P, D extends readonly unknown[]> = Simplify<
  { -readonly [K in RequiredKeys<P>]: InferValue<P[K], D> } & { -readonly [K in OptionalKeys<P>]?: InferValue<P[K], D> }
>

type InferObject<S, D extends readonly unknown[]> = S extends { readonly properties: infer P }
  ? S extends { readonly additionalProperties: true | SchemaSpec }
    ? InferProperties<P, D> & { [key: string]: JsonValue }
    : InferProperties<P, D>
  : S extends { readonly additionalProperties: false }
    ? { [key: string]: never }
    : S extends { readonly additionalProperties: infer A extends SchemaSpec }
      ? { [key: string]: InferValue<A, D> }
      : JsonObject

type InferByType<S, T, D extends readonly unknown[]> = T extends 'string'
  ? string
  : T extends 'number' | 'integer'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'array'
          ? D['length'] extends MaxInferenceDepth
            ? JsonValue
            : S extends { readonly items: infer I }
              ? InferValue<I, Deeper<D>>[]
              : JsonValue[]
          : T extends 'object'
            ? D['length'] extends MaxInferenceDepth
              ? JsonValue
              : InferObject<S, Deeper<D>>
            : JsonValue

/**
 * The TypeScript type of the values a spec accepts: `const` → that literal, `enum` → the
 * literal union, `oneOf` → the union of its branches, `string`/`number`/`integer`/`boolean`/
 * `null` → the primitive, `array` → `T[]` (`JsonValue[]` without `items`), `object` → its
 * properties (required keys required, others optional; `JsonObject` without `properties`),
 * `json` → `JsonValue`; the unspecific `SchemaSpec` itself → `JsonValue`. Exact through {@link MaxInferenceDepth} (16) nested containers (arrays
 * and objects); a 17th nested container is `JsonValue`. `D` counts the containers entered.
 */
export type InferValue<S, D extends readonly unknown[] = []> = SchemaSpec extends S ? JsonValue : InferNode<S, D>

type InferNode<S, D extends readonly unknown[]> = S extends { readonly const: infer C }
  ? DeepMutable<C>
  : S extends { readonly enum: readonly (infer E)[] }
    ? E
    : S extends { readonly oneOf: readonly (infer B)[] }
      ? InferValue<B, D>
      : S extends { readonly type: infer T }
        ? InferByType<S, T, D>
        : JsonValue

/**
 * The arguments type of a parameters record: `required: true` properties are required keys,
 * all others optional. The arguments object counts as the first container level.
 */
export type InferArgs<P> = InferProperties<P, [unknown]>

// ---------------------------------------------------------------------------------------------
// Projection
// ---------------------------------------------------------------------------------------------

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

function isRecord(value: unknown): value is Record<string, unknown> {
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

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const child of Object.values(value)) deepFreeze(child)
  }
  return value
}

// ---------------------------------------------------------------------------------------------
// defineTool / defineRawTool
// ---------------------------------------------------------------------------------------------

/** The output declaration `defineTool` accepts: a spec for the canonical value and its rendering. */
export interface DslToolOutput<A, O extends SchemaSpec> {
  readonly schema: O
  /** Pure: the model-facing content of a successful value. */
  render(args: A, value: InferValue<O>): readonly ContentBlock[]
  /** Pure: non-model presentation metadata recorded with the result. */
  presentationMeta?(args: A, value: InferValue<O>): JsonValue | undefined
}

/**
 * The callbacks and flags both `defineTool` forms (DSL spec or Standard Schema) accept and copy
 * onto the definition (`ToolDefinition` documents each member). `A`: the arguments every callback
 * but `execute` receives (as sent; `presentCall`/`presentResult` only get them soft-validated
 * against the projected JSON Schema, and are not called otherwise); `E`: what `execute` receives;
 * `V`: the canonical (JSON) value.
 */
export interface DefineToolCallbacks<A, E, V extends JsonValue>
  extends Pick<ToolDefinition<A, V>, 'timeoutMs' | 'isConcurrencySafe' | 'idempotent' | 'presentCall' | 'presentResult' | 'finalizeContent' | 'projectContent' | 'deferLoading'> {
  /** Returns only the declared JSON value; must observe `exec.signal`. */
  execute(args: E, exec: ToolExecution): V | Promise<V>
}

/** What `defineTool` accepts (docs/design.md, "Definitions and schemas"). */
export interface DefineToolInput<P extends ParametersSpec, O extends SchemaSpec> extends DefineToolCallbacks<InferArgs<P>, InferArgs<P>, InferValue<O>> {
  readonly name: string
  readonly description: string
  readonly parameters: P
  /**
   * Unknown argument keys: `true` closes the arguments object (projected
   * `additionalProperties: false`: a call with a key `parameters` does not declare is
   * `INVALID_ARGS`, naming the closest declared key); `false` keeps it open even under the
   * registry option `unknownKeys: 'reject'` (projected `additionalProperties: true`); absent
   * says nothing (open, unless the registry rejects unknown keys). Nested objects close with
   * `additionalProperties: false` on their spec.
   */
  readonly closed?: boolean
  readonly output: DslToolOutput<InferArgs<P>, O>
}

/** The definition `defineTool` returns. `Value` is the inferred output (a JSON value). */
export type DslToolDefinition<P extends ParametersSpec, O extends SchemaSpec> = ToolDefinition<InferArgs<P>, InferValue<O>>

/** Thrown by `defineTool` / `defineRawTool` for a malformed definition (code `INVALID_TOOL_DEFINITION`). */
export class ToolDefinitionError extends Error {
  override readonly name = 'ToolDefinitionError'
  readonly code = 'INVALID_TOOL_DEFINITION'
  /** The tool's name as given. */
  readonly toolName: string
  /** JSON pointer into the definition (`/parameters/properties/x/type`, `/output/schema`, `/execute`). */
  readonly pointer: string
  constructor(toolName: string, pointer: string, detail: string) {
    super(`tool ${JSON.stringify(toolName)}: ${capPointer(pointer)}: ${detail}`)
    this.toolName = toolName
    this.pointer = pointer
  }
}

function project<T>(toolName: string, prefix: string, run: () => T): T {
  try {
    return run()
  } catch (error) {
    if (error instanceof SchemaSpecError) {
      throw new ToolDefinitionError(toolName, `${prefix}${error.pointer}`, error.message.slice(error.message.indexOf(': ') + 2))
    }
    throw error
  }
}

function requireFunction(toolName: string, pointer: string, value: unknown): void {
  if (typeof value !== 'function') throw new ToolDefinitionError(toolName, pointer, `must be a function (got ${typeof value})`)
}

/**
 * Builds a typed tool definition from the DSL (docs/design.md, "Definitions and schemas"), or from a
 * Standard Schema (zod 4, valibot, ArkType…) passed as `parameters` — see
 * {@link defineStandardTool} for that form. `parameters` is
 * projected with {@link projectParameters}, `output.schema` with {@link projectSchema} (both
 * deep-frozen); `source: 'dsl'`; `deferLoading` is kept only when `true`; optional members
 * are present only when given. `presentCall`/`presentResult` are wrapped so they receive
 * soft-validated arguments (invalid or old logged arguments → `undefined`) and never throw.
 * The returned definition is frozen. Throws {@link ToolDefinitionError} naming the tool and a
 * pointer for a spec outside the DSL or a missing `execute`/`output.render`. Name rules,
 * `timeoutMs` and duplicate checks belong to `register()`.
 */
export function defineTool<S extends AnyStandardSchema, const O extends AnyStandardSchema | SchemaSpec>(
  input: DefineStandardToolInput<S, O>,
): StandardToolDefinition<S, O>
export function defineTool<const P extends ParametersSpec, const O extends SchemaSpec>(input: DefineToolInput<P, O>): DslToolDefinition<P, O>
export function defineTool<const P extends ParametersSpec, const O extends SchemaSpec>(
  input: DefineToolInput<P, O>,
): DslToolDefinition<P, O> {
  // A Standard Schema (zod, valibot, ArkType…) instead of the DSL: see standard-schema.ts.
  if (isStandardSchema(input.parameters)) return defineStandardTool(input as unknown as DefineStandardToolInput<AnyStandardSchema, O>) as unknown as DslToolDefinition<P, O>
  const name = String(input.name)
  if (!isRecord(input.output)) throw new ToolDefinitionError(name, '/output', 'an output declaration { schema, render } is required')
  requireFunction(name, '/execute', input.execute)
  requireFunction(name, '/output/render', input.output.render)
  if (input.closed !== undefined && typeof input.closed !== 'boolean') throw new ToolDefinitionError(name, '/closed', `must be a boolean (got ${typeof input.closed})`)
  const parameters = deepFreeze(project(name, '/parameters', () => projectParameters(input.parameters, input.closed)))
  const outputSchema = deepFreeze(project(name, '/output/schema', () => projectSchema(input.output.schema)))

  type Args = InferArgs<P>
  type Value = InferValue<O>
  const source = input.output
  const output: DslToolDefinition<P, O>['output'] = Object.freeze({
    schema: outputSchema,
    render: (args: Args, value: Value) => source.render(args, value),
    ...(source.presentationMeta === undefined
      ? {}
      : { presentationMeta: (args: Args, value: Value) => source.presentationMeta?.(args, value) }),
  })
  const definition: DslToolDefinition<P, O> = {
    name,
    description: input.description,
    parameters,
    output,
    execute: (args: Args, exec: ToolExecution) => input.execute(args, exec),
    source: 'dsl',
    ...callbackMembers(input, parameters),
  }
  return Object.freeze(definition)
}

/** What `defineRawTool` accepts: an MCP-style tool with raw JSON Schemas; the body and flags are `ToolDefinition`'s members (documented there). */
export interface DefineRawToolInput
  extends Pick<ToolDefinition<JsonObject, JsonValue>, 'execute' | 'validateArguments' | 'checkArguments' | 'timeoutMs' | 'isConcurrencySafe' | 'idempotent' | 'deferLoading' | 'finalizeContent'> {
  readonly name: string
  readonly description: string
  /** The arguments' JSON Schema, used as it came (draft-07 or 2020-12). */
  readonly inputSchema: JsonSchemaNode
  /** The canonical value's JSON Schema; default `{}` (any JSON value). */
  readonly outputSchema?: JsonSchemaNode
  /** Pure rendering; default {@link renderJsonValue}. */
  render?(args: JsonObject, value: JsonValue): readonly ContentBlock[]
}

/**
 * What the model reads for a raw tool's `null` value — in particular for a body that returned
 * nothing (`undefined` becomes `null` where the output schema admits it).
 */
export const NULL_RESULT_TEXT = '(no output)'

/**
 * The default rendering of a raw tool's value: a string becomes one text block with it;
 * `null` becomes {@link NULL_RESULT_TEXT}; any other JSON value becomes one text block with
 * `JSON.stringify(value, null, 2)`.
 */
export function renderJsonValue(value: JsonValue): readonly ContentBlock[] {
  return [{ type: 'text', text: typeof value === 'string' ? value : value === null ? NULL_RESULT_TEXT : JSON.stringify(value, null, 2) }]
}

/**
 * Builds a definition from raw JSON Schemas (MCP and friends; docs/design.md, "Definitions and schemas"). `parameters` is `inputSchema` itself (not copied; treat it as immutable),
 * `output.schema` is `outputSchema` or `{}`, `output.render` is `render` or
 * {@link renderJsonValue}; `source: 'raw'`; `validateArguments` is kept only when `false`,
 * `deferLoading` only when `true`; `checkArguments` (run at prepare even with
 * `validateArguments: false`) as given. The returned definition is frozen. Throws
 * {@link ToolDefinitionError} when `execute` (or a given `render` or `checkArguments`) is not
 * a function.
 * Schema validity is checked by `register()` (`checkSchema`).
 */
export function defineRawTool(input: DefineRawToolInput): ToolDefinition<JsonObject, JsonValue> {
  const name = String(input.name)
  requireFunction(name, '/execute', input.execute)
  if (input.render !== undefined) requireFunction(name, '/render', input.render)
  if (input.checkArguments !== undefined) requireFunction(name, '/checkArguments', input.checkArguments)
  const render = input.render ?? ((_args: JsonObject, value: JsonValue) => renderJsonValue(value))
  const definition: ToolDefinition<JsonObject, JsonValue> = {
    name,
    description: input.description,
    parameters: input.inputSchema,
    output: Object.freeze({ schema: input.outputSchema ?? Object.freeze({}), render }),
    execute: input.execute,
    source: 'raw',
    ...(input.validateArguments === false ? { validateArguments: false } : {}),
    ...(input.checkArguments === undefined ? {} : { checkArguments: input.checkArguments }),
    ...(input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs }),
    ...(input.isConcurrencySafe === undefined ? {} : { isConcurrencySafe: input.isConcurrencySafe }),
    ...(input.idempotent === true ? { idempotent: true } : {}),
    ...(input.finalizeContent === undefined ? {} : { finalizeContent: input.finalizeContent }),
    ...(input.deferLoading === true ? { deferLoading: true } : {}),
  }
  return Object.freeze(definition)
}
