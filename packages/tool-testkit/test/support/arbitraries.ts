/**
 * fast-check arbitraries over the schema DSL: random parameter schemas (as a plain "shape"
 * description), the DSL spec a shape stands for, values it accepts, and single-point
 * mutations it must reject with a known JSON pointer and message.
 */
import fc from 'fast-check'
import type { JsonValue, ParametersSpec, SchemaSpec } from '@deepseek-ai/dsh-tools'

/** A random schema node, as data (so fast-check can print and shrink it). */
export type Shape =
  | { readonly k: 'string'; readonly minLength?: number; readonly maxLength?: number; readonly description?: string }
  | { readonly k: 'number'; readonly minimum?: number; readonly maximum?: number }
  | { readonly k: 'integer'; readonly minimum?: number; readonly maximum?: number }
  | { readonly k: 'boolean' }
  | { readonly k: 'null' }
  | { readonly k: 'json' }
  | { readonly k: 'enum'; readonly values: readonly (string | number | boolean | null)[] }
  | { readonly k: 'const'; readonly value: JsonValue }
  | { readonly k: 'array'; readonly items?: Shape; readonly minItems?: number; readonly maxItems?: number }
  | { readonly k: 'object'; readonly props: readonly Prop[]; readonly closed: boolean }
  | { readonly k: 'oneOf'; readonly branches: readonly Shape[] }

/** A property of an object shape. */
export interface Prop {
  readonly name: string
  readonly shape: Shape
  readonly required: boolean
}

/** Property names, including ones a JSON pointer must escape (`/`, `~`) and integer-like keys. */
const propName = fc.oneof(
  { weight: 4, arbitrary: fc.stringMatching(/^[a-z][a-z0-9_]{0,6}$/) },
  { weight: 1, arbitrary: fc.constantFrom('a/b', 'c~d', 'with space', 'ünï', '0', '12', 'type', 'required', '$ref') },
)

const jsonLeaf = fc.oneof(fc.string({ maxLength: 6 }), fc.integer({ min: -1000, max: 1000 }), fc.boolean(), fc.constant(null))

/** A JSON value without `-0` (JSON cannot tell it from `0`). */
export const jsonValue: fc.Arbitrary<JsonValue> = fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v)) as JsonValue)

const leafShape: fc.Arbitrary<Shape> = fc.oneof(
  fc.record({ k: fc.constant('string' as const), minLength: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }), maxLength: fc.option(fc.integer({ min: 3, max: 12 }), { nil: undefined }), description: fc.option(fc.string({ maxLength: 10 }), { nil: undefined }) }, { requiredKeys: ['k'] }),
  fc.record({ k: fc.constant('number' as const), minimum: fc.option(fc.integer({ min: -100, max: 0 }), { nil: undefined }), maximum: fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }) }, { requiredKeys: ['k'] }),
  fc.record({ k: fc.constant('integer' as const), minimum: fc.option(fc.integer({ min: -100, max: 0 }), { nil: undefined }), maximum: fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }) }, { requiredKeys: ['k'] }),
  fc.constant({ k: 'boolean' as const }),
  fc.constant({ k: 'null' as const }),
  fc.constant({ k: 'json' as const }),
  fc.record({ k: fc.constant('enum' as const), values: fc.uniqueArray(jsonLeaf, { minLength: 1, maxLength: 4, selector: (v) => JSON.stringify(v) }) }),
  fc.record({ k: fc.constant('const' as const), value: jsonValue }),
)

/** `oneOf` branches of pairwise disjoint JSON types (so exactly one branch matches a value). */
const oneOfShape = (node: fc.Arbitrary<Shape>): fc.Arbitrary<Shape> =>
  fc
    .uniqueArray(fc.constantFrom('string', 'number', 'boolean', 'null', 'array', 'object'), { minLength: 2, maxLength: 3 })
    .chain((kinds) =>
      fc.tuple(
        ...kinds.map((kind): fc.Arbitrary<Shape> => {
          switch (kind) {
            case 'string':
              return fc.constant({ k: 'string' })
            case 'number':
              return fc.constantFrom<Shape>({ k: 'number' }, { k: 'integer' })
            case 'boolean':
              return fc.constant({ k: 'boolean' })
            case 'null':
              return fc.constant({ k: 'null' })
            case 'array':
              return node.map((items): Shape => ({ k: 'array', items }))
            default:
              return fc.uniqueArray(fc.record({ name: propName, shape: node, required: fc.boolean() }), { maxLength: 2, selector: (p) => p.name }).map((props): Shape => ({ k: 'object', props, closed: false }))
          }
        }),
      ),
    )
    .map((branches): Shape => ({ k: 'oneOf', branches }))

