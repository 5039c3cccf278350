/**
 * Standard Schema input (zod 4, valibot, ArkType — the real libraries): the model-facing JSON
 * Schema comes from the library's converter, arguments are validated by the library with
 * path-qualified INVALID_ARGS messages, the body gets the library's parsed output, output
 * schemas validate the value, and an unrepresentable schema is a clear definition error.
 */
import { afterEach, describe, expect, expectTypeOf, test } from 'vitest'
import { z } from 'zod'
import * as v from 'valibot'
import { toJsonSchema as valibotToJsonSchema, toStandardJsonSchema } from '@valibot/to-json-schema'
import { type } from 'arktype'
import { defineTool, formatStandardIssues, isStandardSchema, ToolDefinitionError, type ToolResult } from '@deepseek-ai/dsh-tools'
import { createPtcExecutor } from '@deepseek-ai/dsh-tool-executor-ptc'
import { call, createHarness, type Harness } from '@deepseek-ai/dsh-tool-testkit'

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

const text = (r: ToolResult | undefined): string => (r?.content ?? []).map((b) => (b.type === 'text' ? b.text : '[image]')).join('\n')
const code = (r: ToolResult | undefined): string | undefined => (r?.isError === true ? r.error.info?.code : undefined)
const renderJson = (_args: unknown, value: unknown) => [{ type: 'text' as const, text: JSON.stringify(value) }]

describe('zod 4', () => {
  const parameters = z.object({
    path: z.string().describe('Absolute file path'),
    limit: z.number().int().positive().optional(),
    mode: z.enum(['text', 'bytes']).default('text'),
  })
  const readFile = defineTool({
    name: 'read_file',
    description: 'Read a file.',
    parameters,
    output: { schema: z.object({ path: z.string(), mode: z.string(), limit: z.number().nullable() }), render: renderJson },
    execute(args) {
      expectTypeOf(args).toEqualTypeOf<{ path: string; limit?: number | undefined; mode: 'text' | 'bytes' }>()
      return { path: args.path, mode: args.mode, limit: args.limit ?? null }
    },
  })

  test('the model sees zod’s own JSON Schema (draft-07, no $schema), and the definition is standard-sourced', () => {
    expect(readFile.parameters).toEqual({
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Absolute file path' },
        limit: { type: 'integer', exclusiveMinimum: 0, maximum: 9007199254740991 },
        mode: { type: 'string', enum: ['text', 'bytes'], default: 'text' },
      },
      required: ['path'],
    })
    expect(readFile.source).toBe('standard')
    expect(readFile.validateArguments).toBe(false)
    expect(Object.isFrozen(readFile.parameters)).toBe(true)
    expect(isStandardSchema(parameters)).toBe(true)
  })

  test('valid arguments: the body receives zod’s parsed output (defaults applied); invalid: every issue path-qualified', async () => {
    h = await createHarness()
    h.ctx.tools.register(readFile)
    const [ok, bad, root] = await h.execute([
      call('read_file', { path: '/a' }, 'c1'),
      call('read_file', { path: 3, limit: -1.5, mode: 'hex' }, 'c2'),
      call('read_file', '[]', 'c3'),
    ])
    expect(text(ok)).toBe('{"path":"/a","mode":"text","limit":null}')
    expect(code(bad)).toBe('INVALID_ARGS')
    expect(text(bad)).toBe(
      'Error: Invalid arguments for tool "read_file": /path: Invalid input: expected string, received number; /limit: Invalid input: expected int, received number; /mode: Invalid option: expected one of "text"|"bytes"',
    )
    expect(bad!.isError && bad!.error.info).toEqual({ name: 'ToolError', code: 'INVALID_ARGS' })
    expect(text(root)).toBe('Error: Invalid arguments for tool "read_file": expected a JSON object, got array')
  })

  test('a value outside the zod output schema is INVALID_TOOL_OUTPUT with the library’s message', async () => {
    h = await createHarness()
    h.ctx.tools.register(
      defineTool({
        name: 'count',
        description: 'Counts.',
        parameters: z.object({}),
        output: { schema: z.number().int().max(10), render: renderJson },
        execute: () => 11,
      }),
    )
    const [r] = await h.execute([call('count', {}, 'c1')])
    expect(code(r)).toBe('INVALID_TOOL_OUTPUT')
    expect(text(r)).toBe('Error: Tool "count" returned an invalid value: (root): Too big: expected number to be <=10')
  })

  test('an asynchronous refinement is validated before the body, with the same INVALID_ARGS shape', async () => {
    h = await createHarness()
    const ran: string[] = []
    h.ctx.tools.register(
      defineTool({
        name: 'lookup',
        description: 'Looks a user up.',
        parameters: z.object({ user: z.string().refine(async (u) => u !== 'nobody', 'unknown user') }),
        output: { schema: { type: 'string' }, render: (_a, value) => [{ type: 'text', text: value }] },
        execute(args) {
          ran.push(args.user)
          return `found ${args.user}`
        },
      }),
    )
    const [ok, bad] = await h.execute([call('lookup', { user: 'ada' }, 'c1'), call('lookup', { user: 'nobody' }, 'c2')])
    expect(text(ok)).toBe('found ada')
    expect(text(bad)).toBe('Error: Invalid arguments for tool "lookup": /user: unknown user')
    expect(code(bad)).toBe('INVALID_ARGS')
    expect(ran).toEqual(['ada'])
  })

  test('unrepresentable schemas are definition errors naming the tool, the pointer and zod’s reason', () => {
    const date = () =>
      defineTool({ name: 'when', description: 'd', parameters: z.object({ at: z.date() }), output: { schema: { type: 'null' }, render: () => [] }, execute: () => null })
    expect(date).toThrow(ToolDefinitionError)
    expect(date).toThrow('tool "when": /parameters: the zod schema cannot be expressed as JSON Schema: Date cannot be represented in JSON Schema')
    expect(() =>
      defineTool({ name: 'size', description: 'd', parameters: z.object({}), output: { schema: z.string().transform((s) => s.length), render: () => [] }, execute: () => 1 }),
    ).toThrow('tool "size": /output/schema: the zod schema cannot be expressed as JSON Schema: Transforms cannot be represented in JSON Schema')
    expect(() =>
      defineTool({ name: 'scalar', description: 'd', parameters: z.string(), output: { schema: { type: 'null' }, render: () => [] }, execute: () => null }),
    ).toThrow('tool "scalar": /parameters: must describe an object (the zod schema converts to type "string")')
  })
})

