/**
 * Regression tests for the bug cases that concern the core (fixtures/real/cases/bug_cases.json):
 * B01, B02, B03, B04, B07, B11, B12, B14, B16, B17, B18, B22. Each fixes the whole kind of fault.
 * B03/B04 (ordering, isolation), B14 (collisions) and B17 (non-Error throws) have their
 * detailed suites in concurrency, scopes and pipeline-stages; here each case is replayed from
 * its recorded input.
 */
import { afterEach, describe, expect, test } from 'vitest'
import { defineRawTool, defineTool, type JsonValue, type ToolResult } from '@deepseek-ai/dsh-tools'
import { call, createHarness, Gate, gatedTool, largeOutputTool, loadBugCases, sleep, type Harness } from '@deepseek-ai/dsh-tool-testkit'

let h: Harness
afterEach(async () => {
  await h?.dispose()
})

const cases = new Map(loadBugCases().map((c) => [c.id, c]))
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- fixture inputs are untyped JSON
const input = (id: string): any => cases.get(id)!.input

function raw(name: string, schema: JsonValue, execute: (args: Record<string, JsonValue>) => JsonValue = (a) => a) {
  return defineRawTool({ name, description: name, inputSchema: schema as never, execute: (args) => execute(args as Record<string, JsonValue>) })
}

const text = (r: ToolResult) => (r.content[0] as { text: string }).text

describe('B01 args-empty-string', () => {
  test('"" is {} for a zero-parameter tool; a tool with required params gets a validation error naming q', async () => {
    h = await createHarness()
    const { schema, rawArguments, alsoTry } = input('B01')
    h.ctx.tools.register(raw('zero', schema, () => 'ran'))
    h.ctx.tools.register(raw('search', alsoTry.schema, () => 'ran'))
    const [a, b] = await h.execute([{ callId: 'c1', name: 'zero', arguments: rawArguments }, { callId: 'c2', name: 'search', arguments: alsoTry.rawArguments }])
    expect(a).toMatchObject({ isError: false, value: 'ran' })
    expect(b!.isError && b!.error.info?.code).toBe('INVALID_ARGS')
    expect(text(b!)).toBe('Error: Invalid arguments for tool "search": /q: is required')
  })
})

describe('B02 abort-propagation', () => {
  test('execute receives a signal that fires on the caller abort; the call settles as cancelled; nothing late reaches the transcript', async () => {
    h = await createHarness()
    const observed: string[] = []
    h.ctx.tools.register(
      defineTool({
        name: 'slow_fetch',
        description: 'await sleep(5000, {signal}) then return done',
        parameters: {},
        output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
        async execute(_a, exec) {
          exec.signal.addEventListener('abort', () => observed.push('signal fired'))
          await sleep(5000, exec.signal)
          return 'done'
        },
      }),
    )
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 5)
    const [r] = await h.execute([call('slow_fetch', {}, 'c1')], { signal: controller.signal })
    expect(observed).toEqual(['signal fired'])
    expect(r!.isError && r!.error.info?.code).toBe('ABORTED')
    expect(JSON.stringify(r)).not.toContain('done')
  })
})

describe('B03 parallel-result-order', () => {
  test('results are [c1, c2] though c2 completes first', async () => {
    h = await createHarness()
    const gate = new Gate()
    h.ctx.tools.register(gatedTool(gate, { name: 'read' }))
    const calls = input('B03').calls as { id: string; tool: string; args: JsonValue }[]
    const pending = h.execute(calls.map((c) => call(c.tool, {}, c.id)))
    await gate.started(2)
    gate.release('c2')
    await sleep(1)
    gate.release('c1')
    const results = await pending
    expect(gate.ends).toEqual(['c2', 'c1'])
    expect(results.map((r) => r.callId)).toEqual(['c1', 'c2'])
  })
})

describe('B04 parallel-error-isolation', () => {
  test('c1 ok, c2 error result with the message, c3 ok', async () => {
    h = await createHarness()
    const make = (name: string, outcome: string) =>
      defineTool({
        name,
        description: name,
        parameters: {},
        output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
        isConcurrencySafe: () => true,
        async execute() {
          await sleep(2)
          if (outcome !== 'ok') throw Object.assign(new Error('connection refused'), { name: 'ConnectionError' })
          return `${name} ok`
        },
      })
    const calls = input('B04').calls as { id: string; tool: string; outcome: string }[]
    for (const c of calls) h.ctx.tools.register(make(c.tool, c.outcome))
    const results = await h.execute(calls.map((c) => call(c.tool, {}, c.id)))
    expect(results.map((r) => [r.callId, r.isError ? `${r.error.info?.name}: ${r.error.message}` : r.value])).toEqual([
      ['c1', 'search ok'],
      ['c2', 'ConnectionError: connection refused'],
      ['c3', 'read_file ok'],
    ])
  })
})

