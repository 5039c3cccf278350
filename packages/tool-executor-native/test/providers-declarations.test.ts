/**
 * Declarations a provider would reject, by kind: arrays without `items` in every OpenAI-family
 * form, a Gemini root that loses every property, integer exclusive bounds, and provider names
 * that must not depend on registration order.
 */
import { describe, expect, test } from 'vitest'
import fc from 'fast-check'
import type { ToolSchema } from '@deepseek-ai/dsh-tools'
import {
  OPENAI_NAME_RULE,
  GEMINI_NAME_RULE,
  assignWireNames,
  isValidToolName,
  toDeepSeekTools,
  toGeminiTools,
  toOpenAIChatTools,
  toOpenAICompatibleTools,
  toOpenAIResponsesTools,
} from '../src/providers'
import { brief, one } from './providers-fixtures'


/** Every array node of a schema (JSON pointer → node) that lacks a single `items` schema. */
function arraysWithoutItems(node: unknown, pointer = ''): string[] {
  if (node === null || typeof node !== 'object') return []
  const out: string[] = []
  const record = node as Record<string, unknown>
  const types = Array.isArray(record.type) ? record.type : [record.type]
  if (!Array.isArray(node) && types.includes('array') && (record.items === undefined || Array.isArray(record.items))) out.push(pointer)
  for (const [key, value] of Object.entries(record)) out.push(...arraysWithoutItems(value, `${pointer}/${key}`))
  return out
}

const OPENAI_FAMILY = {
  'openai-chat': (input: { tools: ToolSchema[] }, strict = false) => toOpenAIChatTools(input, { strict }).tools.map((t) => t.function.parameters),
  'openai-responses': (input: { tools: ToolSchema[] }, strict = false) => toOpenAIResponsesTools(input, { strict }).tools.map((t) => t.parameters),
  deepseek: (input: { tools: ToolSchema[] }, strict = false) => toDeepSeekTools(input, { strict }).tools.map((t) => t.function.parameters),
  'openai-compatible': (input: { tools: ToolSchema[] }, strict = false) => toOpenAICompatibleTools(input, { strict }).tools.map((t) => t.function.parameters),
}

describe('A1: every array node in an OpenAI-family declaration has one items schema', () => {
  const forms: Record<string, unknown> = {
    bare: { type: 'object', properties: { ids: { type: 'array' } } },
    nested: { type: 'object', properties: { filter: { type: 'object', properties: { tags: { type: 'array', description: 'tags' } } } } },
    'array of arrays': { type: 'object', properties: { rows: { type: 'array', items: { type: 'array' } } } },
    'inside anyOf': { type: 'object', properties: { v: { anyOf: [{ type: 'array' }, { type: 'string' }] } } },
    'type list with null': { type: 'object', properties: { ids: { type: ['array', 'null'] } } },
    'prefixItems tuple': { type: 'object', properties: { point: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'string' }] } } },
    'draft-04 items list': { type: 'object', properties: { pair: { type: 'array', items: [{ type: 'number' }] } } },
    'in $defs (recursive)': {
      type: 'object',
      properties: { root: { $ref: '#/$defs/Node' } },
      $defs: { Node: { type: 'object', properties: { children: { type: 'array' }, next: { $ref: '#/$defs/Node' } } } },
    },
  }
  for (const [provider, declare] of Object.entries(OPENAI_FAMILY)) {
    for (const [form, schema] of Object.entries(forms)) {
      test(`${provider}: ${form}`, () => {
        for (const strict of [false, true]) {
          const [parameters] = declare(one(schema), strict)
          expect(arraysWithoutItems(parameters)).toEqual([])
        }
      })
    }
  }

  test('exact output and warnings: bare array gets items {}; a tuple gets the anyOf of its positions', () => {
    const declared = toOpenAIChatTools(one(forms['bare']))
    expect(declared.tools[0]?.function.parameters).toEqual({ type: 'object', properties: { ids: { type: 'array', items: {} } } })
    expect(declared.warnings).toEqual([
      {
        tool: 't',
        pointer: '/parameters/properties/ids/items',
        code: 'KEYWORD_REWRITTEN',
        message: 'added `items: {}` (any item) to an array without items (OpenAI-family providers reject an array schema missing items)',
      },
    ])
    const tuple = toOpenAIChatTools(one(forms['prefixItems tuple']))
    expect(tuple.tools[0]?.function.parameters).toEqual({ type: 'object', properties: { point: { type: 'array', items: { anyOf: [{ type: 'number' }, { type: 'string' }] } } } })
    expect(brief(tuple.warnings)).toEqual(['VALUE_DEGRADED /parameters/properties/point/prefixItems'])
  })

  test('compatible profile: the type list becomes anyOf and the array branch gets items', () => {
    const declared = toDeepSeekTools(one(forms['type list with null']))
    expect(declared.tools[0]?.function.parameters).toEqual({ type: 'object', properties: { ids: { anyOf: [{ type: 'array', items: {} }, { type: 'null' }] } } })
  })

  test('strict: an array without items is strict-incompatible only because items {} is any-value; the tool is still declared with items', () => {
    const declared = toOpenAIChatTools(one({ type: 'object', properties: { ids: { type: 'array' } }, required: ['ids'] }), { strict: true })
    expect(declared.tools[0]?.function).toEqual({ name: 't', description: 'd', parameters: { type: 'object', properties: { ids: { type: 'array', items: {} } }, required: ['ids'] }, strict: false })
    expect(brief(declared.warnings)).toEqual(['KEYWORD_REWRITTEN /parameters/properties/ids/items', 'STRICT_UNAVAILABLE /parameters/properties/ids/items'])
  })
})

