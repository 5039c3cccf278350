/**
 * JSON Schema support through ajv (ARCHITECTURE §4.1): dialects, references, combinators,
 * formats, the validator cache, exact issue pointers/messages, and registration-time checks.
 */
import { describe, expect, test } from 'vitest'
import type { JsonSchemaNode } from '../src/contracts'
import {
  checkSchema,
  detectDialect,
  formatIssues,
  getValidator,
  resolveJsonPointer,
  resolveLocalRef,
  validatorCacheStats,
  type ValidationIssue,
} from '../src/json-schema'

/** `pointer message` lines of a validation. */
function issues(schema: JsonSchemaNode, value: unknown): string[] {
  return getValidator(schema)(value).map((issue) => `${issue.pointer} ${issue.message}`)
}

describe('issues: pointers name the offending instance location; messages are exact', () => {
  const schema = {
    type: 'object',
    properties: {
      count: { type: 'integer', minimum: 1, maximum: 10 },
      name: { type: 'string', minLength: 2, pattern: '^[a-z]+$' },
      mode: { enum: ['a', 'b'] },
      version: { const: 2 },
      nested: {
        type: 'object',
        properties: { b: { type: 'string' } },
        required: ['b'],
        additionalProperties: false,
      },
      tags: { type: 'array', items: { type: 'string' }, maxItems: 2 },
    },
    required: ['count', 'name'],
  } as const

  test('required → pointer of the missing property, "is required"', () => {
    expect(issues(schema, { count: 1, nested: {} })).toEqual(['/name is required', '/nested/b is required'])
  })

  test('additionalProperties → pointer of the extra property, naming the declared keys', () => {
    expect(issues(schema, { count: 1, name: 'ab', nested: { b: 'x', extra: 1, 'a/b': 2 } })).toEqual([
      '/nested/extra is not a declared key (declared: "b")',
      '/nested/a~1b is not a declared key (declared: "b")',
    ])
  })

  test('type, enum, const, bounds, pattern, items', () => {
    expect(issues(schema, { count: '3', name: 'A', mode: 'c', version: 3, tags: ['x', 2, 'z'] })).toEqual([
      '/count must be integer (got string)',
      '/name must NOT have fewer than 2 characters',
      '/name must match pattern "^[a-z]+$"',
      '/mode must be one of "a", "b"',
      '/version must equal 2',
      '/tags must NOT have more than 2 items',
      '/tags/1 must be string (got number)',
    ])
    expect(issues(schema, { count: 0, name: 'ok' })).toEqual(['/count must be >= 1'])
    expect(issues(schema, { count: 2.5, name: 'ok' })).toEqual(['/count must be integer (got number)'])
  })

  test('the root is the empty pointer; formatIssues shows it as (root)', () => {
    const found = getValidator(schema)([])
    expect(found).toEqual([{ pointer: '', keyword: 'type', message: 'must be object (got array)' }])
    expect(formatIssues(found)).toBe('(root): must be object (got array)')
    expect(formatIssues(getValidator(schema)({ count: 'x' }))).toBe('/count: must be integer (got string); /name: is required')
  })

  test('a valid value returns one shared frozen empty array; issues are frozen', () => {
    const validate = getValidator(schema)
    const a = validate({ count: 1, name: 'ok' })
    const b = validate({ count: 2, name: 'fine' })
    expect(a).toBe(b)
    expect(a).toHaveLength(0)
    expect(Object.isFrozen(a)).toBe(true)
    const bad = validate({})
    expect(Object.isFrozen(bad)).toBe(true)
    expect(Object.isFrozen(bad[0])).toBe(true)
  })

  test('type arrays list every admitted type', () => {
    expect(issues({ type: ['string', 'null'] }, 1)).toEqual([' must be string or null (got number)'])
    expect(issues({ type: ['string', 'integer', 'null'] }, true)).toEqual([' must be string, integer or null (got boolean)'])
    expect(issues({ type: ['string', 'null'] }, null)).toEqual([])
  })

  test('long enums are shortened after 20 values', () => {
    const values = Array.from({ length: 23 }, (_, index) => `v${index}`)
    const [line] = issues({ enum: values }, 'nope')
    expect(line).toBe(` must be one of ${values.slice(0, 20).map((v) => `"${v}"`).join(', ')} and 3 more`)
  })

  test('dependentRequired and unevaluatedProperties (2020-12) name the property', () => {
    const s = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { card: { type: 'string' }, cvc: { type: 'string' } },
      dependentRequired: { card: ['cvc'] },
      unevaluatedProperties: false,
    }
    expect(issues(s, { card: '4111', other: 1 })).toEqual(['/cvc is required when "card" is present', '/other is not a declared key (declared: "card", "cvc")'])
  })

  test('propertyNames violations name the offending key', () => {
    const s = { type: 'object', propertyNames: { pattern: '^[a-z]+$', maxLength: 3 } }
    expect(issues(s, { abc: 1, Abcd: 2 })).toEqual([
      '/Abcd property name must NOT have more than 3 characters',
      '/Abcd property name must match pattern "^[a-z]+$"',
    ])
  })

  test('a false subschema rejects the property', () => {
    expect(issues({ type: 'object', properties: { legacy: false } }, { legacy: 1 })).toEqual(['/legacy is not allowed'])
  })
})

