/**
 * Type-level tests of the DSL inference (seed 000: "InferValue preserves exact types through 16
 * container levels before widening to JsonValue"; seed 001: "args is typed"). These assertions
 * are checked by `tsc -p tsconfig.json --noEmit` (the repository typecheck); the runtime part
 * checks that the same specs project and validate as inferred.
 */
import { describe, expect, expectTypeOf, test } from 'vitest'
import type { JsonObject, JsonValue, ToolExecution } from '../src/contracts'
import { getValidator } from '../src/json-schema'
import { defineTool, projectSchema, type InferArgs, type InferValue, type SchemaSpec } from '../src/schema'

type ArraySpecOf<I> = { readonly type: 'array'; readonly items: I }
/** N nested array specs around `I`. */
type NestSpec<N extends number, I, Acc extends unknown[] = []> = Acc['length'] extends N ? I : NestSpec<N, ArraySpecOf<I>, [...Acc, 0]>
/** N nested arrays around `T`. */
type NestArray<N extends number, T, Acc extends unknown[] = []> = Acc['length'] extends N ? T : NestArray<N, T[], [...Acc, 0]>

describe('InferArgs', () => {
  test('seed example: required and optional keys', () => {
    const params = {
      path: { type: 'string', required: true, description: 'Absolute file path' },
      offset: { type: 'number' },
      limit: { type: 'number' },
    } as const
    expectTypeOf<InferArgs<typeof params>>().toEqualTypeOf<{ path: string; offset?: number; limit?: number }>()
  })

  test('required: false and a widened boolean are optional', () => {
    type P = { a: { type: 'string'; required: false }; b: { type: 'integer'; required: boolean } }
    expectTypeOf<InferArgs<P>>().toEqualTypeOf<{ a?: string; b?: number }>()
  })

  test('every primitive kind, json, enum, const and oneOf', () => {
    type P = {
      s: { type: 'string'; required: true }
      n: { type: 'number'; required: true }
      i: { type: 'integer'; required: true }
      b: { type: 'boolean'; required: true }
      z: { type: 'null'; required: true }
      j: { type: 'json'; required: true }
      e: { enum: readonly ['asc', 'desc', 1, null]; required: true }
      te: { type: 'string'; enum: readonly ['x', 'y']; required: true }
      c: { const: 'v1'; required: true }
      o: { oneOf: readonly [{ type: 'string' }, { type: 'array'; items: { type: 'integer' } }]; required: true }
    }
    expectTypeOf<InferArgs<P>>().toEqualTypeOf<{
      s: string
      n: number
      i: number
      b: boolean
      z: null
      j: JsonValue
      e: 'asc' | 'desc' | 1 | null
      te: 'x' | 'y'
      c: 'v1'
      o: string | number[]
    }>()
  })

  test('objects and arrays: nested properties, no properties, additionalProperties', () => {
    type P = {
      point: {
        type: 'object'
        required: true
        properties: { x: { type: 'number'; required: true }; y: { type: 'number'; required: true }; label: { type: 'string' } }
      }
      bag: { type: 'object' }
      counts: { type: 'object'; additionalProperties: { type: 'integer' } }
      closed: { type: 'object'; additionalProperties: false }
      list: { type: 'array' }
      matrix: { type: 'array'; items: { type: 'array'; items: { type: 'number' } } }
    }
    expectTypeOf<InferArgs<P>>().toEqualTypeOf<{
      point: { x: number; y: number; label?: string }
      bag?: JsonObject
      counts?: { [key: string]: number }
      closed?: { [key: string]: never }
      list?: JsonValue[]
      matrix?: number[][]
    }>()
  })
})

