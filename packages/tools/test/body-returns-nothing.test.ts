/**
 * A body that returns nothing, in the types as at run time (packages/tools/README.md, "Define
 * tools"): `defineRawTool` and `defineTool` accept a body returning `undefined`, `void` or a
 * promise of it when the declared value admits `null` (the pipeline records `null`), and refuse
 * it when the value does not (the pipeline would answer `INVALID_TOOL_OUTPUT`), without
 * changing the value type `defineTool` infers. The type assertions are checked by
 * `npm run typecheck`; the runtime part pins what each accepted body produces.
 */
import { afterEach, describe, expect, expectTypeOf, test } from 'vitest'
import { z } from 'zod'
import { defineRawTool, defineTool, type JsonValue, type ToolBodyResult, type ToolDefinition } from '@deepseek-ai/dsh-tools'
import { call, createHarness, type Harness } from '@deepseek-ai/dsh-tool-testkit'

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

const render = (_args: unknown, value: JsonValue) => [{ type: 'text' as const, text: `value ${JSON.stringify(value)}` }]

describe('types', () => {
  test('ToolBodyResult admits nothing exactly when the value admits null', () => {
    expectTypeOf<ToolBodyResult<JsonValue>>().toEqualTypeOf<JsonValue | void>()
    expectTypeOf<ToolBodyResult<string | null>>().toEqualTypeOf<string | null | void>()
    expectTypeOf<ToolBodyResult<null>>().toEqualTypeOf<null | void>()
    expectTypeOf<ToolBodyResult<number>>().toEqualTypeOf<number>()
  })

  test('defineRawTool: a body returning undefined, void or a promise of either typechecks', () => {
    defineRawTool({ name: 'a', description: 'a', inputSchema: { type: 'object' }, execute: () => undefined })
    defineRawTool({ name: 'b', description: 'b', inputSchema: { type: 'object' }, execute: () => {} })
    defineRawTool({ name: 'c', description: 'c', inputSchema: { type: 'object' }, execute: async () => {} })
    defineRawTool({ name: 'd', description: 'd', inputSchema: { type: 'object' }, execute: async () => undefined })
    defineRawTool({ name: 'e', description: 'e', inputSchema: { type: 'object' }, execute: (_args, exec): void => void exec.signal })
    // @ts-expect-error -- still only JSON values (a Date is not one)
    defineRawTool({ name: 'f', description: 'f', inputSchema: { type: 'object' }, execute: () => new Date() })
  })

  test('defineTool: nothing is admitted when the output admits null, refused otherwise; the inferred value type is unchanged', () => {
    const nullable = defineTool({
      name: 'n',
      description: 'n',
      parameters: {},
      output: { schema: { oneOf: [{ type: 'string' }, { type: 'null' }] }, render },
      execute: async () => {},
    })
    expectTypeOf(nullable).toEqualTypeOf<ToolDefinition<{}, string | null>>()
    const onlyNull = defineTool({ name: 'z', description: 'z', parameters: {}, output: { schema: { type: 'null' }, render }, execute: () => undefined })
    expectTypeOf(onlyNull).toEqualTypeOf<ToolDefinition<{}, null>>()
    const typed = defineTool({ name: 't', description: 't', parameters: { a: { type: 'integer', required: true } }, output: { schema: { type: 'integer' }, render }, execute: (args) => args.a })
    expectTypeOf(typed).toEqualTypeOf<ToolDefinition<{ a: number }, number>>()
    // @ts-expect-error -- an integer output does not admit a body that returns nothing
    defineTool({ name: 'i', description: 'i', parameters: {}, output: { schema: { type: 'integer' }, render }, execute: () => undefined })
    // @ts-expect-error -- nor a promise of nothing
    defineTool({ name: 'j', description: 'j', parameters: {}, output: { schema: { type: 'integer' }, render }, execute: async () => {} })
    // A Standard Schema output follows the same rule.
    defineTool({ name: 's', description: 's', parameters: z.object({}), output: { schema: z.null(), render }, execute: async () => {} })
    // @ts-expect-error -- z.number() does not admit nothing
    defineTool({ name: 'u', description: 'u', parameters: z.object({}), output: { schema: z.number(), render }, execute: async () => {} })
  })

  test('a definition\'s execute may return nothing whatever its value type (the pipeline checks it against the output schema)', () => {
    expectTypeOf<ReturnType<ToolDefinition<{}, number>['execute']>>().toEqualTypeOf<number | void | Promise<number | void> | AsyncGenerator<JsonValue, number | void, undefined>>()
  })
})

describe('run time: what each accepted body produces', () => {
  test('raw, DSL and Standard Schema tools whose output admits null: value null; a raw tool without render reads "(no output)"', async () => {
    h = await createHarness()
    h.ctx.tools.register(defineRawTool({ name: 'raw_void', description: 'r', inputSchema: { type: 'object' }, execute: async () => {} }))
    h.ctx.tools.register(defineTool({ name: 'dsl_void', description: 'd', parameters: {}, output: { schema: { type: 'null' }, render }, execute: () => {} }))
    h.ctx.tools.register(defineTool({ name: 'std_void', description: 's', parameters: z.object({}), output: { schema: z.null(), render }, execute: async () => undefined }))
    const results = await h.execute([call('raw_void', {}, 'c1'), call('dsl_void', {}, 'c2'), call('std_void', {}, 'c3')])
    expect(results.map((r) => [r.callId, r.isError, r.isError ? r.error.info?.code : r.value, r.content])).toEqual([
      ['c1', false, null, [{ type: 'text', text: '(no output)' }]],
      ['c2', false, null, [{ type: 'text', text: 'value null' }]],
      ['c3', false, null, [{ type: 'text', text: 'value null' }]],
    ])
  })

  test('an output that does not admit null: INVALID_TOOL_OUTPUT (raw: the pipeline\'s text; Standard Schema: the library\'s check of null)', async () => {
    h = await createHarness()
    h.ctx.tools.register(defineRawTool({ name: 'raw_obj', description: 'r', inputSchema: { type: 'object' }, outputSchema: { type: 'object' }, execute: () => {} }))
    h.ctx.tools.register(defineTool({ name: 'std_num', description: 's', parameters: z.object({}), output: { schema: z.number(), render }, execute: async () => undefined as never }))
    const [a, b] = await h.execute([call('raw_obj', {}, 'c1'), call('std_num', {}, 'c2')])
    expect(a!.isError && a!.error.message).toBe('Tool "raw_obj" returned an invalid value: (root) is undefined: the body returned nothing, and the output schema does not admit null')
    expect(b!.isError && b!.error.info?.code).toBe('INVALID_TOOL_OUTPUT')
  })
})