describe('issues come in the order the schema declares what they point at', () => {
  test('a member’s violation before a later missing key (ajv checks required first)', () => {
    const ab: JsonSchemaNode = { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } }, required: ['a', 'b'] }
    expect(formatIssues(getValidator(ab)({ a: '2' }))).toBe('/a: must be integer (got string); /b: is required')
    const ba: JsonSchemaNode = { type: 'object', properties: { b: { type: 'integer' }, a: { type: 'integer' } }, required: ['a', 'b'] }
    expect(formatIssues(getValidator(ba)({ a: '2' }))).toBe('/b: is required; /a: must be integer (got string)')
  })

  test('nested objects and arrays: declared keys in declaration order, undeclared keys after them, elements by index (10 after 2), a location before what lies under it', () => {
    const schema: JsonSchemaNode = {
      type: 'object',
      properties: {
        assignee: { type: 'object', properties: { login: { type: 'string' }, team: { type: 'string' } }, required: ['login'], additionalProperties: false },
        checklist: { type: 'array', items: { type: 'object', properties: { text: { type: 'string' }, done: { type: 'boolean' } }, required: ['text'] } },
        title: { type: 'string' },
      },
      required: ['title', 'assignee'],
    }
    const items = Array.from({ length: 11 }, (_, i) => (i === 2 || i === 10 ? { done: 'no' } : { text: 't' }))
    expect(issues(schema, { checklist: items, assignee: { name: 'x', team: 1 } })).toEqual([
      '/assignee/login is required',
      '/assignee/team must be string (got number)',
      '/assignee/name is not a declared key (declared: "login", "team")',
      '/checklist/2/text is required',
      '/checklist/2/done must be boolean (got string)',
      '/checklist/10/text is required',
      '/checklist/10/done must be boolean (got string)',
      '/title is required',
    ])
  })

  test('local $refs are followed, escaped pointer segments are read as keys, and a tuple’s elements use their own schemas', () => {
    const schema: JsonSchemaNode = {
      type: 'object',
      $defs: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'object', properties: { 'z/y': { type: 'integer' }, 'a~b': { type: 'integer' } } }] } },
      properties: { second: { $ref: '#/$defs/pair' }, first: { type: 'integer' } },
    }
    expect(issues(schema, { first: 'x', second: [1, { 'a~b': 'no', 'z/y': 'no' }] })).toEqual([
      '/second/0 must be string (got number)',
      '/second/1/z~1y must be integer (got string)',
      '/second/1/a~0b must be integer (got string)',
      '/first must be integer (got string)',
    ])
  })
})