describe('InferValue', () => {
  test('const objects become mutable literal types', () => {
    type S = { const: { readonly kind: 'circle'; readonly r: readonly [1, 2] } }
    expectTypeOf<InferValue<S>>().toEqualTypeOf<{ kind: 'circle'; r: [1, 2] }>()
  })

  test('the unspecific SchemaSpec infers JsonValue', () => {
    expectTypeOf<InferValue<SchemaSpec>>().toEqualTypeOf<JsonValue>()
  })

  test('oneOf of objects is a union of exact object types', () => {
    type S = {
      oneOf: readonly [
        { type: 'object'; properties: { kind: { const: 'a'; required: true }; n: { type: 'integer'; required: true } } },
        { type: 'object'; properties: { kind: { const: 'b'; required: true }; s: { type: 'string' } } },
      ]
    }
    expectTypeOf<InferValue<S>>().toEqualTypeOf<{ kind: 'a'; n: number } | { kind: 'b'; s?: string }>()
  })

  test('16 nested containers are exact; the 17th widens to JsonValue', () => {
    expectTypeOf<InferValue<NestSpec<16, { type: 'string' }>>>().toEqualTypeOf<NestArray<16, string>>()
    expectTypeOf<InferValue<NestSpec<17, { type: 'string' }>>>().toEqualTypeOf<NestArray<16, JsonValue>>()
    expectTypeOf<InferValue<NestSpec<3, { type: 'boolean' }>>>().toEqualTypeOf<boolean[][][]>()
  })

  test('in a parameters record the arguments object is level 1', () => {
    type P15 = { deep: NestSpec<15, { type: 'integer' }> & { required: true } }
    type P16 = { deep: NestSpec<16, { type: 'integer' }> & { required: true } }
    expectTypeOf<InferArgs<P15>['deep']>().toEqualTypeOf<NestArray<15, number>>()
    expectTypeOf<InferArgs<P16>['deep']>().toEqualTypeOf<NestArray<15, JsonValue>>()
  })
})

describe('defineTool infers without `as const`', () => {
  const tool = defineTool({
    name: 'list_items',
    description: 'List items.',
    parameters: {
      order: { type: 'string', enum: ['asc', 'desc'], required: true },
      page: { type: 'integer', minimum: 1 },
      filter: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
    },
    output: {
      schema: { type: 'array', items: { type: 'object', properties: { id: { type: 'integer', required: true }, tag: { enum: ['x', 'y'] } } } },
      render: (_args, value) => [{ type: 'text', text: `${value.length} items` }],
    },
    execute: (args) => {
      expectTypeOf(args).toEqualTypeOf<{ order: 'asc' | 'desc'; page?: number; filter?: string | string[] }>()
      return [{ id: 1, tag: 'x' as const }]
    },
  })

  test('args and value types flow into the definition', async () => {
    type Args = Parameters<typeof tool.execute>[0]
    expectTypeOf<Args>().toEqualTypeOf<{ order: 'asc' | 'desc'; page?: number; filter?: string | string[] }>()
    expectTypeOf<Parameters<typeof tool.output.render>[1]>().toEqualTypeOf<{ id: number; tag?: 'x' | 'y' }[]>()
    const value = await tool.execute({ order: 'asc' }, {} as ToolExecution)
    expect(value).toEqual([{ id: 1, tag: 'x' }])
    expect(getValidator(tool.output.schema)(value)).toEqual([])
    expect(getValidator(tool.parameters)({ order: 'up' }).map((issue) => issue.message)).toEqual(['must be one of "asc", "desc"'])
  })

  test('mistakes are compile errors', () => {
    const base = { name: 't', description: 'd', parameters: { n: { type: 'integer', required: true } } } as const
    defineTool({
      ...base,
      output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
      // @ts-expect-error -- returns a number where the output declares a string
      execute: (args) => args.n,
    })
    defineTool({
      ...base,
      output: { schema: { type: 'integer' }, render: () => [] },
      // @ts-expect-error -- `m` is not a parameter
      execute: (args) => args.m,
    })
    // @ts-expect-error -- `type` must be a DSL type name
    expect(() => projectSchema({ type: 'dict' })).toThrow('/type: must be one of')
  })
})
