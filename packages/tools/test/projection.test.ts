import { afterEach, expect, test } from 'vitest'
import { defineTool, defineRawTool } from '@deepseek-ai/dsh-tools'
import { createHarness, echoTool, type Harness } from '@deepseek-ai/dsh-tool-testkit'

let h: Harness
afterEach(async () => {
  await h?.dispose()
})

test('schemas() projects only name, description, parameters and deferLoading, in registration order', async () => {
  h = await createHarness()
  h.ctx.tools.register(echoTool({ name: 'b_second' }))
  h.ctx.tools.register(
    defineTool({
      name: 'a_lazy',
      description: 'Loaded on demand.',
      parameters: { q: { type: 'string', required: true } },
      output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
      execute: () => 'x',
      timeoutMs: 5000,
      deferLoading: true,
      finalizeContent: (c) => c,
      presentCall: () => ({ title: 't' }),
    }),
  )
  const schemas = h.ctx.tools.schemas()
  expect(schemas.map((s) => s.name)).toEqual(['b_second', 'a_lazy'])
  expect(schemas[1]).toEqual({ name: 'a_lazy', description: 'Loaded on demand.', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] }, deferLoading: true })
  expect(Object.keys(schemas[0]!)).toEqual(['name', 'description', 'parameters'])
  expect(h.ctx.tools.describe().tools).toEqual(schemas)
})

test('projections are detached: mutating the definition after registration changes nothing the model sees or the validator enforces', async () => {
  h = await createHarness()
  const inputSchema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } as Record<string, unknown>
  h.ctx.tools.register(defineRawTool({ name: 'count', description: 'd', inputSchema, execute: (a) => a }))
  ;(inputSchema.properties as Record<string, unknown>).n = { type: 'string' }
  inputSchema.required = []
  expect(h.ctx.tools.schemas()[0]!.parameters).toEqual({ type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] })
  expect(Object.isFrozen(h.ctx.tools.schemas()[0]!.parameters)).toBe(true)
  const [r] = await h.execute([{ callId: 'c', name: 'count', arguments: '{"n":"x"}' }])
  expect(r!.isError && r!.error.message).toBe('Invalid arguments for tool "count": /n: must be integer (got string)')
})

test('registration errors name the tool and the JSON pointer', async () => {
  h = await createHarness()
  const base = { description: 'd', execute: () => null, output: { schema: {}, render: () => [] } }
  const attempt = (def: Record<string, unknown>) => {
    try {
      h.ctx.tools.register(def as never)
      return 'registered'
    } catch (e) {
      return (e as Error).message
    }
  }
  expect(attempt({ ...base, name: ' bad name', parameters: {} })).toBe('Cannot register tool " bad name": a tool name must be 1–128 Unicode characters in NFC form, without control or invisible characters and without surrounding whitespace (it has whitespace around it)')
  expect(attempt({ ...base, name: 'run_code', parameters: {} })).toBe('Cannot register tool "run_code": /name "run_code" is reserved for the PTC executor')
  expect(attempt({ ...base, name: 'x', parameters: { type: 'string' } })).toBe('Cannot register tool "x": /parameters/type must be "object" (tool arguments are a JSON object), got "string"')
  expect(attempt({ ...base, name: 'x', parameters: {}, timeoutMs: 0 })).toBe('Cannot register tool "x": /timeoutMs must be a positive finite number of ms up to 2147483647, got 0')
  expect(attempt({ ...base, name: 'x', parameters: {}, timeoutMs: '500' })).toBe('Cannot register tool "x": /timeoutMs must be a positive finite number of ms up to 2147483647, got "500"')
  expect(attempt({ name: 'x', description: 'd', execute: () => null, parameters: {} })).toBe('Cannot register tool "x": /output is missing: declare { schema, render } for the canonical value')
  expect(attempt({ ...base, name: 'x', parameters: { type: 'object', properties: { a: { type: 'strin' } } } })).toMatch(/^Cannot register tool "x": \/parameters\/properties\/a\/type /)
  expect(attempt({ ...base, name: 'x', parameters: { type: 'object', properties: { a: { $ref: '#/$defs/Missing' } } } })).toMatch(/^Cannot register tool "x": \/parameters\/properties\/a\/\$ref /)
  expect(h.ctx.tools.schemas()).toEqual([])
})
