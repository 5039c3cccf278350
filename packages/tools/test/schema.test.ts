/**
 * The schema DSL: exact projections for every node kind (key order included), determinism,
 * annotations projected but never applied, and the definitions `defineTool` / `defineRawTool`
 * build (seed 000 "Register a tool", seed 001 "Typed tool parameter schemas", ARCHITECTURE §4.1).
 */
import { describe, expect, test } from 'vitest'
import type { ToolExecution } from '../src/contracts'
import { getValidator } from '../src/json-schema'
import {
  defineRawTool,
  defineTool,
  projectParameters,
  projectSchema,
  renderJsonValue,
  SchemaSpecError,
  ToolDefinitionError,
  type SchemaSpec,
} from '../src/schema'

/** Exact JSON including key order (toEqual ignores key order). */
const json = (value: unknown): string => JSON.stringify(value)

const exec = {} as ToolExecution

describe('projectSchema: one exact projection per node kind', () => {
  test('string with every constraint and annotation, in canonical key order', () => {
    const spec: SchemaSpec = {
      examples: ['a.txt'],
      default: 'x.txt',
      format: 'uri-reference',
      pattern: '^[a-z.]+$',
      maxLength: 64,
      minLength: 1,
      description: 'A file name',
      title: 'Name',
      type: 'string',
    }
    expect(json(projectSchema(spec))).toBe(
      '{"type":"string","title":"Name","description":"A file name","minLength":1,"maxLength":64,"pattern":"^[a-z.]+$","format":"uri-reference","default":"x.txt","examples":["a.txt"]}',
    )
  })

  test('number and integer with bounds', () => {
    expect(json(projectSchema({ type: 'number', multipleOf: 0.5, exclusiveMaximum: 10, exclusiveMinimum: 0, maximum: 9, minimum: 1 }))).toBe(
      '{"type":"number","minimum":1,"maximum":9,"exclusiveMinimum":0,"exclusiveMaximum":10,"multipleOf":0.5}',
    )
    expect(json(projectSchema({ type: 'integer', minimum: 1 }))).toBe('{"type":"integer","minimum":1}')
  })

  test('boolean, null and json', () => {
    expect(json(projectSchema({ type: 'boolean', description: 'flag' }))).toBe('{"type":"boolean","description":"flag"}')
    expect(json(projectSchema({ type: 'null' }))).toBe('{"type":"null"}')
    expect(json(projectSchema({ type: 'json' }))).toBe('{}')
    expect(json(projectSchema({ type: 'json', description: 'any JSON', default: { a: [1] } }))).toBe(
      '{"description":"any JSON","default":{"a":[1]}}',
    )
  })

  test('array with and without items', () => {
    expect(json(projectSchema({ type: 'array', maxItems: 3, minItems: 1, items: { type: 'string' } }))).toBe(
      '{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":3}',
    )
    expect(json(projectSchema({ type: 'array' }))).toBe('{"type":"array"}')
  })

  test('object: properties in declaration order, required in declaration order, additionalProperties', () => {
    const spec: SchemaSpec = {
      type: 'object',
      additionalProperties: false,
      properties: {
        zeta: { type: 'string', required: true },
        alpha: { type: 'number' },
        mid: { type: 'boolean', required: true },
      },
    }
    expect(json(projectSchema(spec))).toBe(
      '{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"number"},"mid":{"type":"boolean"}},"required":["zeta","mid"],"additionalProperties":false}',
    )
    expect(json(projectSchema({ type: 'object', additionalProperties: { type: 'integer' } }))).toBe(
      '{"type":"object","additionalProperties":{"type":"integer"}}',
    )
    expect(json(projectSchema({ type: 'object' }))).toBe('{"type":"object"}')
    expect(json(projectSchema({ type: 'object', properties: { a: { type: 'string' } } }))).toBe(
      '{"type":"object","properties":{"a":{"type":"string"}}}',
    )
  })

  test('oneOf, enum and const (standalone and typed)', () => {
    expect(json(projectSchema({ oneOf: [{ type: 'string' }, { type: 'null' }], description: 'maybe' }))).toBe(
      '{"description":"maybe","oneOf":[{"type":"string"},{"type":"null"}]}',
    )
    expect(json(projectSchema({ enum: ['a', 1, true, null] }))).toBe('{"enum":["a",1,true,null]}')
    expect(json(projectSchema({ type: 'string', enum: ['asc', 'desc'] }))).toBe('{"type":"string","enum":["asc","desc"]}')
    expect(json(projectSchema({ type: 'integer', enum: [1, 2] }))).toBe('{"type":"integer","enum":[1,2]}')
    expect(json(projectSchema({ const: { kind: 'circle', r: [1] } }))).toBe('{"const":{"kind":"circle","r":[1]}}')
    expect(json(projectSchema({ type: 'boolean', const: true }))).toBe('{"type":"boolean","const":true}')
  })

  test('required:true outside a properties record has no effect', () => {
    expect(json(projectSchema({ type: 'array', items: { type: 'string', required: true }, required: true }))).toBe(
      '{"type":"array","items":{"type":"string"}}',
    )
  })
})