describe('anyOf / oneOf are summarised, not a flood of branch errors', () => {
  test('no branch admits the type → one issue listing the admitted types', () => {
    expect(issues({ anyOf: [{ type: 'string' }, { type: 'null' }] }, 3)).toEqual([' must be string or null (got number)'])
    expect(issues({ oneOf: [{ type: 'integer' }, { type: 'array', items: { type: 'string' } }] }, 'x')).toEqual([
      ' must be integer or array (got string)',
    ])
  })

  test('exactly one branch admits the type → that branch’s own issues', () => {
    const pydantic = {
      type: 'object',
      properties: { addr: { anyOf: [{ $ref: '#/$defs/Address' }, { type: 'null' }], default: null } },
      $defs: {
        Address: { type: 'object', properties: { street: { type: 'string' }, zip: { type: 'string', pattern: '^\\d{5}$' } }, required: ['street'] },
      },
    }
    expect(issues(pydantic, { addr: { zip: '123' } })).toEqual(['/addr/street is required', '/addr/zip must match pattern "^\\d{5}$"'])
    expect(issues(pydantic, { addr: null })).toEqual([])
    expect(issues(pydantic, { addr: 7 })).toEqual(['/addr must be object or null (got number)'])
  })

  test('a const discriminator selects the branch among several object branches', () => {
    const shape = {
      oneOf: [
        { type: 'object', properties: { kind: { const: 'circle' }, r: { type: 'number' } }, required: ['kind', 'r'] },
        { type: 'object', properties: { kind: { const: 'square' }, side: { type: 'number' } }, required: ['kind', 'side'] },
      ],
    }
    expect(issues(shape, { kind: 'square', side: 'big' })).toEqual(['/side must be number (got string)'])
    expect(issues(shape, { kind: 'circle' })).toEqual(['/r is required'])
  })

  test('ambiguous failures collapse to one issue at the combinator', () => {
    const twoObjects = {
      anyOf: [
        { type: 'object', required: ['a'] },
        { type: 'object', required: ['b'] },
      ],
    }
    expect(getValidator(twoObjects)({})).toEqual([{ pointer: '', keyword: 'anyOf', message: 'must match at least one schema in anyOf' }])
    const both = { oneOf: [{ type: 'number' }, { type: 'integer' }] }
    expect(getValidator(both)(3)).toEqual([{ pointer: '', keyword: 'oneOf', message: 'must match exactly one schema in oneOf (matches #0 and #1)' }])
  })

  test('allOf reports every failing member', () => {
    const s = { allOf: [{ type: 'object', required: ['a'] }, { type: 'object', properties: { b: { type: 'integer' } } }] }
    expect(issues(s, { b: 'x' })).toEqual(['/a is required', '/b must be integer (got string)'])
  })

  test('duplicates are removed', () => {
    const s = { allOf: [{ required: ['a'] }, { required: ['a'] }] }
    expect(issues(s, {})).toEqual(['/a is required'])
  })
})

describe('dialects and references', () => {
  test('draft-07: definitions + $ref, tuple items, recursion through $ref "#"', () => {
    const s = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: {
        point: { $ref: '#/definitions/Point' },
        pair: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }], additionalItems: false },
        children: { type: 'array', items: { $ref: '#' } },
      },
      definitions: { Point: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] } },
    }
    expect(detectDialect(s)).toBe('draft-07')
    expect(checkSchema(s)).toBeUndefined()
    expect(issues(s, { point: { x: 1 }, pair: ['a', 1], children: [{ point: {} }] })).toEqual(['/children/0/point/x is required'])
    expect(issues(s, { pair: ['a', 'b', 3] })).toEqual(['/pair must NOT have more than 2 items', '/pair/1 must be integer (got string)'])
  })

  test('2020-12: $defs, prefixItems/items:false, by $schema and by keyword detection', () => {
    const declared = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'array',
      prefixItems: [{ $ref: '#/$defs/Name' }, { type: 'integer' }],
      items: false,
      $defs: { Name: { type: 'string', minLength: 1 } },
    }
    expect(detectDialect(declared)).toBe('2020-12')
    expect(checkSchema(declared)).toBeUndefined()
    expect(issues(declared, ['', 2])).toEqual(['/0 must NOT have fewer than 1 characters'])
    expect(issues(declared, ['a', 2, 3])).toEqual([' must NOT have more than 2 items'])
    const { $schema: _dropped, ...undeclared } = declared
    expect(detectDialect(undeclared)).toBe('2020-12')
    expect(issues(undeclared, ['a', 2, 3])).toEqual([' must NOT have more than 2 items'])
  })

  test('2020-12 $dynamicRef resolves to its $dynamicAnchor', () => {
    const tree = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $dynamicAnchor: 'node',
      type: 'object',
      properties: { value: { type: 'integer' }, children: { type: 'array', items: { $dynamicRef: '#node' } } },
    }
    expect(checkSchema(tree)).toBeUndefined()
    expect(issues(tree, { value: 1, children: [{ value: 'x' }] })).toEqual(['/children/0/value must be integer (got string)'])
  })

  test('dialect defaults: no hint → draft-07; $recursiveRef → 2019-09; unknown $schema → draft-07', () => {
    expect(detectDialect({ type: 'object' })).toBe('draft-07')
    expect(detectDialect(true)).toBe('draft-07')
    expect(detectDialect({ $recursiveAnchor: true, properties: { a: { $recursiveRef: '#' } } })).toBe('2019-09')
    expect(detectDialect({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'string' })).toBe('draft-07')
    expect(issues({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'string' }, 1)).toEqual([' must be string (got number)'])
  })

  test('a property NAMED like a 2020 keyword does not switch the dialect', () => {
    expect(detectDialect({ type: 'object', properties: { prefixItems: { type: 'string' } } })).toBe('draft-07')
  })

  test('schemas declaring the same $id with different content do not clash', () => {
    const a = { $id: 'https://example.com/item.json', type: 'object', required: ['a'] }
    const b = { $id: 'https://example.com/item.json', type: 'object', required: ['b'] }
    expect(issues(a, {})).toEqual(['/a is required'])
    expect(issues(b, {})).toEqual(['/b is required'])
  })

  test('boolean schemas', () => {
    expect(issues(true, { anything: 1 })).toEqual([])
    expect(issues(false, 1)).toEqual([' is not allowed'])
    expect(checkSchema(true)).toBeUndefined()
  })
})

