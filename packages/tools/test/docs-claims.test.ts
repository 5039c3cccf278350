/**
 * What docs/design.md, docs/pipeline.md, docs/glossary.md and the TSDoc of `RawToolCall`,
 * `ToolBatch` and `ToolGuard` promise about a raw batch, checked through the public API as a
 * reader would use it: how raw calls are normalised (argument text or objects, empty text,
 * invisible edges, missing or `null` arguments, repeated call ids), the exact failure of a
 * throwing guard and of a throwing `checkArguments`, and the two ways a failure's content may
 * differ from `Error: <message>` (block feedback, the definition's own `finalizeContent`).
 */
import { afterEach, describe, expect, test } from 'vitest'
import { defineRawTool, defineTool, type ToolResult } from '@deepseek-ai/dsh-tools'
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
