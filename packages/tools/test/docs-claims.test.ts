/**
 * What docs/design.md, docs/pipeline.md, docs/glossary.md and the TSDoc of `RawToolCall`,
 * `ToolBatch` and `ToolGuard` promise about a raw batch, checked through the public API as a
 * reader would use it: how raw calls are normalised (argument text or objects, empty text,
 * invisible edges, missing or `null` arguments, repeated call ids), the exact failure of a
 * throwing guard and of a throwing `checkArguments`, and the two ways a failure's content may
 * differ from `Error: <message>` (block feedback, the definition's own `finalizeContent`); and
 * every `INVALID_ARGS` text the tools README's "Results and codes" table and docs/glossary.md
 * show (malformed entries, size cap, not JSON, cut off, not an object, not lossless JSON), and
 * the texts its `nameMap` paragraph shows (library texts naming tools as the model saw them).
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, test } from 'vitest'
import { defineRawTool, defineTool, type ToolResult } from '@deepseek-ai/dsh-tools'
import { toOpenAIChatTools } from '@deepseek-ai/dsh-tool-executor-native'
import { createHarness, type Harness } from '@deepseek-ai/dsh-tool-testkit'

let h: Harness
afterEach(async () => {
  await h?.dispose()
})

const echo = () =>
  defineTool({
    name: 'echo',
    description: 'Echo the arguments.',
    parameters: { a: { type: 'integer' } },
    output: { schema: { type: 'object', properties: { a: { type: 'integer' } } }, render: (_args, value) => [{ type: 'text', text: JSON.stringify(value) }] },
    execute: (args) => args,
  })

const outcome = (r: ToolResult) => [r.callId, r.isError ? `${r.error.info?.code}: ${r.content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('|')}` : `ok ${JSON.stringify(r.value)}`]

describe('raw calls as providers send them (RawToolCall)', () => {
  test('argument text or an object; empty, blank, missing, invisible edges, null and non-objects', async () => {
    h = await createHarness()
    h.ctx.tools.register(echo())
    const results = await h.tools.execute({
      calls: [
        { callId: 'text', name: 'echo', arguments: '{"a":1}' },
        { callId: 'object', name: 'echo', arguments: { a: 2 } },
        { callId: 'empty', name: 'echo', arguments: '' },
        { callId: 'blank', name: 'echo', arguments: ' \n\t' },
        { callId: 'missing', name: 'echo' },
        { callId: 'bom', name: 'echo', arguments: '\uFEFF{"a":3}\u200B' },
        { callId: 'null', name: 'echo', arguments: null },
        { callId: 'null-text', name: 'echo', arguments: 'null' },
        { callId: 'array', name: 'echo', arguments: [1] },
        { callId: 'string-text', name: 'echo', arguments: '"{\\"a\\":1}"' },
      ],
    })
    expect(results.map(outcome)).toEqual([
      ['text', 'ok {"a":1}'],
      ['object', 'ok {"a":2}'],
      ['empty', 'ok {}'],
      ['blank', 'ok {}'],
      ['missing', 'ok {}'],
      ['bom', 'ok {"a":3}'],
      ['null', 'INVALID_ARGS: Error: Invalid arguments for tool "echo": expected a JSON object, got null'],
      ['null-text', 'INVALID_ARGS: Error: Invalid arguments for tool "echo": expected a JSON object, got null'],
      ['array', 'INVALID_ARGS: Error: Invalid arguments for tool "echo": expected a JSON object, got array'],
      ['string-text', 'INVALID_ARGS: Error: Invalid arguments for tool "echo": expected a JSON object, got string'],
    ])
    expect(results[5]!.meta?.repairs).toEqual(['(root): leading U+FEFF (byte-order mark) removed', '(root): trailing U+200B (zero-width space) removed'])
  })

  test('an object argument is copied at submission: a later change by the caller does not reach the call', async () => {
    h = await createHarness()
    h.ctx.tools.register(echo())
    const args = { a: 1 }
    const pending = h.tools.execute({ calls: [{ callId: 'c1', name: 'echo', arguments: args }] })
    args.a = 2
    expect((await pending).map(outcome)).toEqual([['c1', 'ok {"a":1}']])
  })

  test('call ids are carried as given, repeated ones included: results pair with calls by position', async () => {
    h = await createHarness()
    h.ctx.tools.register(echo())
    const results = await h.tools.execute({
      calls: [
        { callId: 'same', name: 'echo', arguments: '{"a":1}' },
        { callId: 'same', name: 'echo', arguments: '{"a":2}' },
        { callId: '', name: 'echo', arguments: '{}' },
      ],
    })
    expect(results.map(outcome)).toEqual([
      ['same', 'ok {"a":1}'],
      ['same', 'ok {"a":2}'],
      ['invalid-call-2', 'INVALID_ARGS: Error: Invalid tool call at position 2: callId must be a non-empty string, got string'],
    ])
  })
})

describe('failures of policy and tool code', () => {
  test('a throwing guard fails closed as a policy error (ToolGuard, docs/pipeline.md stage 2b)', async () => {
    h = await createHarness()
    h.ctx.tools.register(echo())
    h.ctx.tools.guard(() => {
      throw new Error('guard crashed')
    })
    const [r] = await h.tools.execute({ calls: [{ callId: 'c1', name: 'echo', arguments: '{}' }] })
    expect(r).toEqual({
      callId: 'c1',
      isError: true,
      error: { message: 'Tool "echo" could not be checked by policy (guard): guard crashed', info: { name: 'PolicyError', code: 'TOOL_DENIED' } },
      content: [{ type: 'text', text: 'Error: Tool "echo" could not be checked by policy (guard): guard crashed' }],
      meta: { toolName: 'echo' },
    })
  })

  test('a throwing checkArguments quotes the tool name like every other model-facing message', async () => {
    h = await createHarness()
    h.ctx.tools.register(
      defineRawTool({
        name: 'say "hi"',
        description: 'Say hi.',
        inputSchema: { type: 'object' },
        execute: () => 'hi',
        checkArguments: () => {
          throw new Error('validator down')
        },
      }),
    )
    const results = await h.tools.execute({
      calls: [
        { callId: 'c1', name: 'say "hi"', arguments: '{}' },
        { callId: 'c2', name: 'say "hi"', arguments: '[]' },
      ],
    })
    expect(results.map(outcome)).toEqual([
      ['c1', 'TOOL_FAILED: Error: Tool "say \\"hi\\"" could not check its arguments: validator down'],
      ['c2', 'INVALID_ARGS: Error: Invalid arguments for tool "say \\"hi\\"": expected a JSON object, got array'],
    ])
  })
})

describe('failure content is Error: <message>, with the two documented exceptions', () => {
  test('block feedback is the content; a finalizeContent may add to a failure', async () => {
    h = await createHarness()
    h.ctx.tools.register(
      defineTool({
        name: 'f',
        description: 'Fails on a = 3.',
        parameters: { a: { type: 'integer', required: true } },
        output: { schema: { type: 'integer' }, render: (_args, v) => [{ type: 'text', text: String(v) }] },
        execute: (args) => {
          if (args.a === 3) throw new Error('bad input')
          return args.a
        },
        finalizeContent: (content, input) => (input.isError && input.callId === 'fin' ? [...content, { type: 'text', text: '[see the manual]' }] : undefined),
      }),
    )
    h.ctx.on('tools/post-execute', (exec, _draft, next) => (exec.callId === 'block' ? { type: 'block', feedback: 'use a smaller a' } : next()))
    const results = await h.tools.execute({
      calls: [
        { callId: 'plain', name: 'f', arguments: '{"a":3}' },
        { callId: 'block', name: 'f', arguments: '{"a":1}' },
        { callId: 'fin', name: 'f', arguments: '{"a":3}' },
      ],
    })
    expect(results.map(outcome)).toEqual([
      ['plain', 'TOOL_FAILED: Error: bad input'],
      ['block', 'TOOL_BLOCKED: use a smaller a'],
      ['fin', 'TOOL_FAILED: Error: bad input|[see the manual]'],
    ])
  })
})

describe('glossary, "Failure codes": the less obvious sources of a code', () => {
  test('a body that throws its own AbortError is ABORTED with its message; a throwing render is TOOL_FAILED', async () => {
    h = await createHarness()
    h.ctx.tools.register(
      defineTool({
        name: 'fetch_page',
        description: 'Fetch a page.',
        parameters: {},
        output: { schema: { type: 'string' }, render: () => [{ type: 'text', text: 'page' }] },
        execute: () => {
          throw new DOMException('the upstream request was cancelled', 'AbortError')
        },
      }),
    )
    h.ctx.tools.register(
      defineTool({
        name: 'bad_render',
        description: 'Renders badly.',
        parameters: {},
        output: {
          schema: { type: 'string' },
          render: () => {
            throw new Error('no template')
          },
        },
        execute: () => 'x',
      }),
    )
    const results = await h.tools.execute({
      calls: [
        { callId: 'c1', name: 'fetch_page', arguments: '' },
        { callId: 'c2', name: 'bad_render', arguments: '' },
      ],
    })
    expect(results.map(outcome)).toEqual([
      ['c1', 'ABORTED: Error: the upstream request was cancelled'],
      ['c2', 'TOOL_FAILED: Error: Tool "bad_render" failed to render its result: no template'],
    ])
  })
})

describe('docs/design.md, "The batch and the pipeline": where the session events go', () => {
  test('to `log`, else to the agent\'s log; without either, nowhere', async () => {
    h = await createHarness()
    h.ctx.tools.register(echo())
    const agentLog: string[] = []
    const batchLog: string[] = []
    const { agent } = h.agent('a1', { log: { append: (e) => agentLog.push(`${e.type} ${e.callId}`) } })
    await h.tools.execute({ agent, calls: [{ callId: 'viaAgent', name: 'echo', arguments: '' }] })
    await h.tools.execute({ agent, log: { append: (e) => batchLog.push(`${e.type} ${e.callId}`) }, calls: [{ callId: 'viaLog', name: 'echo', arguments: '' }] })
    expect(agentLog).toEqual(['tool/call viaAgent', 'tool/result viaAgent'])
    expect(batchLog).toEqual(['tool/call viaLog', 'tool/result viaLog'])
  })
})

describe('docs/design.md, "The registry": without a resolved set a conditional tool is not offered', () => {
  test('schemas() and definitions() agree with describe() and execute(); get() still inspects the registration', async () => {
    h = await createHarness()
    h.ctx.tools.register(echo())
    h.ctx.tools.register({ ...echo(), name: 'cond' }, { when: () => true })
    const [r] = await h.tools.execute({ calls: [{ callId: 'c1', name: 'cond', arguments: '' }] })
    expect(outcome(r!)).toEqual(['c1', 'UNKNOWN_TOOL: Error: Unknown tool "cond". Available tools: echo'])
    expect(h.ctx.tools.describe().tools.map((t) => t.name)).toEqual(['echo'])
    expect(h.ctx.tools.schemas().map((t) => t.name)).toEqual(['echo'])
    expect(h.ctx.tools.definitions().map((d) => d.name)).toEqual(['echo'])
    expect(h.ctx.tools.get('cond')?.name).toBe('cond')
    const set = await h.ctx.tools.resolve({ signal: new AbortController().signal })
    expect(h.ctx.tools.schemas(undefined, set).map((t) => t.name)).toEqual(['echo', 'cond'])
    expect(h.ctx.tools.definitions(undefined, set).map((d) => d.name)).toEqual(['echo', 'cond'])
    set.dispose()
  })
})

describe('docs/glossary.md, "Lossless JSON"', () => {
  test('undefined in a returned value is dropped as JSON.stringify drops it; in object arguments it is INVALID_ARGS', async () => {
    h = await createHarness()
    h.ctx.tools.register(
      defineTool({
        name: 'profile',
        description: 'A profile.',
        parameters: {},
        output: { schema: { type: 'json' }, render: (_args, v) => [{ type: 'text', text: JSON.stringify(v) }] },
        execute: () => ({ name: 'ada', email: undefined, tags: ['a', undefined] }) as never,
      }),
    )
    h.ctx.tools.register(echo())
    const results = await h.tools.execute({
      calls: [
        { callId: 'c1', name: 'profile', arguments: '' },
        { callId: 'c2', name: 'echo', arguments: { a: undefined } as never },
      ],
    })
    expect(results.map(outcome)).toEqual([
      ['c1', 'ok {"name":"ada","tags":["a",null]}'],
      ['c2', 'INVALID_ARGS: Error: Invalid arguments for tool "echo": /a is undefined'],
    ])
  })
})

describe('the INVALID_ARGS texts of the README "Results and codes" table (and docs/glossary.md)', () => {
  const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8')
  const glossary = readFileSync(fileURLToPath(new URL('../../../docs/glossary.md', import.meta.url)), 'utf8')

  test('each documented example is what a call like it gets, exactly', async () => {
    h = await createHarness({ registry: { maxArgumentBytes: 64 } })
    h.ctx.tools.register(defineRawTool({ name: 'x', description: 'x', inputSchema: { type: 'object' }, execute: () => 'ok' }))
    const circular: Record<string, unknown> = {}
    circular.a = circular
    let deep: Record<string, unknown> = {}
    for (let i = 0; i < 300; i++) deep = { a: deep }
    const results = await h.tools.execute({
      calls: [
        null,
        { name: 'x', arguments: '{}' },
        { callId: 'named', name: 5, arguments: '{}' },
        { callId: 'big', name: 'x', arguments: JSON.stringify({ s: 'x'.repeat(100) }) },
        { callId: 'json', name: 'x', arguments: '{"a": 1,}' },
        { callId: 'cut', name: 'x', arguments: '{"a": "' },
        { callId: 'array', name: 'x', arguments: '[1,2]' },
        { callId: 'nan', name: 'x', arguments: { n: Number.NaN } },
        { callId: 'date', name: 'x', arguments: { d: new Date(0) } },
        { callId: 'fn', name: 'x', arguments: { f: () => 1 } },
        { callId: 'bigint', name: 'x', arguments: { a: 1n } },
        { callId: 'cycle', name: 'x', arguments: circular },
        { callId: 'hole', name: 'x', arguments: { a: [1, , 2] } },
      ] as never,
    })
    const expected: [string, string][] = [
      ['invalid-call-0', 'Invalid tool call at position 0: expected an object with callId, name and arguments, got null'],
      ['invalid-call-1', 'Invalid tool call at position 1: callId must be a non-empty string, got undefined'],
      ['named', 'Invalid tool call at position 2: name must be a string, got number'],
      ['big', 'Invalid arguments for tool "x": the arguments are 108 bytes, over the limit of 64 bytes'],
      ['json', 'Invalid arguments for tool "x": not valid JSON (Expected double-quoted property name in JSON at position 8)'],
      ['cut', 'Invalid arguments for tool "x": the JSON ends before it is complete (cut off after 7 characters, likely at the model\'s output limit); the call was not run'],
      ['array', 'Invalid arguments for tool "x": expected a JSON object, got array'],
      ['nan', 'Invalid arguments for tool "x": /n NaN is not a JSON number'],
      ['date', 'Invalid arguments for tool "x": /d is a Date object, not plain JSON'],
      ['fn', 'Invalid arguments for tool "x": /f is a function'],
      ['bigint', 'Invalid arguments for tool "x": /a is a BigInt'],
      ['cycle', 'Invalid arguments for tool "x": /a is a circular reference'],
      ['hole', 'Invalid arguments for tool "x": /a/1 is a hole in a sparse array'],
    ]
    expect(results.map((r) => [r.callId, r.isError ? `${r.error.info?.code}: ${r.error.message}` : 'ok'])).toEqual(expected.map(([id, text]) => [id, `INVALID_ARGS: ${text}`]))
    // The README shows every malformed entry at position 0, and the lossless-JSON problems after the first without their prefix.
    const documented = (text: string): boolean => readme.includes(text.replace(/position \d+/, 'position 0')) || readme.includes(text.replace(/^Invalid arguments for tool "x": (?=\/)/, ''))
    for (const [, text] of expected) expect(documented(text), text).toBe(true)
    for (const text of [expected[0]![1], expected[5]![1].slice('Invalid arguments for tool "x": '.length), 'expected a JSON object, got array', '/n NaN is not a JSON number']) expect(glossary.includes(text), text).toBe(true)

    const deeper = await h.tools.execute({ calls: [{ callId: 'deep', name: 'x', arguments: deep as never }] })
    expect(deeper[0]!.isError && deeper[0]!.error.message).toMatch(/^Invalid arguments for tool "x": (\/a)+\/…(\/a)+ nests deeper than 256 levels$/)
  })
})

describe('the README "Results and codes": with a nameMap, library texts name tools as the model saw them', () => {
  const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8')

  test('the documented examples are what the calls get; info, meta and the calls keep the registered name', async () => {
    h = await createHarness()
    const tool = (name: string) => defineRawTool({ name, description: name, inputSchema: { type: 'object', properties: { n: { type: 'integer' } } }, execute: () => 1 })
    h.ctx.tools.register(tool('math.factorial'))
    h.ctx.tools.register(tool('math_abs'))
    h.ctx.on('tools/pre-execute', (exec) => (exec.callId === 'deny' ? { type: 'deny', reason: '' } : { type: 'allow' }))
    const declared = toOpenAIChatTools(h.ctx.tools.describe())
    const results = await h.ctx.tools.execute({
      nameMap: declared.nameMap,
      calls: [
        { callId: 'args', name: 'math.factorial', arguments: '{"n":"5"}' },
        { callId: 'deny', name: 'math.factorial', arguments: '{}' },
        { callId: 'typo', name: 'math_factoral', arguments: '{}' },
      ],
    })
    const texts = results.map((r) => (r.isError ? r.error.message : 'ok'))
    expect(texts).toEqual(['Invalid arguments for tool "math_factorial": /n: must be integer (got string)', 'Tool "math_factorial" was denied', 'Unknown tool "math_factoral". Available tools: math_abs, math_factorial'])
    for (const text of ['Invalid arguments for tool "math_factorial": …', texts[1]!, texts[2]!]) expect(readme, text).toContain(text)
    expect(results.map((r) => [r.isError ? r.error.info?.toolName : undefined, r.meta?.toolName])).toEqual([[undefined, 'math.factorial'], ['math.factorial', 'math.factorial'], [undefined, undefined]])
  })
})