describe('B07 schema-ref', () => {
  test('$ref args validate: a double-encoded object is rejected at /home by default and decoded once with repair', async () => {
    const { schema, args } = input('B07')
    h = await createHarness()
    h.ctx.tools.register(raw('set_addresses', schema))
    const [strict] = await h.execute([call('set_addresses', args, 'c1')])
    expect(text(strict!)).toBe('Error: Invalid arguments for tool "set_addresses": /home: must be object (got string)')
    await h.dispose()
    h = await createHarness({ registry: { repair: { jsonStrings: true } } })
    h.ctx.tools.register(raw('set_addresses', schema))
    const [repaired] = await h.execute([call('set_addresses', args, 'c1')])
    expect(repaired).toMatchObject({ isError: false, value: { home: { street: '1 Main', city: 'Springfield' }, work: { street: '2 Side', city: 'Springfield' } } })
    expect(repaired!.meta?.repairs?.length).toBe(1)
  })
})

describe('B11 validation-null-optional', () => {
  test('strict: two errors at /limit and /tag; null-as-absent: accepted without the nulls; required null always fails', async () => {
    const { schema, args } = input('B11')
    h = await createHarness()
    h.ctx.tools.register(raw('search', schema))
    const [strict] = await h.execute([call('search', args)])
    expect(text(strict!)).toBe('Error: Invalid arguments for tool "search": /limit: must be number (got null); /tag: must be string (got null)')
    await h.dispose()
    h = await createHarness({ registry: { repair: { nullAsAbsent: true } } })
    h.ctx.tools.register(raw('search', schema))
    const [lenient, requiredNull] = await h.execute([call('search', args), call('search', { query: null })])
    // Defaults are annotations and never applied (ARCHITECTURE §4.1): the tool sees the key absent.
    expect(lenient).toMatchObject({ isError: false, value: { query: 'cats' } })
    expect(text(requiredNull!)).toBe('Error: Invalid arguments for tool "search": /query: must be string (got null)')
  })
})

describe('B12 validation-number-string', () => {
  test("'12' → 12 accepted; 'end', '3.5', 3.5 rejected; '0' coerced then rejected by minimum; the advertised schema still says integer", async () => {
    const { schema, argsList } = input('B12')
    h = await createHarness({ registry: { repair: { numericStrings: true } } })
    h.ctx.tools.register(raw('insert', schema))
    const results = await h.execute((argsList as JsonValue[]).map((a, i) => call('insert', a, `c${i}`)))
    expect(results.map((r) => (r.isError ? text(r) : r.value))).toEqual([
      { insert_line: 12 },
      'Error: Invalid arguments for tool "insert": /insert_line: must be integer (got string)',
      'Error: Invalid arguments for tool "insert": /insert_line: must be integer (got string)',
      'Error: Invalid arguments for tool "insert": /insert_line: must be integer (got number)',
      'Error: Invalid arguments for tool "insert": /insert_line: must be >= 1',
    ])
    expect(h.ctx.tools.schemas()[0]!.parameters).toEqual(schema)
  })
})

describe('B14 name-collision', () => {
  test('the later server fails with an error naming both; calls keep going to the first', async () => {
    h = await createHarness()
    const servers = input('B14').servers as Record<string, { name: string }[]>
    const errors: string[] = []
    for (const [server, tools] of Object.entries(servers)) {
      await h.ctx.plugin({
        name: server,
        inject: ['tools'],
        apply: (ctx) => {
          for (const t of tools) {
            try {
              ctx.tools.register(raw(t.name, { type: 'object' }, () => server))
            } catch (e) {
              errors.push((e as Error).message)
            }
          }
        },
      })
    }
    expect(errors).toHaveLength(1)
    expect(errors[0]).toContain('already registered there by plugin "mail_a"; this registration came from plugin "mail_b"')
    const [r] = await h.execute([call('send_email', {})])
    expect(r).toMatchObject({ isError: false, value: 'mail_a' })
  })
})

