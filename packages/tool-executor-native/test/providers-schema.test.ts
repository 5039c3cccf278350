/** The per-provider schema sanitizers: exact outputs and exact warnings. */
import { describe, expect, test } from 'vitest'
import type { JsonSchemaNode } from '@deepseek-ai/dsh-tools'
import {
  MAX_INLINED_NODES,
  sanitizeToolParameters,
  toAnthropicTools,
  toDeepSeekTools,
  toGeminiTools,
  toOpenAIChatTools,
  toOpenAICompatibleTools,
  toOpenAIResponsesTools,
} from '../src/providers'
import { brief, bugCase, one } from './providers-fixtures'


function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}

const ADDRESS = {
  type: 'object',
  properties: { home: { $ref: '#/$defs/Address' }, work: { $ref: '#/$defs/Address', description: 'Office' } },
  required: ['home'],
  $defs: { Address: { type: 'object', properties: { street: { type: 'string' }, zip: { type: ['string', 'null'] } }, required: ['street'] } },
}
const TREE = {
  type: 'object',
  properties: { root: { $ref: '#/$defs/Node' } },
  $defs: { Node: { type: 'object', description: 'A tree node', properties: { label: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } } } },
}

describe('$ref', () => {
  test('non-recursive refs are inlined (siblings win) and $defs removed, for every provider', () => {
    const inlined = { type: 'object', properties: { street: { type: 'string' }, zip: { type: ['string', 'null'] } }, required: ['street'] }
    const openai = toOpenAIChatTools(one(ADDRESS))
    expect(openai.tools[0]?.function.parameters).toEqual({ type: 'object', properties: { home: inlined, work: { ...inlined, description: 'Office' } }, required: ['home'] })
    expect(openai.warnings).toEqual([
      { tool: 't', pointer: '/parameters/properties/home/$ref', code: 'REF_INLINED', message: 'inlined $ref "#/$defs/Address"' },
      { tool: 't', pointer: '/parameters/properties/work/$ref', code: 'REF_INLINED', message: 'inlined $ref "#/$defs/Address"' },
      {
        tool: 't',
        pointer: '/parameters/$defs',
        code: 'DEFS_REMOVED',
        message: 'removed $defs: its entries are inlined where they are referenced (a recursive one is re-emitted under the root $defs)',
      },
    ])
    expect(toAnthropicTools(one(ADDRESS)).tools[0]?.input_schema).toEqual(openai.tools[0]?.function.parameters)
    // Gemini: the null union inside the target becomes nullable, reported once at the target's own pointer
    const gemini = toGeminiTools(one(ADDRESS))
    const geminiAddress = { type: 'object', properties: { street: { type: 'string' }, zip: { type: 'string', nullable: true } }, required: ['street'] }
    expect(gemini.tools[0]?.parameters).toEqual({ type: 'object', properties: { home: geminiAddress, work: { ...geminiAddress, description: 'Office' } }, required: ['home'] })
    expect(brief(gemini.warnings)).toEqual([
      'REF_INLINED /parameters/properties/home/$ref',
      'REF_INLINED /parameters/properties/work/$ref',
      'DEFS_REMOVED /parameters/$defs',
      'TYPE_ARRAY_REWRITTEN /parameters/$defs/Address/properties/zip/type',
    ])
    // OpenAI-compatible: the union type array becomes anyOf
    const compat = toOpenAICompatibleTools(one(ADDRESS))
    expect((compat.tools[0]?.function.parameters.properties as Record<string, { properties: unknown }>).home?.properties).toEqual({
      street: { type: 'string' },
      zip: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    })
  })

  test('recursive refs: kept through $defs for OpenAI and Anthropic, degraded for Gemini and OpenAI-compatible', () => {
    const node = { type: 'object', description: 'A tree node', properties: { label: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } } }
    const openai = toOpenAIChatTools(one(TREE))
    expect(openai.tools[0]?.function.parameters).toEqual({ type: 'object', properties: { root: node }, $defs: { Node: node } })
    expect(openai.warnings[1]).toEqual({
      tool: 't',
      pointer: '/parameters/$defs/Node/properties/children/items/$ref',
      code: 'REF_RECURSIVE',
      message: 'recursive $ref "#/$defs/Node" kept as "#/$defs/Node"',
    })
    expect(toAnthropicTools(one(TREE)).tools[0]?.input_schema).toEqual(openai.tools[0]?.function.parameters)

    const compat = toOpenAICompatibleTools(one(TREE))
    expect(compat.tools[0]?.function.parameters).toEqual({
      type: 'object',
      properties: { root: { ...node, properties: { label: { type: 'string' }, children: { type: 'array', items: { type: 'object', description: 'A tree node' } } } } },
    })
    expect(compat.warnings[1]).toEqual({
      tool: 't',
      pointer: '/parameters/$defs/Node/properties/children/items/$ref',
      code: 'REF_RECURSIVE',
      message: 'recursive $ref "#/$defs/Node" cannot be expressed for this provider; replaced by an unconstrained object schema (the local validator still enforces the original)',
    })
    const gemini = toGeminiTools(one(TREE))
    expect(gemini.tools[0]?.parameters).toEqual({
      type: 'object',
      properties: {
        root: {
          type: 'object',
          description: 'A tree node',
          properties: { label: { type: 'string' }, children: { type: 'array', items: { type: 'string', description: 'A tree node (a JSON object, sent as a JSON-encoded string)' } } },
        },
      },
    })
    expect(brief(gemini.warnings)).toEqual([
      'REF_INLINED /parameters/properties/root/$ref',
      'REF_RECURSIVE /parameters/$defs/Node/properties/children/items/$ref',
      'DEFS_REMOVED /parameters/$defs',
      'VALUE_DEGRADED /parameters/$defs/Node/properties/children/items',
    ])
  })

  test('a root self-reference ("#") is kept as "#" for OpenAI', () => {
    const schema = { type: 'object', properties: { name: { type: 'string' }, next: { $ref: '#' } } }
    expect(toOpenAIChatTools(one(schema)).tools[0]?.function.parameters).toEqual({ type: 'object', properties: { name: { type: 'string' }, next: { $ref: '#' } } })
  })

  test('an external or dangling ref becomes an unconstrained schema with REF_UNRESOLVED', () => {
    const schema = { type: 'object', properties: { a: { $ref: 'https://example.com/a.json', description: 'remote' }, b: { $ref: '#/$defs/missing' } } }
    const openai = toOpenAIChatTools(one(schema))
    expect(openai.tools[0]?.function.parameters).toEqual({ type: 'object', properties: { a: { description: 'remote' }, b: {} } })
    expect(brief(openai.warnings)).toEqual(['REF_UNRESOLVED /parameters/properties/a/$ref', 'REF_UNRESOLVED /parameters/properties/b/$ref'])
    expect(openai.warnings[0]?.message).toBe(
      '$ref "https://example.com/a.json" does not resolve inside the schema; replaced by an unconstrained schema (the local validator still enforces the original)',
    )
  })

  test('anchors and definitions (draft-07) resolve', () => {
    const schema = { type: 'object', properties: { a: { $ref: '#pos' }, b: { $ref: '#/definitions/n' } }, definitions: { n: { type: 'number' }, p: { $anchor: 'pos', type: 'integer', minimum: 1 } } }
    expect(toOpenAIChatTools(one(schema)).tools[0]?.function.parameters).toEqual({
      type: 'object',
      properties: { a: { $anchor: 'pos', type: 'integer', minimum: 1 }, b: { type: 'number' } },
    })
  })

  test(`inlining that would exceed ${MAX_INLINED_NODES} nodes excludes only that tool (SCHEMA_TOO_LARGE)`, () => {
    const defs: Record<string, unknown> = { D20: { type: 'string' } }
    for (let i = 0; i < 20; i++) defs[`D${i}`] = { type: 'object', properties: { l: { $ref: `#/$defs/D${i + 1}` }, r: { $ref: `#/$defs/D${i + 1}` } } }
    const result = toOpenAIChatTools({
      tools: [
        { name: 'bomb', description: '', parameters: { type: 'object', properties: { x: { $ref: '#/$defs/D0' } }, $defs: defs } as JsonSchemaNode },
        { name: 'fine', description: '', parameters: { type: 'object', properties: {} } },
      ],
    })
    expect(result.tools.map((t) => t.function.name)).toEqual(['fine'])
    expect(result.errors).toEqual([
      { tool: 'bomb', pointer: '/parameters', code: 'SCHEMA_TOO_LARGE', message: `tool "bomb": inlining $ref targets produces more than ${MAX_INLINED_NODES} schema nodes` },
    ])
  })
})