describe('projectParameters', () => {
  test('object root; required in declaration order; no additionalProperties (extra keys allowed)', () => {
    expect(
      json(
        projectParameters({
          path: { type: 'string', required: true, description: 'Absolute file path' },
          offset: { type: 'number' },
          limit: { type: 'number', required: true },
        }),
      ),
    ).toBe(
      '{"type":"object","properties":{"path":{"type":"string","description":"Absolute file path"},"offset":{"type":"number"},"limit":{"type":"number"}},"required":["path","limit"]}',
    )
  })

  test('no required key when nothing is required; empty record', () => {
    expect(json(projectParameters({ a: { type: 'string', required: false } }))).toBe('{"type":"object","properties":{"a":{"type":"string"}}}')
    expect(json(projectParameters({}))).toBe('{"type":"object","properties":{}}')
  })

  test('deterministic: equal specs project to identical text, and results are detached', () => {
    const make = () => ({
      q: { type: 'string', required: true, examples: ['cats'] },
      filters: { type: 'object', properties: { tags: { type: 'array', items: { enum: ['a', 'b'] } } } },
    }) as const
    const first = projectParameters(make())
    const second = projectParameters(make())
    expect(json(first)).toBe(json(second))
    expect(first).not.toBe(second)
    const spec = make()
    const projected = projectParameters(spec) as { properties: { q: { examples: string[] } } }
    projected.properties.q.examples.push('dogs')
    expect(spec.q.examples).toEqual(['cats'])
  })

  test('escape hatch: names with / and ~ are escaped in error pointers', () => {
    expect(() => projectParameters({ 'a/b~c': { type: 'strnig' } as unknown as SchemaSpec })).toThrow(
      '/properties/a~1b~0c/type: must be one of "string", "number", "integer", "boolean", "null", "array", "object", "json" (got "strnig")',
    )
  })
})

describe('annotations are projected, never applied', () => {
  test('validating {} against a spec with defaults does not insert them', () => {
    const schema = projectParameters({
      limit: { type: 'number', default: 10 },
      mode: { type: 'string', default: 'fast', examples: ['slow'] },
    })
    const args = {}
    expect(getValidator(schema)(args)).toEqual([])
    expect(args).toEqual({})
  })

  test('a default that violates its own type is projected as written and still not applied', () => {
    const schema = projectParameters({ n: { type: 'integer', default: 'ten' as unknown as number, required: true } })
    expect(json(schema)).toBe('{"type":"object","properties":{"n":{"type":"integer","default":"ten"}},"required":["n"]}')
    expect(getValidator(schema)({}).map((issue) => `${issue.pointer} ${issue.message}`)).toEqual(['/n is required'])
  })
})

