/**
 * `defineTool` without an output declaration (the short form): the value type is inferred from
 * the body's return type, a string reaches the model as itself, any other JSON value as JSON
 * text (`renderJsonValue`), nothing as `(no output)`, and the value stays canonical — for the DSL
 * and for Standard Schema parameters, natively and through a PTC program.
 */
import { afterEach, describe, expect, expectTypeOf, test } from 'vitest'
import { z } from 'zod'
import { defineTool, NULL_RESULT_TEXT, SHORT_FORM_OUTPUT, ToolDefinitionError, type JsonValue, type ToolDefinition, type ToolResult } from '@deepseek-ai/dsh-tools'
import { createPtcExecutor } from '@deepseek-ai/dsh-tool-executor-ptc'
import { call, createHarness, type Harness } from '@deepseek-ai/dsh-tool-testkit'

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

const text = (r: ToolResult | undefined): string => (r?.content ?? []).map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n')

const greet = defineTool({
  name: 'greet',
  description: 'Greet someone.',
  parameters: { who: { type: 'string', required: true } },
  execute: async (args) => `Hello, ${args.who}!`,
})
const add = defineTool({
  name: 'add',
  description: 'Add two integers.',
  parameters: { a: { type: 'integer', required: true }, b: { type: 'integer', required: true } },
  execute: (args) => args.a + args.b,
})
const stats = defineTool({
  name: 'stats',
  description: 'Summarise numbers.',
  parameters: { xs: { type: 'array', items: { type: 'number' }, required: true } },
  execute: async ({ xs }) => ({ count: xs.length, max: xs.length === 0 ? null : Math.max(...xs) }),
})
const touch = defineTool({
  name: 'touch',
  description: 'Do something; return nothing.',
  parameters: {},
  execute: async () => {},
})
const find = defineTool({
  name: 'find',
  description: 'Zod parameters, short form.',
  parameters: z.object({ q: z.string().min(1), limit: z.number().int().default(3) }),
  execute: async (args) => Array.from({ length: args.limit }, (_, i) => `${args.q}-${i}`),
})

describe('types', () => {
  test('the value type is inferred from execute', () => {
    expectTypeOf(greet).toEqualTypeOf<ToolDefinition<{ who: string }, string>>()
    expectTypeOf(add).toEqualTypeOf<ToolDefinition<{ a: number; b: number }, number>>()
    expectTypeOf(stats).toEqualTypeOf<ToolDefinition<{ xs: number[] }, { count: number; max: number | null }>>()
    expectTypeOf(touch).toEqualTypeOf<ToolDefinition<{}, null>>()
    expectTypeOf(find).toEqualTypeOf<ToolDefinition<{ q: string; limit?: number | undefined }, string[]>>()
  })

  test('a body that returns something that is not JSON does not compile', () => {
    // @ts-expect-error Date is not a JSON value
    defineTool({ name: 'when', description: 'd', parameters: {}, execute: () => new Date() })
    // @ts-expect-error a Map is not a JSON value
    defineTool({ name: 'map', description: 'd', parameters: {}, execute: async () => new Map<string, number>() })
  })

  test('the full form still checks render against the declared schema', () => {
    defineTool({
      name: 'full',
      description: 'd',
      parameters: {},
      // @ts-expect-error render returns blocks, not a string
      output: { schema: { type: 'string' }, render: (_a, v) => v },
      execute: () => 'x',
    })
  })
})

describe('definitions', () => {
  test('every short-form definition shares the any-JSON output', () => {
    for (const d of [greet, add, stats, touch, find] as ToolDefinition<never, JsonValue>[]) expect(d.output).toBe(SHORT_FORM_OUTPUT)
    expect(SHORT_FORM_OUTPUT.schema).toEqual({})
    expect(Object.isFrozen(greet)).toBe(true)
    expect(greet.source).toBe('dsl')
    expect(find.source).toBe('standard')
    expect(greet.parameters).toEqual({ type: 'object', properties: { who: { type: 'string' } }, required: ['who'] })
  })

  test('an output that is neither absent nor a declaration is refused naming the tool and field', () => {
    const bad = { name: 'x', description: 'd', parameters: {}, output: 'text', execute: () => 'x' }
    expect(() => defineTool(bad as never)).toThrow(ToolDefinitionError)
    expect(() => defineTool(bad as never)).toThrow(
      'tool "x": /output: must be an output declaration { schema, render }, or absent (the value is shown as itself or as JSON text)',
    )
    expect(() => defineTool({ ...bad, parameters: z.object({}) } as never)).toThrow(
      'tool "x": /output: must be an output declaration { schema, render }, or absent (the value is shown as itself or as JSON text)',
    )
    expect(() => defineTool({ name: 'y', description: 'd', parameters: {}, execute: 'no' } as never)).toThrow('tool "y": /execute: must be a function (got string)')
  })
})

describe('what the model reads and what the caller keeps', () => {
  test('natively: a string as itself, JSON as JSON text, nothing as (no output); values canonical', async () => {
    h = await createHarness()
    for (const d of [greet, add, stats, touch, find]) h.ctx.tools.register(d)
    const results = await h.execute([
      call('greet', { who: 'Ada' }, 'c1'),
      call('add', { a: 2, b: 3 }, 'c2'),
      call('stats', { xs: [3, 9, 4] }, 'c3'),
      call('touch', {}, 'c4'),
      call('find', { q: 'k', limit: 2 }, 'c5'),
      call('add', { a: '2' }, 'c6'),
      call('find', { q: '' }, 'c7'),
    ])
    expect(results.map((r) => [r.callId, r.isError ? r.error.info.code : 'ok', text(r)])).toEqual([
      ['c1', 'ok', 'Hello, Ada!'],
      ['c2', 'ok', '5'],
      ['c3', 'ok', '{\n  "count": 3,\n  "max": 9\n}'],
      ['c4', 'ok', NULL_RESULT_TEXT],
      ['c5', 'ok', '[\n  "k-0",\n  "k-1"\n]'],
      ['c6', 'INVALID_ARGS', expect.stringContaining('Invalid arguments for tool "add"')],
      ['c7', 'INVALID_ARGS', expect.stringContaining('Invalid arguments for tool "find"')],
    ])
    expect(results.slice(0, 5).map((r) => (r.isError ? undefined : r.value))).toEqual(['Hello, Ada!', 5, { count: 3, max: 9 }, null, ['k-0', 'k-1']])
  })

  test('a body typed loosely that returns a non-JSON value is INVALID_TOOL_OUTPUT, as in the full form', async () => {
    const loose = defineTool({ name: 'loose', description: 'd', parameters: {}, execute: () => new Date(0) as unknown as JsonValue })
    h = await createHarness()
    h.ctx.tools.register(loose)
    const [r] = await h.execute([call('loose', {}, 'c1')])
    expect(r?.isError === true ? r.error.info.code : 'ok').toBe('INVALID_TOOL_OUTPUT')
  })

  test('a PTC program sees the canonical values', async () => {
    h = await createHarness({ executor: createPtcExecutor() })
    h.ctx.tools.register(greet)
    h.ctx.tools.register(stats)
    const program = 'const g = await tools.greet({ who: "Bo" }); const s = await tools.stats({ xs: [1, 5] }); return JSON.stringify([g, s.count, s.max])'
    const [r] = await h.execute([call('run_code', { code: program, description: 'greet and stats' }, 'p1')])
    expect(r?.isError).toBe(false)
    expect(text(r)).toContain('["Hello, Bo!",2,5]')
  })
})