describe('the root', () => {
  test('root allOf branches merge into one object', () => {
    const schema = { allOf: [{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, { properties: { b: { type: 'integer' } }, required: ['b'] }] }
    const result = toAnthropicTools(one(schema))
    expect(result.tools[0]?.input_schema).toEqual({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'integer' } }, required: ['a', 'b'] })
    expect(result.warnings).toEqual([
      { tool: 't', pointer: '/parameters/type', code: 'ROOT_NORMALIZED', message: 'added `type: "object"` to the parameters root' },
      { tool: 't', pointer: '/parameters/allOf', code: 'ROOT_COMBINATOR_MERGED', message: 'root allOf: 2 object branch(es) merged into the root' },
    ])
  })

  test('root anyOf/oneOf: object branches united, only commonly required names stay required; other branches dropped', () => {
    const schema = {
      type: 'object',
      properties: { mode: { type: 'string' } },
      oneOf: [
        { properties: { path: { type: 'string' }, mode: { type: 'string' } }, required: ['path', 'mode'] },
        { properties: { url: { type: 'string', format: 'uri' } }, required: ['url', 'mode'] },
        { type: 'string' },
      ],
    }
    const result = toOpenAIChatTools(one(schema))
    expect(result.tools[0]?.function.parameters).toEqual({
      type: 'object',
      properties: { mode: { type: 'string' }, path: { type: 'string' }, url: { type: 'string', format: 'uri' } },
      required: ['mode'],
    })
    expect(brief(result.warnings)).toEqual(['ROOT_COMBINATOR_DROPPED /parameters/oneOf/2', 'ROOT_COMBINATOR_MERGED /parameters/oneOf'])
  })

  test('root not/enum/if are removed; a missing properties is added for OpenAI', () => {
    const result = toOpenAIResponsesTools(one({ type: 'object', not: { required: ['x'] }, if: { required: ['a'] }, then: { required: ['b'] } }))
    expect(result.tools[0]).toEqual({ type: 'function', name: 't', description: 'd', parameters: { type: 'object', properties: {} }, strict: false })
    expect(brief(result.warnings)).toEqual(['ROOT_NORMALIZED /parameters/not', 'ROOT_NORMALIZED /parameters/if', 'ROOT_NORMALIZED /parameters/then', 'ROOT_NORMALIZED /parameters/properties'])
  })

  test('root type ["object","null"] narrows; `true` becomes an empty object', () => {
    expect(toAnthropicTools(one({ type: ['object', 'null'], properties: { a: { type: 'string' } } })).tools[0]?.input_schema).toEqual({ type: 'object', properties: { a: { type: 'string' } } })
    expect(toAnthropicTools(one(true)).tools[0]?.input_schema).toEqual({ type: 'object', properties: {} })
  })

  test('a root that cannot describe an object excludes only that tool, with an error naming it and the pointer', () => {
    const fn = () => 1
    const result = toOpenAIChatTools({
      tools: [
        { name: 'str', description: '', parameters: { type: 'string' } },
        { name: 'never', description: '', parameters: false },
        { name: 'weird', description: '', parameters: { type: 'object', properties: { a: { default: fn } } } as unknown as JsonSchemaNode },
        { name: 'ok', description: '', parameters: { type: 'object', properties: {} } },
      ],
    })
    expect(result.tools.map((t) => t.function.name)).toEqual(['ok'])
    expect(result.errors).toEqual([
      { tool: 'str', pointer: '/parameters/type', code: 'SCHEMA_UNSUPPORTED', message: 'tool "str": parameters must describe an object, but its type is "string"' },
      { tool: 'never', pointer: '/parameters', code: 'SCHEMA_UNSUPPORTED', message: 'tool "never": parameters is `false`: no argument object can be valid' },
      { tool: 'weird', pointer: '/parameters/properties/a/default', code: 'SCHEMA_UNSUPPORTED', message: 'tool "weird": a function is not JSON' },
    ])
  })
})

