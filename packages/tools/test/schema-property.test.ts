/**
 * Property tests (fast-check, seeded) over random DSL parameter specs (ARCHITECTURE §11):
 * generated valid arguments pass the projected schema's validator; removing a required key
 * fails with an issue naming that key; a wrong primitive type fails at exactly its pointer;
 * projection is deterministic; repair never throws and never mutates its input.
 */
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import type { JsonObject, JsonValue } from '../src/contracts'
import { getValidator } from '../src/json-schema'
import { repairArguments } from '../src/repair'
import { projectParameters, type ParametersSpec, type SchemaSpec } from '../src/schema'

const SEED = 20241130
const RUNS = 200

const NAMES = ['a', 'b', 'path', 'x/y', 't~1', 'with space', 'ünï'] as const
const PRIMITIVE_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null'])

const optional = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(arb, { nil: undefined })

/** Drops keys whose value is undefined (the DSL rejects nothing for them, but keep specs tidy). */
function tidy<T extends object>(spec: T): T {
  return Object.fromEntries(Object.entries(spec).filter(([, value]) => value !== undefined)) as T
}

const stringSpec: fc.Arbitrary<SchemaSpec> = fc
  .record({ min: optional(fc.nat(3)), extra: optional(fc.nat(5)), description: optional(fc.constant('text')) })
  .map(({ min, extra, description }) =>
    tidy({ type: 'string' as const, minLength: min, maxLength: extra === undefined ? undefined : (min ?? 0) + extra, description }),
  )

const numberSpec = (type: 'number' | 'integer'): fc.Arbitrary<SchemaSpec> =>
  fc
    .record({ min: optional(fc.integer({ min: -100, max: 100 })), extra: optional(fc.nat(50)), dflt: optional(fc.integer()) })
    .map(({ min, extra, dflt }) =>
      tidy({ type, minimum: min, maximum: extra === undefined ? undefined : (min ?? 0) + extra, default: dflt }),
    )

const enumSpec: fc.Arbitrary<SchemaSpec> = fc.oneof(
  fc
    .uniqueArray(fc.oneof(fc.string({ maxLength: 4 }), fc.integer({ min: -5, max: 5 }), fc.boolean(), fc.constant(null)), {
      minLength: 1,
      maxLength: 4,
      selector: (value) => JSON.stringify(value),
    })
    .map((values) => ({ enum: values })),
  fc.uniqueArray(fc.string({ maxLength: 4 }), { minLength: 1, maxLength: 4 }).map((values) => ({ type: 'string' as const, enum: values })),
)

const primitiveSpec: fc.Arbitrary<SchemaSpec> = fc.oneof(
  stringSpec,
  numberSpec('number'),
  numberSpec('integer'),
  fc.constant({ type: 'boolean' as const }),
  fc.constant({ type: 'null' as const }),
  fc.constant({ type: 'json' as const }),
  enumSpec,
  fc.jsonValue({ maxDepth: 2 }).map((value) => ({ const: value as JsonValue })),
)

const specCache = new Map<number, fc.Arbitrary<SchemaSpec>>()
function specOf(depth: number): fc.Arbitrary<SchemaSpec> {
  const cached = specCache.get(depth)
  if (cached !== undefined) return cached
  if (depth === 0) return primitiveSpec
  const inner = specOf(depth - 1)
  const arraySpec = fc
    .record({ items: optional(inner), min: optional(fc.nat(2)), extra: optional(fc.nat(3)) })
    .map(({ items, min, extra }) =>
      tidy({ type: 'array' as const, items, minItems: min, maxItems: extra === undefined ? undefined : (min ?? 0) + extra }),
    )
  const objectSpec = fc
    .record({ properties: propertiesOf(inner, 0), closed: fc.constantFrom(undefined, false, { type: 'integer' as const }) })
    .map(({ properties, closed }) => tidy({ type: 'object' as const, properties, additionalProperties: closed }))
  // oneOf branches of pairwise distinct JSON types, so a value of one branch matches exactly one.
  const oneOfSpec = fc
    .subarray(['string', 'boolean', 'null', 'array', 'object'] as const, { minLength: 1 })
    .chain((families) =>
      fc.tuple(
        ...families.map((family): fc.Arbitrary<SchemaSpec> => {
          if (family === 'array') return arraySpec
          if (family === 'object') return objectSpec
          if (family === 'string') return stringSpec
          return fc.constant({ type: family })
        }),
      ),
    )
    .map((branches) => ({ oneOf: branches }))
  const spec = fc.oneof({ weight: 3, arbitrary: primitiveSpec }, arraySpec, objectSpec, oneOfSpec)
  specCache.set(depth, spec)
  return spec
}

