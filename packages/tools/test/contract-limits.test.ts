/**
 * One nesting limit everywhere, and long messages stay readable (each test is named after the
 * kind of fault it pins). The limit is `MAX_JSON_DEPTH` (256 containers): registration,
 * compilation, DSL projection, argument snapshots and provider declarations share it, and no
 * `RangeError` escapes at any depth.
 */
import { afterEach, describe, expect, test } from 'vitest'
import {
  capPointer,
  checkSchema,
  defineRawTool,
  defineTool,
  getValidator,
  MAX_ERROR_MESSAGE_CHARS,
  MAX_JSON_DEPTH,
  MAX_POINTER_CHARS,
  ToolDefinitionError,
  ToolError,
  ToolRegistrationError,
  type JsonObject,
  type ToolSchema,
} from '@deepseek-ai/dsh-tools'
import { sanitizeToolParameters, toAnthropicTools, toGeminiTools, toOpenAIChatTools, toOpenAIResponsesTools, toDeepSeekTools } from '@deepseek-ai/dsh-tool-executor-native'
import { call, createHarness, type Harness } from '@deepseek-ai/dsh-tool-testkit'

let h: Harness
afterEach(async () => {
  await h?.dispose()
})

/** `{ type: 'object', properties: { p: … } }` `levels` times around a string: JSON depth 2·levels + 1. */
function nested(levels: number): JsonObject {
  let schema: JsonObject = { type: 'string' }
  for (let i = 0; i < levels; i++) schema = { type: 'object', properties: { p: schema } }
  return schema
}

function value(levels: number): JsonObject | string {
  let v: JsonObject | string = 'x'
  for (let i = 0; i < levels; i++) v = { p: v }
  return v
}

const text = (r: { content: readonly { type: string; text?: string }[] } | undefined): string => r!.content[0]?.text ?? ''
const deepestAllowed = Math.floor((MAX_JSON_DEPTH - 1) / 2) // 127 object levels: JSON depth 255