describe('A2: a Gemini root stays an object', () => {
  test('every property inexpressible and one required: the tool is excluded with an error naming it and the property', () => {
    const declared = toGeminiTools({
      tools: [
        { name: 'page', description: 'd', parameters: { type: 'object', properties: { cursor: { type: 'null' } }, required: ['cursor'] } },
        { name: 'ok', description: 'd', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
      ],
    })
    expect(declared.tools.map((t) => t.name)).toEqual(['ok'])
    expect(declared.errors).toEqual([
      {
        tool: 'page',
        pointer: '/parameters/properties/cursor',
        code: 'SCHEMA_UNSUPPORTED',
        message: 'tool "page": no property of the parameters can be expressed for Gemini, and the required "cursor" cannot be sent (Gemini requires an object root)',
      },
    ])
  })

  test('every property inexpressible and none required: declared without parameters, never as a string root', () => {
    const declared = toGeminiTools(one({ type: 'object', properties: { cursor: { type: 'null' }, other: { const: null } } }))
    expect(declared.errors).toEqual([])
    expect(declared.tools).toEqual([{ name: 't', description: 'd' }])
    expect(brief(declared.warnings)).toEqual([
      'VALUE_DEGRADED /parameters/properties/cursor',
      'PROPERTY_DROPPED /parameters/properties/cursor',
      'VALUE_DEGRADED /parameters/properties/other',
      'PROPERTY_DROPPED /parameters/properties/other',
      'PARAMETERS_OMITTED /parameters',
    ])
  })

  test('property: whatever the properties, a declared Gemini root is an OBJECT with properties', () => {
    const leaf = fc.constantFrom<unknown>({ type: 'null' }, { type: 'string' }, { const: null }, { type: 'object' }, { type: 'array' }, { enum: [null] }, true, { type: ['null'] })
    fc.assert(
      fc.property(fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), leaf, { maxKeys: 4 }), fc.boolean(), (properties, requireAll) => {
        const schema = { type: 'object', properties, ...(requireAll ? { required: Object.keys(properties) } : {}) }
        const declared = toGeminiTools(one(schema))
        for (const tool of declared.tools) {
          if (tool.parameters === undefined) continue
          expect(tool.parameters.type).toBe('object')
          expect(Object.keys(tool.parameters.properties as object).length).toBeGreaterThan(0)
        }
        expect(declared.tools.length + declared.errors.length).toBe(1)
      }),
      { numRuns: 200 },
    )
  })
})