describe('Gemini subset', () => {
  const declare = (schema: unknown) => {
    const result = toGeminiTools(one(schema))
    return { parameters: result.tools[0]?.parameters, warnings: result.warnings }
  }

  test('union type arrays become anyOf branches carrying their own keywords', () => {
    const { parameters, warnings } = declare({ type: 'object', properties: { v: { type: ['boolean', 'string', 'null'], maxLength: 5, description: 'flag or text' } } })
    expect(parameters).toEqual({ type: 'object', properties: { v: { description: 'flag or text', anyOf: [{ type: 'boolean' }, { type: 'string', maxLength: 5 }], nullable: true } } })
    expect(warnings).toEqual([
      { tool: 't', pointer: '/parameters/properties/v/type', code: 'TYPE_ARRAY_REWRITTEN', message: 'type ["boolean","string","null"] declared as anyOf of 2 single-type schemas with nullable: true' },
    ])
  })

  test('non-string enums and consts move into the description; null members become nullable', () => {
    const { parameters, warnings } = declare({
      type: 'object',
      properties: { level: { enum: [1, 2, 3] }, pi: { const: 3.14 }, unit: { type: 'string', enum: ['c', 'f', null] }, mode: { const: 'fast' } },
    })
    expect(parameters).toEqual({
      type: 'object',
      properties: {
        level: { type: 'integer', description: 'Allowed values: 1, 2, 3.' },
        pi: { type: 'number', description: 'Must be 3.14.' },
        unit: { type: 'string', enum: ['c', 'f'], nullable: true },
        mode: { type: 'string', enum: ['fast'] },
      },
    })
    expect(brief(warnings)).toEqual([
      'ENUM_REWRITTEN /parameters/properties/level/enum',
      'ENUM_REWRITTEN /parameters/properties/pi/const',
      'NULLABLE_REWRITTEN /parameters/properties/unit/enum',
      'ENUM_REWRITTEN /parameters/properties/mode/const',
    ])
  })

  test('free-form objects, any-values, item-less arrays and tuples degrade; null-only properties are dropped', () => {
    const { parameters, warnings } = declare({
      type: 'object',
      properties: {
        options: { type: 'object', description: 'Extra options', additionalProperties: { type: 'string' } },
        anything: { description: 'Any value' },
        list: { type: 'array' },
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }] },
        nothing: { type: 'null' },
      },
      required: ['options', 'nothing'],
    })
    expect(parameters).toEqual({
      type: 'object',
      properties: {
        options: { type: 'string', description: 'Extra options (a JSON object, sent as a JSON-encoded string)' },
        anything: { type: 'string', description: 'Any value' },
        list: { type: 'array', items: { type: 'string' } },
        pair: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
      },
      required: ['options'],
    })
    expect(brief(warnings)).toEqual([
      'VALUE_DEGRADED /parameters/properties/options',
      'VALUE_DEGRADED /parameters/properties/anything',
      'VALUE_DEGRADED /parameters/properties/list/items',
      'VALUE_DEGRADED /parameters/properties/pair/prefixItems',
      'VALUE_DEGRADED /parameters/properties/nothing',
      'PROPERTY_DROPPED /parameters/properties/nothing',
      'KEYWORD_REWRITTEN /parameters/required',
    ])
  })

  test('keywords outside the subset are dropped or rewritten; supported formats stay', () => {
    const { parameters, warnings } = declare({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      additionalProperties: false,
      properties: {
        n: { type: 'integer', exclusiveMinimum: 0, multipleOf: 2 },
        url: { type: 'string', format: 'uri' },
        at: { type: 'string', format: 'date-time', examples: ['2024-01-01T00:00:00Z'] },
      },
    })
    expect(parameters).toEqual({
      type: 'object',
      properties: { n: { type: 'integer', minimum: 1 }, url: { type: 'string' }, at: { type: 'string', format: 'date-time', example: '2024-01-01T00:00:00Z' } },
    })
    expect(brief(warnings)).toEqual([
      'KEYWORD_DROPPED /parameters/$schema',
      'KEYWORD_REWRITTEN /parameters/properties/n/exclusiveMinimum',
      'KEYWORD_DROPPED /parameters/properties/n/multipleOf',
      'KEYWORD_DROPPED /parameters/properties/url/format',
      'KEYWORD_REWRITTEN /parameters/properties/at/examples',
      'KEYWORD_DROPPED /parameters/additionalProperties',
    ])
  })

  test('oneOf becomes anyOf, allOf merges, a single non-null anyOf branch is hoisted', () => {
    const { parameters, warnings } = declare({
      type: 'object',
      properties: {
        id: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
        box: { allOf: [{ type: 'object', properties: { w: { type: 'number' } } }, { properties: { h: { type: 'number' } }, required: ['h'] }] },
        since: { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }], default: null, title: 'Since' },
      },
    })
    expect(parameters).toEqual({
      type: 'object',
      properties: {
        id: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
        box: { type: 'object', properties: { w: { type: 'number' }, h: { type: 'number' } }, required: ['h'] },
        since: { type: 'string', format: 'date-time', title: 'Since', default: null, nullable: true },
      },
    })
    expect(brief(warnings)).toEqual([
      'COMBINATOR_REWRITTEN /parameters/properties/id/oneOf',
      'COMBINATOR_REWRITTEN /parameters/properties/box/allOf',
      'NULLABLE_REWRITTEN /parameters/properties/since/anyOf/1',
      'COMBINATOR_REWRITTEN /parameters/properties/since/anyOf',
    ])
  })

  test('a tool without declared arguments is declared without parameters', () => {
    const result = toGeminiTools(one({ type: 'object', properties: {} }, 'ping'))
    expect(result.tools).toEqual([{ name: 'ping', description: 'd' }])
    expect(result.warnings).toEqual([
      { tool: 'ping', pointer: '/parameters', code: 'PARAMETERS_OMITTED', message: 'no declared properties: declared without parameters (Gemini rejects an OBJECT with empty properties)' },
    ])
  })
})