function propertiesOf(inner: fc.Arbitrary<SchemaSpec>, minLength: number): fc.Arbitrary<ParametersSpec> {
  return fc
    .uniqueArray(fc.tuple(fc.constantFrom(...NAMES), inner, fc.boolean()), { selector: ([name]) => name, minLength, maxLength: 3 })
    .map((entries) => Object.fromEntries(entries.map(([name, spec, required]) => [name, required ? { ...spec, required: true } : spec])))
}

/** A generator of values the spec accepts. */
function valueOf(spec: SchemaSpec): fc.Arbitrary<JsonValue> {
  if ('const' in spec && spec.const !== undefined) return fc.constant(structuredClone(spec.const) as JsonValue)
  if ('enum' in spec && spec.enum !== undefined) return fc.constantFrom(...(spec.enum as readonly JsonValue[]))
  if ('oneOf' in spec && spec.oneOf !== undefined) return fc.oneof(...spec.oneOf.map(valueOf))
  switch (spec.type) {
    case 'string':
      return fc.string({ minLength: spec.minLength ?? 0, maxLength: spec.maxLength ?? (spec.minLength ?? 0) + 6 })
    case 'number':
      return fc.double({ min: spec.minimum ?? -1e6, max: spec.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true })
    case 'integer':
      return fc.integer({ min: spec.minimum ?? -1e6, max: spec.maximum ?? 1e6 })
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    case 'json':
      return fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>
    case 'array':
      return fc.array(spec.items === undefined ? (fc.jsonValue({ maxDepth: 1 }) as fc.Arbitrary<JsonValue>) : valueOf(spec.items), {
        minLength: spec.minItems ?? 0,
        maxLength: spec.maxItems ?? (spec.minItems ?? 0) + 3,
      })
    case 'object':
      return objectValueOf(spec.properties ?? {})
    default:
      throw new Error(`no generator for ${JSON.stringify(spec)}`)
  }
}

function objectValueOf(properties: ParametersSpec): fc.Arbitrary<JsonValue> {
  const model = Object.fromEntries(Object.entries(properties).map(([name, spec]) => [name, valueOf(spec)]))
  const requiredKeys = Object.entries(properties)
    .filter(([, spec]) => spec.required === true)
    .map(([name]) => name)
  return fc.record(model, { requiredKeys }) as fc.Arbitrary<JsonValue>
}

const escape = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1')

interface Sites {
  /** Present required properties: parent pointer and key. */
  readonly required: { readonly parent: string; readonly key: string }[]
  /** Locations holding a value of a plain primitive type. */
  readonly typed: { readonly pointer: string; readonly type: string }[]
}

/** Walks spec and value together through object properties and array items (not oneOf/json). */
function sitesOf(spec: SchemaSpec, value: JsonValue, pointer: string, sites: Sites): Sites {
  if ('oneOf' in spec && spec.oneOf !== undefined) return sites
  if (spec.type === 'object' && spec.properties !== undefined && typeof value === 'object' && value !== null && !Array.isArray(value)) {
    for (const [key, sub] of Object.entries(spec.properties)) {
      if (!Object.prototype.hasOwnProperty.call(value, key)) continue
      if (sub.required === true) sites.required.push({ parent: pointer, key })
      sitesOf(sub, value[key]!, `${pointer}/${escape(key)}`, sites)
    }
  } else if (spec.type === 'array' && spec.items !== undefined && Array.isArray(value)) {
    value.forEach((item, index) => sitesOf(spec.items!, item, `${pointer}/${index}`, sites))
  } else if (spec.type !== undefined && PRIMITIVE_TYPES.has(spec.type)) {
    sites.typed.push({ pointer, type: spec.type })
  }
  return sites
}