describe('A3: Gemini exclusive bounds', () => {
  const gemini = (schema: unknown) => {
    const declared = toGeminiTools(one({ type: 'object', properties: { n: schema } }))
    return { n: (declared.tools[0]?.parameters?.properties as Record<string, unknown>).n, warnings: declared.warnings }
  }

  test('integer: the bound moves by one, so 0 is not admitted', () => {
    expect(gemini({ type: 'integer', exclusiveMinimum: 0 }).n).toEqual({ type: 'integer', minimum: 1 })
    expect(gemini({ type: 'integer', exclusiveMaximum: 10 }).n).toEqual({ type: 'integer', maximum: 9 })
    expect(gemini({ type: 'integer', exclusiveMinimum: 0.5 }).n).toEqual({ type: 'integer', minimum: 1 })
    expect(gemini({ type: 'integer', exclusiveMinimum: 0, minimum: 5 }).n).toEqual({ type: 'integer', minimum: 5 })
    expect(gemini({ type: 'integer', minimum: 3, exclusiveMinimum: true }).n).toEqual({ type: 'integer', minimum: 4 })
    expect(gemini({ type: 'integer', exclusiveMinimum: 0 }).warnings).toEqual([
      {
        tool: 't',
        pointer: '/parameters/properties/n/exclusiveMinimum',
        code: 'KEYWORD_REWRITTEN',
        message: 'exclusiveMinimum 0 declared as minimum 1 (Gemini has no exclusive bounds; for an integer the bound moves by one)',
      },
    ])
  })

  test('number: the bound stays in the description, no inclusive bound that admits it', () => {
    expect(gemini({ type: 'number', exclusiveMinimum: 0, description: 'Temperature.' }).n).toEqual({ type: 'number', description: 'Temperature. Must be greater than 0.' })
    expect(gemini({ type: 'number', maximum: 1, exclusiveMaximum: true }).n).toEqual({ type: 'number', description: 'Must be less than 1.' })
    expect(brief(gemini({ type: 'number', exclusiveMinimum: 0 }).warnings)).toEqual(['KEYWORD_REWRITTEN /parameters/properties/n/exclusiveMinimum'])
  })
})

describe('A4: provider names do not depend on registration order', () => {
  const SIX = ['a.b', 'a_b', '搜索工具', '查询工具', 'a:b', 'web.search']

  test('six tools whose names need mapping: every permutation gives the same provider name for every tool', () => {
    const expected = new Map(assignWireNames(SIX, OPENAI_NAME_RULE).entries.map((e) => [e.original, e.wire]))
    const permutations = (list: string[]): string[][] => (list.length <= 1 ? [list] : list.flatMap((x, i) => permutations([...list.slice(0, i), ...list.slice(i + 1)]).map((p) => [x, ...p])))
    for (const order of permutations(SIX)) {
      for (const entry of assignWireNames(order, OPENAI_NAME_RULE).entries) expect(entry.wire, order.join(' ')).toBe(expected.get(entry.original))
    }
    expect(expected.get('a_b')).toBe('a_b')
    expect(expected.get('web.search')).toBe('web_search')
    expect(expected.get('a.b')).toMatch(/^a_b_[0-9a-f]{8}$/)
    expect(expected.get('a:b')).toMatch(/^a_b_[0-9a-f]{8}$/)
    expect(expected.get('搜索工具')).toMatch(/^_{5}[0-9a-f]{8}$/)
    expect(expected.get('查询工具')).toMatch(/^_{5}[0-9a-f]{8}$/)
    expect(new Set(expected.values()).size).toBe(6)
  })

  test('the suffix is a hash of the original name: a name with no letter or digit left is hashed even alone', () => {
    const alone = assignWireNames(['搜索工具'], OPENAI_NAME_RULE).toWire('搜索工具')
    const withOthers = assignWireNames(['查询工具', 'x', '搜索工具'], OPENAI_NAME_RULE).toWire('搜索工具')
    expect(alone).toBe(withOthers)
    expect(alone).toMatch(/^_{5}[0-9a-f]{8}$/)
  })

  test('declarations: the same provider names in both registration orders (what the prompt cache sees)', () => {
    const tools = SIX.map((name) => ({ name, description: '', parameters: { type: 'object', properties: {} } }))
    const forward = toOpenAIChatTools({ tools }).nameMap
    const backward = toOpenAIChatTools({ tools: [...tools].reverse() }).nameMap
    for (const name of SIX) expect(backward.toWire(name)).toBe(forward.toWire(name))
  })

  test('property: any permutation of any set of names gives the same map, valid and one-to-one', () => {
    const nameArb = fc.oneof(fc.stringMatching(/^[A-Za-z_.:-][A-Za-z0-9_.:-]{0,8}$/), fc.constantFrom('搜索', '查询', 'a.b', 'a_b', 'a:b'))
    fc.assert(
      fc.property(fc.uniqueArray(nameArb, { minLength: 1, maxLength: 8 }).chain((names) => fc.tuple(fc.constant(names), fc.shuffledSubarray(names, { minLength: names.length }))), ([names, shuffled]) => {
        for (const rule of [OPENAI_NAME_RULE, GEMINI_NAME_RULE]) {
          const a = new Map(assignWireNames(names, rule).entries.map((e) => [e.original, e.wire]))
          const b = new Map(assignWireNames(shuffled, rule).entries.map((e) => [e.original, e.wire]))
          expect(b).toEqual(a)
          expect(new Set(a.values()).size).toBe(names.length)
          for (const wire of a.values()) expect(isValidToolName(wire, rule)).toBe(true)
        }
      }),
      { numRuns: 300 },
    )
  })
})