describe('specs outside the DSL throw SchemaSpecError with a pointer', () => {
  const cases: readonly [string, unknown, string][] = [
    ['unknown keyword', { type: 'string', minLenght: 1 }, '/minLenght: is not a keyword of a "string" spec'],
    ['no type', { description: 'x' }, '(root): a spec needs "type", "oneOf", "enum" or "const"'],
    ['empty enum', { enum: [] }, '/enum: must be a non-empty array'],
    ['enum of wrong type', { type: 'integer', enum: [1, 2.5] }, '/enum/1: must be of type integer (got 2.5)'],
    ['empty oneOf', { oneOf: [] }, '/oneOf: must be a non-empty array of specs'],
    ['bad pattern', { type: 'string', pattern: '(' }, '/pattern: is not a valid regular expression: Invalid regular expression: /(/u: Unterminated group'],
    ['fractional count', { type: 'array', minItems: 1.5 }, '/minItems: must be a non-negative integer'],
    ['zero multipleOf', { type: 'number', multipleOf: 0 }, '/multipleOf: must be greater than 0'],
    ['non-JSON default', { type: 'number', default: Number.NaN }, '/default: must be a JSON value (got NaN)'],
    ['nested', { type: 'array', items: { type: 'object', properties: { a: { type: 'map' } } } }, '/items/properties/a/type: must be one of "string", "number", "integer", "boolean", "null", "array", "object", "json" (got "map")'],
  ]
  test.each(cases)('%s', (_label, spec, message) => {
    let thrown: unknown
    try {
      projectSchema(spec as SchemaSpec)
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(SchemaSpecError)
    expect((thrown as SchemaSpecError).message).toBe(message)
    expect((thrown as SchemaSpecError).code).toBe('INVALID_SCHEMA_SPEC')
  })
})

describe('defineTool', () => {
  const readFile = defineTool({
    name: 'read_file',
    description: 'Read a file from disk.',
    parameters: {
      path: { type: 'string', required: true, description: 'Absolute file path' },
      offset: { type: 'number' },
      limit: { type: 'number' },
    },
    output: {
      schema: { type: 'object', properties: { text: { type: 'string', required: true }, lines: { type: 'integer', required: true } } },
      render: (_args, value) => [{ type: 'text', text: value.text }],
      presentationMeta: (args, value) => ({ path: args.path, lines: value.lines }),
    },
    execute: (args) => ({ text: `contents of ${args.path}`, lines: 1 }),
    timeoutMs: 5_000,
    isConcurrencySafe: () => true,
  })

  test('projects parameters and output, marks source dsl, keeps only given members', async () => {
    expect(json(readFile.parameters)).toBe(
      '{"type":"object","properties":{"path":{"type":"string","description":"Absolute file path"},"offset":{"type":"number"},"limit":{"type":"number"}},"required":["path"]}',
    )
    expect(json(readFile.output.schema)).toBe(
      '{"type":"object","properties":{"text":{"type":"string"},"lines":{"type":"integer"}},"required":["text","lines"]}',
    )
    expect(Object.keys(readFile).sort()).toEqual(['description', 'execute', 'isConcurrencySafe', 'name', 'output', 'parameters', 'source', 'timeoutMs'])
    expect(readFile.source).toBe('dsl')
    expect(readFile.timeoutMs).toBe(5_000)
    expect(await readFile.execute({ path: '/a' }, exec)).toEqual({ text: 'contents of /a', lines: 1 })
    expect(readFile.output.render({ path: '/a' }, { text: 'hi', lines: 1 })).toEqual([{ type: 'text', text: 'hi' }])
    expect(readFile.output.presentationMeta?.({ path: '/a' }, { text: 'hi', lines: 3 })).toEqual({ path: '/a', lines: 3 })
  })

  test('the definition and its schemas are frozen', () => {
    expect(Object.isFrozen(readFile)).toBe(true)
    expect(Object.isFrozen(readFile.output)).toBe(true)
    expect(Object.isFrozen(readFile.parameters)).toBe(true)
    expect(Object.isFrozen((readFile.parameters as { properties: object }).properties)).toBe(true)
  })

  test('deferLoading is preserved only when true', () => {
    const base = {
      description: 'd',
      parameters: {},
      output: { schema: { type: 'null' }, render: () => [] },
      execute: () => null,
    } as const
    expect(defineTool({ ...base, name: 'a', deferLoading: true }).deferLoading).toBe(true)
    expect('deferLoading' in defineTool({ ...base, name: 'b', deferLoading: false })).toBe(false)
    expect('deferLoading' in defineTool({ ...base, name: 'c' })).toBe(false)
  })

  test('a bad spec is reported with the tool name and a pointer into the definition', () => {
    const attempt = () =>
      defineTool({
        name: 'broken',
        description: 'd',
        parameters: { count: { type: 'int' } as unknown as SchemaSpec },
        output: { schema: { type: 'null' }, render: () => [] },
        execute: () => null,
      })
    expect(attempt).toThrow(ToolDefinitionError)
    expect(attempt).toThrow(
      'tool "broken": /parameters/properties/count/type: must be one of "string", "number", "integer", "boolean", "null", "array", "object", "json" (got "int")',
    )
    const badOutput = () =>
      defineTool({
        name: 'broken_out',
        description: 'd',
        parameters: {},
        output: { schema: { type: 'array', items: { enum: [] } }, render: () => [] },
        execute: () => [],
      })
    expect(badOutput).toThrow('tool "broken_out": /output/schema/items/enum: must be a non-empty array')
  })

  test('a bad output, a missing render or a missing execute is reported (no output is the short form)', () => {
    expect(defineTool({ name: 'x', description: 'd', parameters: {}, execute: () => null }).output.schema).toEqual({})
    const nullOutput = () => defineTool({ name: 'x', description: 'd', parameters: {}, output: null, execute: () => null } as never)
    expect(nullOutput).toThrow('tool "x": /output: must be an output declaration { schema, render }, or absent (the value is shown as itself or as JSON text)')
    const noRender = () => defineTool({ name: 'z', description: 'd', parameters: {}, output: { schema: { type: 'null' } }, execute: () => null } as never)
    expect(noRender).toThrow('tool "z": /output/render: must be a function (got undefined)')
    const noExecute = () =>
      defineTool({ name: 'y', description: 'd', parameters: {}, output: { schema: { type: 'null' }, render: () => [] } } as never)
    expect(noExecute).toThrow('tool "y": /execute: must be a function (got undefined)')
  })

  test('presentCall/presentResult are wrapped: invalid args → undefined, throws → undefined', () => {
    const bash = defineTool({
      name: 'bash',
      description: 'Run a shell command.',
      parameters: {
        command: { type: 'string', required: true },
        description: { type: 'string', required: true },
      },
      output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
      execute: (args) => `ran: ${args.command}`,
      presentCall: (args) => {
        if (args.command === 'boom') throw new Error('display bug')
        return { title: args.command, kind: 'execute', rawInput: args.command, content: [{ type: 'text', text: args.description }] }
      },
      presentResult: (_args, result) => {
        const block = result.content.length === 1 ? result.content[0] : undefined
        if (block === undefined || block.type !== 'text') return undefined
        return { content: [{ type: 'text', text: '```console\n' + block.text + '\n```' }] }
      },
    })
    expect(bash.presentCall?.({ command: 'ls', description: 'list' })).toEqual({
      title: 'ls',
      kind: 'execute',
      rawInput: 'ls',
      content: [{ type: 'text', text: 'list' }],
    })
    // An older logged shape (a renamed field) and a throwing presenter both fall back.
    expect(bash.presentCall?.({ cmd: 'ls' } as never)).toBeUndefined()
    expect(bash.presentCall?.({ command: 'boom', description: 'x' })).toBeUndefined()
    expect(bash.presentResult?.({ command: 'ls', description: 'list' }, { content: [{ type: 'text', text: 'a\nb' }], isError: false })).toEqual({
      content: [{ type: 'text', text: '```console\na\nb\n```' }],
    })
    expect(bash.presentResult?.({ command: 1 } as never, { content: [], isError: false })).toBeUndefined()
  })
})

describe('defineRawTool', () => {
  const inputSchema = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } as const

  test('keeps the schema as given, source raw, default output {} and default render', async () => {
    const tool = defineRawTool({ name: 'mcp__search', description: 'Search', inputSchema, execute: (args) => ({ hits: [String(args.q)] }) })
    expect(tool.parameters).toBe(inputSchema)
    expect(tool.source).toBe('raw')
    expect(json(tool.output.schema)).toBe('{}')
    expect(Object.keys(tool).sort()).toEqual(['description', 'execute', 'name', 'output', 'parameters', 'source'])
    expect(await tool.execute({ q: 'x' }, exec)).toEqual({ hits: ['x'] })
    expect(tool.output.render({}, 'plain text')).toEqual([{ type: 'text', text: 'plain text' }])
    expect(tool.output.render({}, { hits: ['x'] })).toEqual([{ type: 'text', text: '{\n  "hits": [\n    "x"\n  ]\n}' }])
    expect(tool.output.render({}, 42)).toEqual([{ type: 'text', text: '42' }])
  })

  test('optional members: validateArguments only when false, deferLoading only when true', () => {
    const tool = defineRawTool({
      name: 'srv',
      description: 'd',
      inputSchema,
      outputSchema: { type: 'string' },
      render: (_a, v) => [{ type: 'text', text: `<${String(v)}>` }],
      execute: () => 'ok',
      validateArguments: false,
      timeoutMs: 100,
      deferLoading: true,
      isConcurrencySafe: () => true,
      finalizeContent: (content) => content,
    })
    expect(tool.validateArguments).toBe(false)
    expect(tool.deferLoading).toBe(true)
    expect(tool.timeoutMs).toBe(100)
    expect(json(tool.output.schema)).toBe('{"type":"string"}')
    expect(tool.output.render({}, 'v')).toEqual([{ type: 'text', text: '<v>' }])
    const plain = defineRawTool({ name: 'p', description: 'd', inputSchema, execute: () => null, validateArguments: true, deferLoading: false })
    expect('validateArguments' in plain || 'deferLoading' in plain).toBe(false)
  })

  test('execute must be a function', () => {
    expect(() => defineRawTool({ name: 'bad', description: 'd', inputSchema } as never)).toThrow('tool "bad": /execute: must be a function (got undefined)')
  })

  test('renderJsonValue', () => {
    expect(renderJsonValue(null)).toEqual([{ type: 'text', text: '(no output)' }])
    expect(renderJsonValue('')).toEqual([{ type: 'text', text: '' }])
  })
})