function containerAt(root: JsonValue, pointer: string): JsonObject | JsonValue[] {
  let node: JsonValue = root
  for (const token of pointer.split('/').slice(1)) {
    const key = token.replace(/~1/g, '/').replace(/~0/g, '~')
    node = Array.isArray(node) ? node[Number(key)]! : (node as JsonObject)[key]!
  }
  return node as JsonObject | JsonValue[]
}

function setAt(root: JsonValue, pointer: string, replacement: JsonValue): void {
  const cut = pointer.lastIndexOf('/')
  const parent = containerAt(root, pointer.slice(0, cut))
  const key = pointer.slice(cut + 1).replace(/~1/g, '/').replace(/~0/g, '~')
  if (Array.isArray(parent)) parent[Number(key)] = replacement
  else parent[key] = replacement
}

const WRONG: Readonly<Record<string, { readonly value: JsonValue; readonly got: string }>> = {
  string: { value: 42, got: 'number' },
  number: { value: 'x', got: 'string' },
  integer: { value: 'x', got: 'string' },
  boolean: { value: 'x', got: 'string' },
  null: { value: 0, got: 'number' },
}

/** A parameters record (at least one property) with a valid arguments value. */
const specAndArgs = propertiesOf(specOf(2), 1).chain((parameters) =>
  fc.tuple(fc.constant(parameters), objectValueOf(parameters) as fc.Arbitrary<JsonObject>),
)

const options = { seed: SEED, numRuns: RUNS }

describe('random DSL specs', () => {
  test('generated valid arguments pass the projected schema', () => {
    fc.assert(
      fc.property(specAndArgs, ([parameters, args]) => {
        expect(getValidator(projectParameters(parameters))(args)).toEqual([])
      }),
      options,
    )
  })

  test('projection is deterministic', () => {
    fc.assert(
      fc.property(specAndArgs, ([parameters]) => {
        expect(JSON.stringify(projectParameters(parameters))).toBe(JSON.stringify(projectParameters(structuredClone(parameters))))
      }),
      options,
    )
  })

  test('removing a required key fails with "is required" at that key’s pointer', () => {
    fc.assert(
      fc.property(
        specAndArgs.filter(([parameters, args]) => sitesOf({ type: 'object', properties: parameters }, args, '', { required: [], typed: [] }).required.length > 0),
        fc.nat(),
        ([parameters, args], pick) => {
          const { required } = sitesOf({ type: 'object', properties: parameters }, args, '', { required: [], typed: [] })
          const site = required[pick % required.length]!
          const broken = structuredClone(args)
          delete (containerAt(broken, site.parent) as JsonObject)[site.key]
          const found = getValidator(projectParameters(parameters))(broken)
          expect(found).toContainEqual({ pointer: `${site.parent}/${escape(site.key)}`, keyword: 'required', message: 'is required' })
        },
      ),
      options,
    )
  })

  test('a wrong primitive type fails at exactly its pointer', () => {
    fc.assert(
      fc.property(
        specAndArgs.filter(([parameters, args]) => sitesOf({ type: 'object', properties: parameters }, args, '', { required: [], typed: [] }).typed.length > 0),
        fc.nat(),
        ([parameters, args], pick) => {
          const { typed } = sitesOf({ type: 'object', properties: parameters }, args, '', { required: [], typed: [] })
          const site = typed[pick % typed.length]!
          const wrong = WRONG[site.type]!
          const broken = structuredClone(args)
          setAt(broken, site.pointer, wrong.value)
          const found = getValidator(projectParameters(parameters))(broken)
          expect(found).toContainEqual({ pointer: site.pointer, keyword: 'type', message: `must be ${site.type} (got ${wrong.got})` })
          expect(found.every((issue) => issue.pointer === site.pointer)).toBe(true)
        },
      ),
      options,
    )
  })

  test('repair never throws, never mutates, and leaves valid arguments valid', () => {
    fc.assert(
      fc.property(specAndArgs, ([parameters, args]) => {
        const schema = projectParameters(parameters)
        const before = JSON.stringify(args)
        const out = repairArguments(schema, args, { jsonStrings: true, numericStrings: true, nullAsAbsent: true })
        expect(JSON.stringify(args)).toBe(before)
        expect(getValidator(schema)(out.value)).toEqual([])
      }),
      options,
    )
  })
})