describe('B16 unicode-args-stream', () => {
  test('an emoji at a 256-code-unit boundary survives the pipeline intact', async () => {
    h = await createHarness()
    h.ctx.tools.register(raw('say', { type: 'object', properties: { text: { type: 'string' } } }))
    const [r] = await h.execute([{ callId: 'c1', name: 'say', arguments: input('B16').arguments as string }])
    const value = (r as unknown as { value: { text: string } }).value.text
    expect(value.endsWith('\u{1F600}')).toBe(true)
    expect([...value].at(-1)!.codePointAt(0)).toBe(0x1f600)
  })
})

describe('B17 non-error-throw', () => {
  test('every recorded kind of throw yields an error result with a readable message', async () => {
    h = await createHarness()
    const circular: Record<string, unknown> = { kind: 'loop' }
    circular.self = circular
    const thrown: unknown[] = ['plain string', { code: 'E42', message: 'quota exceeded' }, null, undefined, 42, Object.create(null), circular, new DOMException('The operation was aborted', 'AbortError'), new (class extends Error {})()]
    thrown.forEach((value, i) => h.ctx.tools.register(defineTool({ name: `t${i}`, description: 'd', parameters: {}, output: { schema: { type: 'null' }, render: () => [] }, execute: (): null => { throw value } })))
    const results = await h.execute(thrown.map((_, i) => call(`t${i}`, {})))
    expect(results.map((r) => r.isError && r.error.message)).toEqual([
      'plain string',
      'quota exceeded (E42)',
      'threw null',
      'threw undefined',
      'threw 42',
      'threw {}',
      'threw {"kind":"loop","self":"[Circular]"}',
      'The operation was aborted',
      'Error',
    ])
    expect(results.map((r) => r.isError && r.error.info?.code)).toEqual(['TOOL_FAILED', 'E42', 'TOOL_FAILED', 'TOOL_FAILED', 'TOOL_FAILED', 'TOOL_FAILED', 'TOOL_FAILED', 'ABORTED', 'TOOL_FAILED'])
  })
})

describe('B18 huge-output', () => {
  test('a 5,000,000-character, 100,000-line result is cut to the cap with a marker; the canonical value stays whole', async () => {
    const { toolResult, cap } = input('B18')
    h = await createHarness({ registry: { contentLimits: { maxChars: cap.chars, maxLines: cap.lines } } })
    h.ctx.tools.register(largeOutputTool())
    const [r] = await h.execute([call('large', { chars: toolResult.sizeBytes, lines: toolResult.lines })])
    const shown = text(r!)
    const [body, marker] = shown.split('\n[output truncated: ')
    // 50-character lines: the character cap binds first.
    expect(body!.length).toBe(cap.chars)
    expect(body!.split('\n').length).toBeLessThanOrEqual(cap.lines)
    expect(marker).toBe('showing 25,000 of 5,000,000 characters (100,000 lines); request a narrower range or page to see the rest]')
    expect((r as unknown as { value: string }).value.length).toBe(5_000_000)
  })

  test('short lines: the line cap binds first', async () => {
    h = await createHarness()
    h.ctx.tools.register(largeOutputTool())
    const [r] = await h.execute([call('large', { chars: 1_000_000, lines: 100_000 })])
    const [body, marker] = text(r!).split('\n[output truncated: ')
    expect(body!.split('\n')).toHaveLength(1000)
    expect(marker).toBe(`showing ${body!.length.toLocaleString('en-US')} of 1,000,000 characters (100,000 lines); request a narrower range or page to see the rest]`)
  })
})

describe('B22 truncated-json', () => {
  test('incomplete JSON is detected as truncation, distinct from malformed JSON; the tool is not executed', async () => {
    h = await createHarness()
    let ran = 0
    h.ctx.tools.register(raw('open_slides', { type: 'object', properties: { file_path_list: { type: 'array', items: { type: 'string' } } } }, () => (ran++, 'ran')))
    const truncated = (input('B22').fragments as string[]).join('')
    const [cut, malformed] = await h.execute([
      { callId: 'c1', name: 'open_slides', arguments: truncated },
      { callId: 'c2', name: 'open_slides', arguments: '{"file_path_list" ["a"]}' },
    ])
    expect(ran).toBe(0)
    expect(text(cut!)).toBe(`Error: Invalid arguments for tool "open_slides": the JSON ends before it is complete (cut off after ${truncated.length} characters, likely at the model's output limit); the call was not run`)
    expect(text(malformed!)).toMatch(/^Error: Invalid arguments for tool "open_slides": not valid JSON \(Expected ':' after property name/)
  })
})