describe('strict mode (OpenAI Structured Outputs)', () => {
  const b11 = bugCase('B11').input.schema

  test('B11: optional properties become required + nullable, reported so null-as-absent repair can be enabled', () => {
    const result = toOpenAIChatTools(one(b11, 'search'), { strict: true })
    expect(result.tools[0]).toEqual({
      type: 'function',
      function: {
        name: 'search',
        description: 'd',
        parameters: {
          type: 'object',
          properties: { query: { type: 'string' }, limit: { type: ['number', 'null'] }, tag: { type: ['string', 'null'] } },
          required: ['query', 'limit', 'tag'],
          additionalProperties: false,
        },
        strict: true,
      },
    })
    expect(result.warnings).toEqual([
      { tool: 'search', pointer: '/parameters/properties/limit/default', code: 'KEYWORD_DROPPED', message: 'removed `default` (not supported in strict mode)' },
      {
        tool: 'search',
        pointer: '/parameters/properties/limit',
        code: 'STRICT_NULLABLE',
        message: 'optional property "limit" declared as required and nullable (strict mode requires every property; treat null as absent)',
      },
      {
        tool: 'search',
        pointer: '/parameters/properties/tag',
        code: 'STRICT_NULLABLE',
        message: 'optional property "tag" declared as required and nullable (strict mode requires every property; treat null as absent)',
      },
      { tool: 'search', pointer: '/parameters/additionalProperties', code: 'KEYWORD_REWRITTEN', message: 'added additionalProperties: false (strict mode closes every object)' },
    ])
  })

  test('B11: without strict the schema is sent as it is: nothing is widened', () => {
    const result = toOpenAIChatTools(one(b11, 'search'))
    expect(result.tools[0]?.function).toEqual({ name: 'search', description: 'd', parameters: b11 })
    expect(result.warnings).toEqual([])
  })

  test('DeepSeek strict widens through anyOf; enums get null too', () => {
    const schema = { type: 'object', properties: { unit: { type: 'string', enum: ['c', 'f'] }, n: { type: 'integer' } }, required: ['n'] }
    expect(toDeepSeekTools(one(schema), { strict: true }).tools[0]?.function.parameters).toEqual({
      type: 'object',
      properties: { unit: { anyOf: [{ type: 'string', enum: ['c', 'f'] }, { type: 'null' }] }, n: { type: 'integer' } },
      required: ['unit', 'n'],
      additionalProperties: false,
    })
    expect(toOpenAIChatTools(one(schema), { strict: true }).tools[0]?.function.parameters.properties).toEqual({
      unit: { type: ['string', 'null'], enum: ['c', 'f', null] },
      n: { type: 'integer' },
    })
  })

  test('a schema that cannot be strict is sent with strict: false and a STRICT_UNAVAILABLE warning naming the node', () => {
    const schema = { type: 'object', properties: { flags: { type: 'object', additionalProperties: { type: 'string' } } } }
    const chat = toOpenAIChatTools(one(schema, 'kubectl'), { strict: true })
    expect(chat.tools[0]?.function).toEqual({ name: 'kubectl', description: 'd', parameters: schema, strict: false })
    expect(chat.warnings).toEqual([
      {
        tool: 'kubectl',
        pointer: '/parameters/properties/flags/additionalProperties',
        code: 'STRICT_UNAVAILABLE',
        message: 'strict mode unavailable: an object with additional properties (free-form keys) cannot be strict; declared with strict: false',
      },
    ])
    const responses = toOpenAIResponsesTools(one(schema, 'kubectl'), { strict: true })
    expect(responses.tools[0]?.strict).toBe(false)
  })
})