describe('valibot', () => {
  const schema = v.object({ query: v.pipe(v.string(), v.minLength(2)), tags: v.optional(v.array(v.string())) })

  test('through toStandardJsonSchema (the library’s Standard JSON Schema adapter)', async () => {
    const search = defineTool({
      name: 'search',
      description: 'Search.',
      parameters: toStandardJsonSchema(schema),
      output: { schema: { type: 'array', items: { type: 'string' } }, render: renderJson },
      execute(args) {
        expectTypeOf(args).toEqualTypeOf<{ query: string; tags?: string[] | undefined }>()
        return [args.query, ...(args.tags ?? [])]
      },
    })
    expect(search.parameters).toEqual({
      type: 'object',
      properties: { query: { type: 'string', minLength: 2 }, tags: { type: 'array', items: { type: 'string' } } },
      required: ['query'],
    })
    h = await createHarness()
    h.ctx.tools.register(search)
    const [ok, bad] = await h.execute([call('search', { query: 'ab', tags: ['x'] }, 'c1'), call('search', { query: 'a', tags: [1] }, 'c2')])
    expect(text(ok)).toBe('["ab","x"]')
    expect(text(bad)).toBe('Error: Invalid arguments for tool "search": /query: Invalid length: Expected >=2 but received 1; /tags/0: Invalid type: Expected string but received 1')
  })

  test('a plain valibot schema with the converter passed in; without one, a clear definition error', () => {
    const withConverter = defineTool({
      name: 'search',
      description: 'Search.',
      parameters: schema,
      toJsonSchema: valibotToJsonSchema,
      output: { schema: { type: 'null' }, render: () => [] },
      execute: () => null,
    })
    expect(withConverter.parameters).toMatchObject({ type: 'object', required: ['query'] })
    expect(() => defineTool({ name: 'search', description: 'Search.', parameters: schema, output: { schema: { type: 'null' }, render: () => [] }, execute: () => null })).toThrow(
      'tool "search": /parameters: the valibot schema has no JSON Schema converter: pass toJsonSchema (e.g. toJsonSchema of @valibot/to-json-schema) or wrap the schema with the library\'s Standard JSON Schema adapter',
    )
    expect(() =>
      defineTool({
        name: 'when',
        description: 'd',
        parameters: toStandardJsonSchema(v.object({ at: v.date() })),
        output: { schema: { type: 'null' }, render: () => [] },
        execute: () => null,
      }),
    ).toThrow('tool "when": /parameters: the valibot schema cannot be expressed as JSON Schema: The "date" schema cannot be converted to JSON Schema.')
  })
})