/** Random shapes up to `depth` container levels below the root. */
export function shapeArb(depth: number): fc.Arbitrary<Shape> {
  if (depth <= 0) return leafShape
  const inner = shapeArb(depth - 1)
  return fc.oneof(
    { weight: 6, arbitrary: leafShape },
    { weight: 2, arbitrary: fc.record({ k: fc.constant('array' as const), items: fc.option(inner, { nil: undefined }), minItems: fc.option(fc.integer({ min: 0, max: 1 }), { nil: undefined }), maxItems: fc.option(fc.integer({ min: 2, max: 4 }), { nil: undefined }) }, { requiredKeys: ['k'] }) },
    { weight: 2, arbitrary: objectShapeArb(inner, 3) },
    { weight: 1, arbitrary: oneOfShape(inner) },
  )
}

function objectShapeArb(inner: fc.Arbitrary<Shape>, maxProps: number): fc.Arbitrary<Shape & { k: 'object' }> {
  return fc.record({
    k: fc.constant('object' as const),
    props: fc.uniqueArray(fc.record({ name: propName, shape: inner, required: fc.boolean() }), { maxLength: maxProps, selector: (p) => p.name }),
    closed: fc.boolean(),
  })
}

/** A random tool parameters record (the root object), up to `depth` levels of nesting inside. */
export function parametersArb(depth = 2, maxProps = 4): fc.Arbitrary<readonly Prop[]> {
  return objectShapeArb(shapeArb(depth), maxProps).map((o) => o.props)
}

// ---------------------------------------------------------------------------------------------
// shape → DSL spec
// ---------------------------------------------------------------------------------------------

/** The DSL spec of a shape (`required` is added by the enclosing object). */
export function specOf(shape: Shape, required = false): SchemaSpec {
  const req = required ? { required: true as const } : {}
  switch (shape.k) {
    case 'string':
      return { type: 'string', ...req, ...(shape.minLength === undefined ? {} : { minLength: shape.minLength }), ...(shape.maxLength === undefined ? {} : { maxLength: shape.maxLength }), ...(shape.description === undefined ? {} : { description: shape.description }) }
    case 'number':
    case 'integer':
      return { type: shape.k, ...req, ...(shape.minimum === undefined ? {} : { minimum: shape.minimum }), ...(shape.maximum === undefined ? {} : { maximum: shape.maximum }) }
    case 'boolean':
    case 'null':
    case 'json':
      return { type: shape.k, ...req }
    case 'enum':
      return { enum: shape.values, ...req }
    case 'const':
      return { const: shape.value, ...req }
    case 'array':
      return { type: 'array', ...req, ...(shape.items === undefined ? {} : { items: specOf(shape.items) }), ...(shape.minItems === undefined ? {} : { minItems: shape.minItems }), ...(shape.maxItems === undefined ? {} : { maxItems: shape.maxItems }) }
    case 'object':
      return { type: 'object', ...req, properties: parametersOf(shape.props), ...(shape.closed ? { additionalProperties: false } : {}) }
    case 'oneOf':
      return { oneOf: shape.branches.map((b) => specOf(b)), ...req }
  }
}

/** The DSL parameters record of a list of properties. */
export function parametersOf(props: readonly Prop[]): ParametersSpec {
  const out: Record<string, SchemaSpec> = {}
  for (const p of props) out[p.name] = specOf(p.shape, p.required)
  return out
}

// ---------------------------------------------------------------------------------------------
// values
// ---------------------------------------------------------------------------------------------

const noNegZero = (x: number) => (Object.is(x, -0) ? 0 : x)

/** Values the shape accepts. */
export function validArb(shape: Shape): fc.Arbitrary<JsonValue> {
  switch (shape.k) {
    case 'string': {
      const min = shape.minLength ?? 0
      return fc.string({ minLength: min, maxLength: Math.max(min, shape.maxLength ?? 12) })
    }
    case 'number':
      return fc.double({ min: shape.minimum ?? -1e9, max: shape.maximum ?? 1e9, noNaN: true, noDefaultInfinity: true }).map(noNegZero)
    case 'integer':
      return fc.integer({ min: shape.minimum ?? -1e6, max: shape.maximum ?? 1e6 }).map(noNegZero)
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    case 'json':
      return jsonValue
    case 'enum':
      return fc.constantFrom(...shape.values)
    case 'const':
      return fc.constant(shape.value)
    case 'array': {
      const min = shape.minItems ?? 0
      return fc.array(shape.items === undefined ? jsonValue : validArb(shape.items), { minLength: min, maxLength: Math.max(min, shape.maxItems ?? 3) })
    }
    case 'object':
      return objectArb(shape.props)
    case 'oneOf':
      return fc.oneof(...shape.branches.map(validArb))
  }
}