describe('formats', () => {
  const s = {
    type: 'object',
    properties: {
      url: { type: 'string', format: 'uri' },
      at: { type: 'string', format: 'date-time' },
      odd: { type: 'string', format: 'x-company-id' },
      ratio: { type: 'number', format: 'float' },
    },
  }
  test('uri and date-time are checked', () => {
    expect(issues(s, { url: 'https://example.com/a?b=1', at: '2024-05-01T10:00:00Z' })).toEqual([])
    expect(issues(s, { url: 'not a uri', at: 'yesterday' })).toEqual(['/url must match format "uri"', '/at must match format "date-time"'])
  })
  test('an unknown format is ignored, not a crash', () => {
    expect(checkSchema(s)).toBeUndefined()
    expect(issues(s, { odd: 'anything at all', ratio: 0.5 })).toEqual([])
  })
  test('a legacy-only regular expression (invalid with the u flag) still works', () => {
    const legacy = { type: 'string', pattern: '^[\\w\\-]+$' }
    expect(checkSchema(legacy)).toBeUndefined()
    expect(issues(legacy, 'a-b_c')).toEqual([])
    expect(issues(legacy, 'a b')).toEqual([' must match pattern "^[\\w\\-]+$"'])
  })
})

describe('validator cache', () => {
  test('same schema object → same validator; compiled once, lazily, on first use', () => {
    const s = { type: 'object', properties: { cacheProbeA: { type: 'integer' } } }
    const before = validatorCacheStats()
    const v1 = getValidator(s)
    expect(validatorCacheStats().compiles).toBe(before.compiles)
    const v2 = getValidator(s)
    expect(v2).toBe(v1)
    v1({ cacheProbeA: 1 })
    v2({ cacheProbeA: 'x' })
    v1({})
    const after = validatorCacheStats()
    expect(after.compiles - before.compiles).toBe(1)
    expect(after.validators - before.validators).toBe(1)
    expect(after.identityHits - before.identityHits).toBe(1)
  })

  test('a structurally identical schema under another object shares the validator', () => {
    const make = () => ({ type: 'object', properties: { cacheProbeB: { type: 'string' } }, required: ['cacheProbeB'] })
    const before = validatorCacheStats()
    const v1 = getValidator(make())
    const v2 = getValidator(make())
    expect(v2).toBe(v1)
    expect(v1({})).toEqual([{ pointer: '/cacheProbeB', keyword: 'required', message: 'is required' }])
    expect(v2({ cacheProbeB: 's' })).toEqual([])
    const after = validatorCacheStats()
    expect(after.compiles - before.compiles).toBe(1)
    expect(after.structuralHits - before.structuralHits).toBe(1)
  })

  test('the compiled validator uses a snapshot: later mutation of the schema object does not change it', () => {
    const s: { type: string; minimum: number } = { type: 'number', minimum: 5 }
    const validate = getValidator(s)
    s.minimum = 0
    expect(validate(1).map((issue) => issue.message)).toEqual(['must be >= 5'])
  })

  test('a schema ajv cannot compile yields one issue at "" and never throws', () => {
    const before = validatorCacheStats()
    const broken = getValidator({ type: 'object', properties: { a: { $ref: '#/$defs/Missing' } } })
    const found: readonly ValidationIssue[] = broken({ a: 1 })
    expect(found).toHaveLength(1)
    expect(found[0]!.pointer).toBe('')
    expect(found[0]!.keyword).toBe('schema')
    expect(found[0]!.message).toBe(
      'the schema itself is invalid and cannot be compiled: can\'t resolve reference #/$defs/Missing from id #',
    )
    expect(broken({})).toBe(found)
    expect(validatorCacheStats().compileFailures - before.compileFailures).toBe(1)
  })
})