describe('ArkType', () => {
  const params = type({ a: { b: 'number[]' }, 'note?': 'string' })

  test('ArkType’s toJsonSchema for the model, its own messages (without the repeated path) for the model’s mistakes', async () => {
    const sum = defineTool({
      name: 'sum',
      description: 'Sums a.b.',
      parameters: params,
      output: { schema: type('number'), render: renderJson },
      execute(args) {
        expectTypeOf(args).toEqualTypeOf<{ a: { b: number[] }; note?: string }>()
        return args.a.b.reduce((x, y) => x + y, 0)
      },
    })
    expect(sum.parameters).toEqual({
      type: 'object',
      properties: { a: { type: 'object', properties: { b: { type: 'array', items: { type: 'number' } } }, required: ['b'] }, note: { type: 'string' } },
      required: ['a'],
    })
    expect(sum.output.schema).toEqual({ type: 'number' })
    h = await createHarness()
    h.ctx.tools.register(sum)
    const [ok, bad] = await h.execute([call('sum', { a: { b: [1, 2] } }, 'c1'), call('sum', { a: { b: [1, 'x'] }, note: 5 }, 'c2')])
    expect(text(ok)).toBe('3')
    expect(text(bad)).toBe('Error: Invalid arguments for tool "sum": /a/b/1: must be a number (was a string); /note: must be a string (was a number)')
  })

  test('a Date is refused at definition with ArkType’s error code', () => {
    expect(() => defineTool({ name: 'when', description: 'd', parameters: type({ at: 'Date' }), output: { schema: { type: 'null' }, render: () => [] }, execute: () => null })).toThrow(
      'tool "when": /parameters: the arktype schema cannot be expressed as JSON Schema: unsupported date',
    )
  })
})

describe('integration', () => {
  test('PTC SDK types come from the converted schemas', async () => {
    const executor = createPtcExecutor()
    h = await createHarness({ executor })
    h.ctx.tools.register(
      defineTool({
        name: 'stat',
        description: 'Stats a path.',
        parameters: z.object({ path: z.string() }),
        output: { schema: z.object({ size: z.number() }), render: renderJson },
        execute: () => ({ size: 1 }),
      }),
    )
    const sdk = h.ctx.tools.describe().sections[0]!.text
    expect(sdk).toContain('path: string')
    expect(sdk).toContain('size: number')
  })

  test('a throwing validator is the tool’s defect (TOOL_FAILED), not the model’s', async () => {
    h = await createHarness()
    h.ctx.tools.register(
      defineTool({
        name: 'fragile',
        description: 'd',
        parameters: z.object({ x: z.string().refine(() => {
          throw new Error('validator crashed')
        }) }),
        output: { schema: { type: 'null' }, render: () => [] },
        execute: () => null,
      }),
    )
    const [r] = await h.execute([call('fragile', { x: 'a' }, 'c1')])
    expect(code(r)).toBe('TOOL_FAILED')
    // zod's Standard validate retries a throwing synchronous parse asynchronously, so the throw surfaces just before the body.
    expect(text(r)).toBe('Error: Tool "fragile" could not check its arguments: validator crashed')
  })

  test('a validator that throws synchronously fails the call at prepare, before policy', async () => {
    h = await createHarness()
    const policy: string[] = []
    h.ctx.on('tools/pre-execute', (exec, next) => {
      policy.push(exec.callId)
      return next()
    })
    h.ctx.tools.register(
      defineTool({
        name: 'fragile',
        description: 'd',
        parameters: type({ x: 'string' }).narrow(() => {
          throw new Error('validator crashed')
        }),
        toJsonSchema: () => ({ type: 'object', properties: { x: { type: 'string' } }, required: ['x'] }),
        output: { schema: { type: 'null' }, render: () => [] },
        execute: () => null,
      }),
    )
    const [r] = await h.execute([call('fragile', { x: 'a' }, 'c1')])
    expect(code(r)).toBe('TOOL_FAILED')
    expect(text(r)).toBe('Error: Tool "fragile" could not check its arguments: validator crashed')
    expect(policy).toEqual([])
  })

  test('formatStandardIssues: pointers escaped, { key } segments, root issues', () => {
    expect(formatStandardIssues([{ message: 'bad', path: ['a/b', { key: 0 }, 'c~d'] }, { message: 'whole' }])).toBe('/a~1b/0/c~0d: bad; (root): whole')
  })
})