/** Objects with every required property and a random subset of the optional ones. */
export function objectArb(props: readonly Prop[]): fc.Arbitrary<JsonValue> {
  if (props.length === 0) return fc.constant({})
  const model: Record<string, fc.Arbitrary<JsonValue>> = {}
  for (const p of props) model[p.name] = validArb(p.shape)
  return fc.record(model, { requiredKeys: props.filter((p) => p.required).map((p) => p.name) }).map((o) => {
    // fc.record builds with plain assignment; rebuild so keys like "__proto__" stay data.
    const out: Record<string, JsonValue> = {}
    for (const [k, v] of Object.entries(o)) out[k] = v as JsonValue
    return out
  })
}

// ---------------------------------------------------------------------------------------------
// mutations
// ---------------------------------------------------------------------------------------------

/** One invalid variant of a valid value: where it breaks and the issue text the validator reports there. */
export interface Mutation {
  readonly value: JsonValue
  /** JSON pointer of the broken location (RFC 6901 escaped). */
  readonly pointer: string
  /** The issue message at that pointer, e.g. `must be string (got number)` or `is required`. */
  readonly message: string
}

const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1')

/** A value of another JSON type than `type`, and its type label as the validator prints it. */
function wrongFor(type: 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'array' | 'object'): [JsonValue, string] {
  switch (type) {
    case 'string':
      return [12345, 'number']
    case 'null':
      return [0, 'number']
    default:
      return ['wrong', 'string']
  }
}

/**
 * Every single-point mutation of `value` (valid for `props`) that the validator must reject
 * with exactly one issue: a missing required property, or a typed node replaced by a value of
 * another JSON type. Nodes under `oneOf`, `enum`, `const` and `json` are not mutated (their
 * issue is reported at the combinator, not the leaf).
 */
export function mutationsOf(props: readonly Prop[], value: Readonly<Record<string, JsonValue>>, pointer = ''): Mutation[] {
  const out: Mutation[] = []
  for (const p of props) {
    const here = `${pointer}/${escape(p.name)}`
    const has = Object.prototype.hasOwnProperty.call(value, p.name)
    const replace = (v: JsonValue): JsonValue => {
      const copy: Record<string, JsonValue> = {}
      for (const [k, x] of Object.entries(value)) copy[k] = x
      copy[p.name] = v
      return copy
    }
    if (p.required && has) {
      const copy: Record<string, JsonValue> = {}
      for (const [k, x] of Object.entries(value)) if (k !== p.name) copy[k] = x
      out.push({ value: copy, pointer: here, message: 'is required' })
    }
    if (!has) continue
    for (const inner of nodeMutations(p.shape, value[p.name]!, here)) out.push({ ...inner, value: replace(inner.value) })
  }
  return out
}

function nodeMutations(shape: Shape, value: JsonValue, pointer: string): Mutation[] {
  switch (shape.k) {
    case 'string':
    case 'number':
    case 'integer':
    case 'boolean':
    case 'null': {
      const [wrong, got] = wrongFor(shape.k)
      return [{ value: wrong, pointer, message: `must be ${shape.k} (got ${got})` }]
    }
    case 'array': {
      const [wrong, got] = wrongFor('array')
      const own: Mutation = { value: wrong, pointer, message: `must be array (got ${got})` }
      if (shape.items === undefined || !Array.isArray(value) || value.length === 0) return [own]
      const items = shape.items
      const first = nodeMutations(items, value[0]!, `${pointer}/0`).map((m) => ({ ...m, value: [m.value, ...value.slice(1)] }))
      return [own, ...first]
    }
    case 'object': {
      const [wrong, got] = wrongFor('object')
      const own: Mutation = { value: wrong, pointer, message: `must be object (got ${got})` }
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return [own]
      return [own, ...mutationsOf(shape.props, value, pointer)]
    }
    default:
      return []
  }
}