describe('deferLoading and purity', () => {
  test('deferLoading: carried to Anthropic as defer_loading, reported as dropped elsewhere', () => {
    const input = { tools: [{ name: 'big', description: 'd', parameters: { type: 'object', properties: {} }, deferLoading: true as const }] }
    expect(toAnthropicTools(input).tools).toEqual([{ name: 'big', description: 'd', input_schema: { type: 'object', properties: {} }, defer_loading: true }])
    for (const declare of [toOpenAIChatTools, toOpenAIResponsesTools, toGeminiTools, toDeepSeekTools]) {
      expect(brief(declare(input).warnings)).toContain('DEFER_LOADING_DROPPED /deferLoading')
    }
  })

  test('inputs are never mutated (deep-frozen input works); warnings are frozen; tools are fresh objects an SDK may rewrite', () => {
    const input = deepFreeze(structuredClone({ tools: [{ name: 'a.b', description: 'd', parameters: ADDRESS as JsonSchemaNode }, { name: 'tree', description: 'd', parameters: TREE as JsonSchemaNode }] }))
    const before = JSON.stringify(input)
    for (const declare of [toOpenAIChatTools, toOpenAIResponsesTools, toAnthropicTools, toGeminiTools, toOpenAICompatibleTools]) {
      const result = declare(input)
      expect(result.errors).toEqual([])
      expect(Object.isFrozen(result.tools[0])).toBe(false)
      expect(Object.isFrozen(result.warnings)).toBe(true)
      // @google/genai rewrites declaration schemas in place: a second call must not see that.
      const again = declare(input)
      expect(again.tools[0]).not.toBe(result.tools[0])
      expect(again.tools).toEqual(result.tools)
    }
    expect(toOpenAIChatTools(input, { strict: true }).errors).toEqual([])
    expect(JSON.stringify(input)).toBe(before)
  })
})