describe('one nesting limit everywhere', () => {
  test('the limit is documented and shared: 256 containers', () => {
    expect(MAX_JSON_DEPTH).toBe(256)
    expect(deepestAllowed).toBe(127)
  })

  test('under the limit: registers, validates, runs and declares for every provider', async () => {
    h = await createHarness()
    h.ctx.tools.register(defineRawTool({ name: 'deep', description: 'Deep.', inputSchema: nested(deepestAllowed), execute: () => 'ok' }))
    const [ok, bad] = await h.execute([call('deep', value(deepestAllowed) as JsonObject, 'ok'), call('deep', value(deepestAllowed - 1) as JsonObject, 'bad')])
    expect(ok).toMatchObject({ isError: false, value: 'ok' })
    expect(bad!.isError && bad!.error.info?.code).toBe('INVALID_ARGS')
    const tools = h.ctx.tools.schemas()
    for (const declare of [toOpenAIChatTools, toOpenAIResponsesTools, toDeepSeekTools, toAnthropicTools, toGeminiTools] as const) {
      const declared = declare({ tools })
      expect(declared.errors).toEqual([])
      expect(declared.tools).toHaveLength(1)
    }
  })

  test.each([deepestAllowed + 1, 700, 5_000])('over the limit (%i object levels): register throws ToolRegistrationError naming the tool and the pointer', async (levels) => {
    h = await createHarness()
    const definition = defineRawTool({ name: 'deep', description: 'Deep.', inputSchema: nested(levels), execute: () => 'ok' })
    let thrown: unknown
    try {
      h.ctx.tools.register(definition)
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(ToolRegistrationError)
    const error = thrown as ToolRegistrationError
    const pointer = `/parameters${'/properties/p'.repeat(128)}`
    expect(error.toolName).toBe('deep')
    expect(error.pointer).toBe(pointer)
    expect(error.message).toBe(`Cannot register tool "deep": ${capPointer(pointer)} nests deeper than 256 levels (MAX_JSON_DEPTH)`)
    expect(capPointer(pointer).length).toBeLessThanOrEqual(MAX_POINTER_CHARS)
    expect(h.ctx.tools.schemas()).toEqual([])
  })

  test('an output schema over the limit is refused the same way', async () => {
    h = await createHarness()
    expect(() => h.ctx.tools.register(defineRawTool({ name: 'deep_out', description: 'd', inputSchema: { type: 'object' }, outputSchema: nested(700), execute: () => 'ok' }))).toThrow(ToolRegistrationError)
  })

  test.each([200, 700, 5_000])('the DSL projection refuses %i levels with ToolDefinitionError, never RangeError', (levels) => {
    let spec: Record<string, unknown> = { type: 'string' }
    for (let i = 0; i < levels; i++) spec = { type: 'object', properties: { p: spec } }
    const attempt = () => defineTool({ name: 'deep', description: 'd', parameters: { p: spec as never }, output: { schema: { type: 'json' }, render: () => [] }, execute: () => null })
    expect(attempt).toThrow(ToolDefinitionError)
    expect(attempt).toThrow(/^tool "deep": \/parameters\/properties\/p\/properties\/p[^ ]*\/…[^ ]*: nests deeper than 256 levels \(MAX_JSON_DEPTH\)$/)
  })

  test.each([700, 5_000])('checkSchema, getValidator and provider sanitizers report %i levels as a problem, never a RangeError', (levels) => {
    const schema = nested(levels)
    expect(checkSchema(schema)).toEqual({ pointer: '/properties/p'.repeat(128), message: 'nests deeper than 256 levels (MAX_JSON_DEPTH)' })
    const issues = getValidator(schema)({})
    expect(issues).toHaveLength(1)
    expect(issues[0]!.keyword).toBe('schema')
    expect(issues[0]!.message).toBe(`the schema itself is invalid and cannot be compiled: ${capPointer('/properties/p'.repeat(128))} nests deeper than 256 levels (MAX_JSON_DEPTH)`)
    const tool: ToolSchema = { name: 'deep', description: 'd', parameters: schema }
    for (const provider of ['openai-chat', 'anthropic', 'gemini'] as const) {
      const sanitized = sanitizeToolParameters(provider, tool)
      expect(sanitized.ok).toBe(false)
      if (!sanitized.ok) expect([sanitized.error.code, sanitized.error.message]).toEqual(['SCHEMA_TOO_LARGE', 'tool "deep": nests deeper than 256 levels (MAX_JSON_DEPTH)'])
    }
  })

  test('argument values share the limit: 256 levels pass the snapshot, 257 are INVALID_ARGS', async () => {
    h = await createHarness()
    h.ctx.tools.register(defineRawTool({ name: 'any', description: 'd', inputSchema: { type: 'object' }, execute: () => 'ok' }))
    const array = (depth: number) => `${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}`
    const [ok, deep] = await h.execute([call('any', `{"a":${array(MAX_JSON_DEPTH)}}`, 'ok'), call('any', `{"a":${array(MAX_JSON_DEPTH + 1)}}`, 'deep')])
    expect(ok!.isError).toBe(false)
    expect(text(deep)).toBe(`Error: Invalid arguments for tool "any": ${capPointer(`/a${'/0'.repeat(MAX_JSON_DEPTH - 2)}`)} nests deeper than 256 levels`)
  })
})

describe('long messages stay readable', () => {
  test('a 5,000-level nested array: pointer elided in the middle, message within the cap', async () => {
    h = await createHarness()
    h.ctx.tools.register(defineRawTool({ name: 'any', description: 'd', inputSchema: { type: 'object' }, execute: () => 'ok' }))
    const [r] = await h.execute([call('any', `{"a":${'['.repeat(5_000)}${']'.repeat(5_000)}}`, 'c1')])
    const shown = '/a/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/…/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0'
    expect(capPointer(`/a${'/0'.repeat(254)}`)).toBe(shown)
    expect(r!.isError && r!.error.message).toBe(`Invalid arguments for tool "any": ${shown} nests deeper than 256 levels`)
    expect(text(r).length).toBeLessThan(200)
  })

  test('many violations are listed until the budget, then summarised', async () => {
    h = await createHarness()
    const properties: Record<string, { type: 'integer' }> = {}
    for (let i = 0; i < 300; i++) properties[`field_${i}`] = { type: 'integer' }
    h.ctx.tools.register(defineRawTool({ name: 'wide', description: 'd', inputSchema: { type: 'object', properties }, execute: () => 'ok' }))
    const args = Object.fromEntries(Object.keys(properties).map((k) => [k, 'x']))
    const [r] = await h.execute([call('wide', args, 'c1')])
    const message = r!.isError ? r!.error.message : ''
    expect(message.startsWith('Invalid arguments for tool "wide": /field_0: must be integer (got string); /field_1: must be integer (got string)')).toBe(true)
    expect(message).toMatch(/; … and 2\d\d more problems$/)
    expect(message.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_CHARS)
  })

  test('every failure message is capped at MAX_ERROR_MESSAGE_CHARS by eliding its middle: thrown errors and policy text too', async () => {
    h = await createHarness()
    h.ctx.tools.register(defineRawTool({ name: 'loud', description: 'd', inputSchema: { type: 'object' }, execute: () => { throw new ToolError('E_LOUD', `start ${'x'.repeat(100_000)} end`) } }))
    h.ctx.tools.register(defineRawTool({ name: 'guarded', description: 'd', inputSchema: { type: 'object' }, execute: () => 'ok' }))
    h.ctx.tools.guard((exec) => (exec.name === 'guarded' ? `no ${'y'.repeat(10_000)} way` : undefined))
    const results = await h.execute([call('loud', {}, 'a'), call('guarded', {}, 'b')])
    expect(MAX_ERROR_MESSAGE_CHARS).toBe(2_000)
    for (const [r, start, end, original] of [
      [results[0]!, 'start xxx', 'xxx end', 100_010],
      [results[1]!, 'no yyy', 'yyy way', 10_007],
    ] as const) {
      const message = r.isError ? r.error.message : ''
      expect(message.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_CHARS)
      expect(message.startsWith(start) && message.endsWith(end)).toBe(true)
      // The marker states exactly how much was cut: kept + omitted = the original length.
      const marker = / … \[(\d+) characters omitted\] … /.exec(message)!
      expect(message.length - marker[0].length + Number(marker[1])).toBe(original)
      expect(r.content).toEqual([{ type: 'text', text: `Error: ${message}` }])
    }
  })
})