describe('checkSchema', () => {
  test('well-formed schemas pass', () => {
    expect(checkSchema({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] })).toBeUndefined()
    expect(checkSchema({})).toBeUndefined()
  })

  test('shape problems', () => {
    expect(checkSchema(null)).toEqual({ pointer: '', message: 'a schema must be an object or a boolean (got null)' })
    expect(checkSchema([{ type: 'string' }])).toEqual({ pointer: '', message: 'a schema must be an object or a boolean (got array)' })
    expect(checkSchema({ $schema: 7 })).toEqual({ pointer: '/$schema', message: 'must be a string (got number)' })
  })

  test('meta-schema violations point into the schema', () => {
    const simpleTypes = '"array", "boolean", "integer", "null", "number", "object", "string"'
    expect(checkSchema({ type: 'object', properties: { a: { type: 'dict' } } })).toEqual({
      pointer: '/properties/a/type',
      message: `must be one of ${simpleTypes}`,
    })
    expect(checkSchema({ $schema: 'https://json-schema.org/draft/2020-12/schema', properties: { a: { type: 'dict' } } })).toEqual({
      pointer: '/properties/a/type',
      message: `must be one of ${simpleTypes}`,
    })
    expect(checkSchema({ type: 'object', required: 'a' })).toEqual({ pointer: '/required', message: 'must be array (got string)' })
    expect(checkSchema({ type: 'string', minLength: -1 })).toEqual({ pointer: '/minLength', message: 'must be >= 0' })
  })

  test('unresolvable references', () => {
    expect(checkSchema({ properties: { a: { $ref: '#/$defs/Nope' } } })).toEqual({
      pointer: '/properties/a/$ref',
      message: 'cannot resolve reference "#/$defs/Nope"',
    })
    expect(checkSchema({ items: { $ref: 'https://example.com/other.json' } })).toEqual({
      pointer: '/items/$ref',
      message: 'cannot resolve reference "https://example.com/other.json"',
    })
    // Resolvable forms: JSON pointers (URI-encoded), anchors, nested $id resources, the meta-schema.
    expect(checkSchema({ $defs: { 'a b': { type: 'string' } }, properties: { x: { $ref: '#/$defs/a%20b' } } })).toBeUndefined()
    expect(checkSchema({ $defs: { n: { $anchor: 'name', type: 'string' } }, properties: { x: { $ref: '#name' } } })).toBeUndefined()
    expect(
      checkSchema({
        $id: 'https://example.com/root.json',
        $defs: { item: { $id: 'item.json', type: 'integer' } },
        items: { $ref: 'item.json' },
      }),
    ).toBeUndefined()
    expect(checkSchema({ properties: { schema: { $ref: 'http://json-schema.org/draft-07/schema#' } } })).toBeUndefined()
  })

  test('invalid regular expressions', () => {
    expect(checkSchema({ type: 'string', pattern: '(?P<name>x)' })).toEqual({
      pointer: '/pattern',
      message: 'is not a valid regular expression: Invalid regular expression: /(?P<name>x)/: Invalid group',
    })
    expect(checkSchema({ patternProperties: { '[': { type: 'string' } } })).toEqual({
      pointer: '/patternProperties/[',
      message: 'is not a valid regular expression: Invalid regular expression: /[/: Unterminated character class',
    })
  })

  test('an object that contains itself is reported, not a stack overflow', () => {
    const node: Record<string, unknown> = { type: 'object', properties: {} }
    ;(node.properties as Record<string, unknown>).self = node
    expect(checkSchema(node)).toEqual({
      pointer: '/properties/self',
      message: 'schema object contains itself (a reference cycle between objects); use $ref for recursion',
    })
    expect(getValidator(node)({}).map((issue) => issue.keyword)).toEqual(['schema'])
  })
})

describe('pointer helpers', () => {
  test('resolveJsonPointer and resolveLocalRef', () => {
    const doc = { a: { 'b/c': [10, { '~d': true }] } }
    expect(resolveJsonPointer(doc, '/a/b~1c/1/~0d')).toBe(true)
    expect(resolveJsonPointer(doc, '/a/b~1c/2')).toBeUndefined()
    expect(resolveJsonPointer(doc, '')).toBe(doc)
    expect(resolveLocalRef(doc, '#/a/b~1c/0')).toBe(10)
    expect(resolveLocalRef(doc, 'other.json#/a')).toBeUndefined()
  })
})