describe('sanitizeToolParameters', () => {
  test('gives the same schema and warnings as the declaration builders, without name mapping', () => {
    const tool = { name: 'math.factorial', description: '', parameters: ADDRESS as JsonSchemaNode }
    const gemini = sanitizeToolParameters('gemini', tool)
    expect(gemini.ok && gemini.parameters).toEqual(toGeminiTools({ tools: [tool] }).tools[0]?.parameters)
    expect(gemini.ok && gemini.warnings).toEqual(toGeminiTools({ tools: [tool] }).warnings)
    const strict = sanitizeToolParameters('openai-responses', { name: 't', description: '', parameters: bugCase('B11').input.schema }, { strict: true })
    expect(strict.ok && [strict.strict, brief(strict.warnings)]).toEqual([
      true,
      ['KEYWORD_DROPPED /parameters/properties/limit/default', 'STRICT_NULLABLE /parameters/properties/limit', 'STRICT_NULLABLE /parameters/properties/tag', 'KEYWORD_REWRITTEN /parameters/additionalProperties'],
    ])
    expect(sanitizeToolParameters('deepseek', { name: 's', description: '', parameters: { type: 'string' } })).toEqual({
      ok: false,
      error: { tool: 's', pointer: '/parameters/type', code: 'SCHEMA_UNSUPPORTED', message: 'tool "s": parameters must describe an object, but its type is "string"' },
    })
  })
})
