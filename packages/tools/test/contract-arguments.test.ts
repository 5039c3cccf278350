/**
 * Arguments and results as a careful user expects them (each test is named after the kind of
 * fault it pins): unknown keys can be rejected, a body that returns nothing succeeded, no silent
 * number rounding, invisible characters are visible, Unicode tool names.
 */
import { afterEach, describe, expect, test } from 'vitest'
import { defineRawTool, defineTool, NULL_RESULT_TEXT, ToolRegistrationError, type JsonValue, type ToolResult, type ToolRegistryConfig } from '@deepseek-ai/dsh-tools'
import { toAnthropicTools, toOpenAIChatTools } from '@deepseek-ai/dsh-tool-executor-native'
import { call, createHarness, type Harness } from '@deepseek-ai/dsh-tool-testkit'

let h: Harness
afterEach(async () => {
  await h?.dispose()
})

const text = (r: ToolResult | undefined): string => (r!.content[0]?.type === 'text' ? r!.content[0].text : '')
let received: JsonValue[] = []

function logs() {
  return defineRawTool({
    name: 'get_logs',
    description: 'Recent logs of a server.',
    inputSchema: { type: 'object', properties: { server_name: { type: 'string' }, hours_back: { type: 'integer' } }, required: ['server_name'] },
    execute: (args) => {
      received.push(args)
      return 'logs'
    },
  })
}

async function harness(registry?: ToolRegistryConfig): Promise<Harness> {
  received = []
  h = await createHarness(registry === undefined ? {} : { registry })
  return h
}

describe('unknown argument keys can be rejected', () => {
  test('registry unknownKeys: reject names each unknown key and suggests the closest declared key', async () => {
    await harness({ unknownKeys: 'reject' })
    h.ctx.tools.register(logs())
    const [r] = await h.execute([call('get_logs', '{"server_name":"db1","hours":1,"status_filter":"failure"}', 'c1')])
    expect(r!.isError && r!.error).toEqual({
      message: 'Invalid arguments for tool "get_logs": /hours: is not a declared key; did you mean "hours_back"?; /status_filter: is not a declared key (declared: "server_name", "hours_back")',
      info: { name: 'ToolError', code: 'INVALID_ARGS' },
    })
    expect(received).toEqual([])
    // What the model is shown says so too.
    expect(h.ctx.tools.schemas()[0]!.parameters).toEqual({
      type: 'object',
      properties: { server_name: { type: 'string' }, hours_back: { type: 'integer' } },
      required: ['server_name'],
      additionalProperties: false,
    })
  })

  test('default allow: a raw schema that says nothing keeps accepting extra keys', async () => {
    await harness()
    h.ctx.tools.register(logs())
    const [r] = await h.execute([call('get_logs', '{"server_name":"db1","hours":1}', 'c1')])
    expect(r!.isError).toBe(false)
    expect(received).toEqual([{ server_name: 'db1', hours: 1 }])
  })

  test('reject closes nested objects reached through properties and items, never combinator branches or open objects', async () => {
    await harness({ unknownKeys: 'reject' })
    h.ctx.tools.register(
      defineRawTool({
        name: 'deploy',
        description: 'Deploy.',
        inputSchema: {
          type: 'object',
          properties: {
            target: { type: 'object', properties: { region: { type: 'string' } } },
            steps: { type: 'array', items: { type: 'object', properties: { run: { type: 'string' } } } },
            labels: { type: 'object', properties: { team: { type: 'string' } }, additionalProperties: true },
            auth: { allOf: [{ type: 'object', properties: { user: { type: 'string' } } }, { type: 'object', properties: { token: { type: 'string' } } }] },
          },
        },
        execute: (args) => args,
      }),
    )
    const [bad, ok] = await h.execute([
      call('deploy', { target: { regoin: 'eu' }, steps: [{ run: 'a' }, { rnu: 'b' }] }, 'bad'),
      call('deploy', { labels: { team: 'x', extra: 1 }, auth: { user: 'u', token: 't' } }, 'ok'),
    ])
    expect(text(bad)).toBe('Error: Invalid arguments for tool "deploy": /target/regoin: is not a declared key; did you mean "region"?; /steps/1/rnu: is not a declared key; did you mean "run"?')
    expect(ok!.isError).toBe(false)
  })

  test('defineTool closed: true projects additionalProperties: false and rejects; closed: false stays open under reject', async () => {
    await harness({ unknownKeys: 'reject' })
    const base = { description: 'Search.', parameters: { query: { type: 'string', required: true } }, output: { schema: { type: 'json' }, render: () => [{ type: 'text' as const, text: 'ok' }] }, execute: () => null } as const
    const closed = defineTool({ ...base, name: 'search', closed: true })
    const open = defineTool({ ...base, name: 'search_open', closed: false })
    expect(closed.parameters).toEqual({ type: 'object', properties: { query: { type: 'string' } }, required: ['query'], additionalProperties: false })
    expect(open.parameters).toEqual({ type: 'object', properties: { query: { type: 'string' } }, required: ['query'], additionalProperties: true })
    h.ctx.tools.register(closed)
    h.ctx.tools.register(open)
    const [a, b] = await h.execute([call('search', { query: 'x', Query: 'y' }, 'a'), call('search_open', { query: 'x', Query: 'y' }, 'b')])
    expect(text(a)).toBe('Error: Invalid arguments for tool "search": /Query: is not a declared key (declared: "query")')
    expect(b!.isError).toBe(false)
  })

  test('an invalid unknownKeys option fails plugin start naming the field', async () => {
    await expect(harness({ unknownKeys: 'deny' as never })).rejects.toThrow('tools config: unknownKeys must be "allow" or "reject", got "deny"')
    // Not JSON.stringify ?? String: a function's source text is not shown (showConfigValue).
    await expect(harness({ unknownKeys: (() => 'reject') as never })).rejects.toThrow('tools config: unknownKeys must be "allow" or "reject", got a function')
  })
})

describe('a body that returns nothing succeeded', () => {
  test('raw tool returning undefined: success with value null, the model reads "(no output)"', async () => {
    await harness()
    let runs = 0
    h.ctx.tools.register(defineRawTool({ name: 'notify', description: 'Send a notification.', inputSchema: { type: 'object' }, execute: () => void runs++ }))
    const [r] = await h.execute([call('notify', {}, 'c1')])
    expect(r).toEqual({ callId: 'c1', isError: false, value: null, content: [{ type: 'text', text: '(no output)' }], meta: { toolName: 'notify' } })
    expect(NULL_RESULT_TEXT).toBe('(no output)')
    expect(runs).toBe(1)
  })

  test('DSL tool whose output schema accepts null: undefined is null, rendered by the tool', async () => {
    await harness()
    h.ctx.tools.register(
      defineTool({
        name: 'delete_file',
        description: 'Delete.',
        parameters: {},
        output: { schema: { type: 'null' }, render: (_a, v) => [{ type: 'text', text: `deleted (${String(v)})` }] },
        execute: () => undefined,
      }),
    )
    const [r] = await h.execute([call('delete_file', {}, 'c1')])
    expect(r).toMatchObject({ isError: false, value: null, content: [{ type: 'text', text: 'deleted (null)' }] })
  })

  test('undefined members are dropped and undefined elements are null, as JSON does', async () => {
    await harness()
    h.ctx.tools.register(defineRawTool({ name: 'user', description: 'A user.', inputSchema: { type: 'object' }, execute: () => ({ name: 'x', email: undefined, tags: ['a', undefined] }) as never }))
    const [r] = await h.execute([call('user', {}, 'c1')])
    expect(r).toMatchObject({ isError: false, value: { name: 'x', tags: ['a', null] } })
    expect(Object.keys((r as { value: object }).value)).toEqual(['name', 'tags'])
  })

  test('an output schema that does not admit null: INVALID_TOOL_OUTPUT saying the body returned nothing', async () => {
    await harness()
    h.ctx.tools.register(defineRawTool({ name: 'count', description: 'Count.', inputSchema: { type: 'object' }, outputSchema: { type: 'object' }, execute: () => undefined }))
    const [r] = await h.execute([call('count', {}, 'c1')])
    expect(r!.isError && r!.error).toEqual({
      message: 'Tool "count" returned an invalid value: (root) is undefined: the body returned nothing, and the output schema does not admit null',
      info: { name: 'ToolError', code: 'INVALID_TOOL_OUTPUT' },
    })
  })
})

describe('no silent number rounding', () => {
  function record(schema: JsonValue) {
    return defineRawTool({
      name: 'get_record',
      description: 'A record by id.',
      inputSchema: { type: 'object', properties: { id: schema as never, ids: { type: 'array', items: schema as never } } },
      execute: (args) => {
        received.push(args)
        return 'ok'
      },
    })
  }

  test('an integer outside ±(2^53−1) for an integer field is INVALID_ARGS naming the field and saying to send a string', async () => {
    await harness()
    h.ctx.tools.register(record({ type: 'integer' }))
    const [a, b] = await h.execute([call('get_record', '{"id": 2512292042121000001}', 'a'), call('get_record', '{"ids":[1, -98765432109876543210]}', 'b')])
    expect(a!.isError && a!.error).toEqual({
      message: 'Invalid arguments for tool "get_record": /id: 2512292042121000001 is outside the exact integer range of ±9007199254740991 and would be rounded; send it as a string ("2512292042121000001")',
      info: { name: 'ToolError', code: 'INVALID_ARGS' },
    })
    expect(text(b)).toBe('Error: Invalid arguments for tool "get_record": /ids/1: -98765432109876543210 is outside the exact integer range of ±9007199254740991 and would be rounded; send it as a string ("-98765432109876543210")')
    expect(received).toEqual([])
  })

  test('where the schema admits a string, the exact digits reach the body as a string', async () => {
    await harness()
    h.ctx.tools.register(record({ type: ['integer', 'string'] }))
    const [r] = await h.execute([call('get_record', '{"id": 2512292042121000001, "ids": [9007199254740991, 9007199254740993]}', 'c1')])
    expect(r!.isError).toBe(false)
    expect(received).toEqual([{ id: '2512292042121000001', ids: [9007199254740991, '9007199254740993'] }])
  })

  /** Registers a raw tool `name` that answers 'ok'; returns the arguments it received, in order. */
  function registerCapturing(name: string, inputSchema: JsonValue): unknown[] {
    const seen: unknown[] = []
    h.ctx.tools.register(
      defineRawTool({
        name,
        description: name,
        inputSchema: inputSchema as never,
        execute: (args) => {
          seen.push(args)
          return 'ok'
        },
      }),
    )
    return seen
  }

  test('the exact digits are substituted at any depth, after sibling values, and the whole arguments tree reaches the body frozen', async () => {
    await harness()
    const seen = registerCapturing('nested', { type: 'object' })
    const [r] = await h.execute([call('nested', '{"first": {"k": [1, {"y": 2}]}, "big": 98765432109876543210, "list": [{"z": 1e30}, -12345678901234567890, [3]], "tail": {"w": 4}}', 'c1')])
    expect(r!.isError).toBe(false)
    expect(seen).toEqual([{ first: { k: [1, { y: 2 }] }, big: '98765432109876543210', list: [{ z: 1e30 }, '-12345678901234567890', [3]], tail: { w: 4 } }])
    const unfrozen: string[] = []
    const visit = (value: unknown, pointer: string): void => {
      if (value === null || typeof value !== 'object') return
      if (!Object.isFrozen(value)) unfrozen.push(pointer === '' ? '(root)' : pointer)
      for (const [key, member] of Object.entries(value)) visit(member, `${pointer}/${key}`)
    }
    visit(seen[0], '')
    expect(unfrozen).toEqual([])
  })

  test('an integer literal too long for a double (309 digits or more, parsed as Infinity) is an unsafe integer like any other, not a non-finite number', async () => {
    await harness()
    const huge = `1${'0'.repeat(400)}`
    h.ctx.tools.register(record({ type: 'integer' }))
    const [r] = await h.execute([call('get_record', `{"id": ${huge}}`, 'c1')])
    expect(text(r)).toBe(`Error: Invalid arguments for tool "get_record": /id: ${huge} is outside the exact integer range of ±9007199254740991 and would be rounded; send it as a string ("${huge}")`)
    await h.dispose()
    await harness()
    h.ctx.tools.register(record({ type: ['integer', 'string'] }))
    const [s, inf] = await h.execute([call('get_record', `{"ids": [-${huge}], "id": 1}`, 's'), call('get_record', `{"ids": [${huge}], "id": 1e400}`, 'inf')])
    expect(s!.isError).toBe(false)
    expect(received).toEqual([{ ids: [`-${huge}`], id: 1 }])
    // 1e400 is no integer literal: still a non-finite number, even after the digits beside it were substituted.
    expect(text(inf)).toBe('Error: Invalid arguments for tool "get_record": /id Infinity is not a JSON number')
  })

  test('a duplicate key keeps its last value (as JSON.parse does): a rounded literal it discarded is neither substituted nor reported, whatever else the arguments hold', async () => {
    await harness()
    const seen = registerCapturing('dup', { type: 'object', properties: { id: { type: 'integer' } } })
    const results = await h.execute([
      call('dup', '{"id": 12345678901234567890, "id": 7}', 'alone'),
      call('dup', '{"id": 12345678901234567890, "id": 7, "x": 12345678901234567891}', 'beside'),
      call('dup', '{"a": {"b": 12345678901234567890}, "a": {"b": 1}, "x": 12345678901234567891}', 'frozen'),
      call('dup', '{"x": 12345678901234567890, "x": 12345678901234567891}', 'last'),
    ])
    expect(results.map((r) => [r.callId, text(r)])).toEqual([
      ['alone', 'ok'],
      ['beside', 'ok'],
      ['frozen', 'ok'],
      ['last', 'ok'],
    ])
    expect(seen).toEqual([{ id: 7 }, { id: 7, x: '12345678901234567891' }, { a: { b: 1 }, x: '12345678901234567891' }, { x: '12345678901234567891' }])
    // Without validation every substituted integer is reported, and only those.
    h.ctx.tools.register(defineRawTool({ name: 'proxy', description: 'Forward.', inputSchema: { type: 'object' }, validateArguments: false, execute: () => 'ok' }))
    const [p] = await h.execute([call('proxy', '{"id": 12345678901234567890, "id": 7, "x": 12345678901234567891}', 'p')])
    expect(text(p)).toBe('Error: Invalid arguments for tool "proxy": /x: 12345678901234567891 is outside the exact integer range of ±9007199254740991 and would be rounded; send it as a string ("12345678901234567891")')
  })

  test('digits inside strings, safe integers and decimals are untouched; 1e400 stays rejected', async () => {
    await harness()
    h.ctx.tools.register(record({}))
    const [a, b] = await h.execute([call('get_record', '{"id": "2512292042121000001", "ids": [-9007199254740991, 0.12345678901234567]}', 'a'), call('get_record', '{"id": 1e400}', 'b')])
    expect(a!.isError).toBe(false)
    expect(received).toEqual([{ id: '2512292042121000001', ids: [-9007199254740991, 0.12345678901234567] }])
    expect(text(b)).toBe('Error: Invalid arguments for tool "get_record": /id Infinity is not a JSON number')
  })

  test('the field is named exactly however deep and however its key is spelled; exponents are not integer literals', async () => {
    await harness()
    h.ctx.tools.register(defineRawTool({ name: 'deep', description: 'd', inputSchema: { type: 'object', additionalProperties: { type: 'array', items: { type: 'object', additionalProperties: { type: 'number' } } } }, execute: () => 'ok' }))
    const [r, ok] = await h.execute([
      call('deep', '{"a\\"/b": [{"x": 1}, {"y": 1e30, "z": -12345678901234567890}], "s": [{"t": "99999999999999999999"}]}', 'r'),
      call('deep', '{"a": [{"y": 1e30, "z": 12345678901234567.5}]}', 'ok'),
    ])
    expect(text(r)).toBe('Error: Invalid arguments for tool "deep": /a"~1b/1/z: -12345678901234567890 is outside the exact integer range of ±9007199254740991 and would be rounded; send it as a string ("-12345678901234567890"); /s/0/t: must be number (got string)')
    expect(ok!.isError).toBe(false)
  })

  test('a tool that skips validation never receives a rounded number', async () => {
    await harness()
    h.ctx.tools.register(defineRawTool({ name: 'proxy', description: 'Forward.', inputSchema: { type: 'object' }, validateArguments: false, execute: () => 'ok' }))
    const [r] = await h.execute([call('proxy', '{"id": 12345678901234567890}', 'c1')])
    expect(text(r)).toBe('Error: Invalid arguments for tool "proxy": /id: 12345678901234567890 is outside the exact integer range of ±9007199254740991 and would be rounded; send it as a string ("12345678901234567890")')
  })
})

describe('invisible characters are visible', () => {
  test('a leading byte-order mark or zero-width space is stripped and reported in meta.repairs', async () => {
    await harness()
    h.ctx.tools.register(logs())
    const results = await h.execute([
      call('get_logs', '\uFEFF{"server_name":"paris"}', 'bom'),
      call('get_logs', ' \u200B{"server_name":"lyon"}\u200B\n', 'zwsp'),
    ])
    expect(results.map((r) => [r.isError, r.meta])).toEqual([
      [false, { toolName: 'get_logs', repairs: ['(root): leading U+FEFF (byte-order mark) removed'] }],
      [false, { toolName: 'get_logs', repairs: ['(root): leading U+200B (zero-width space) removed', '(root): trailing U+200B (zero-width space) removed'] }],
    ])
    expect(received).toEqual([{ server_name: 'paris' }, { server_name: 'lyon' }])
  })

  test('messages escape the invisible characters they quote', async () => {
    await harness({ unknownKeys: 'reject' })
    h.ctx.tools.register(logs())
    const [unknown, key, json] = await h.execute([
      call('get\u200B_logs', '{}', 'a'),
      call('get_logs', '{"server_name":"x","hours\u200B_back":1}', 'b'),
      call('get_logs', '{"server_name":\u200B"x"}', 'c'),
    ])
    expect(text(unknown)).toBe('Error: Unknown tool "get\\u200B_logs". Available tools: get_logs')
    expect(text(key)).toBe('Error: Invalid arguments for tool "get_logs": /hours\\u200B_back: is not a declared key; did you mean "hours_back"?')
    // The parse error's wording is the engine's; what it quotes must show the character.
    expect(text(json)).toMatch(/^Error: Invalid arguments for tool "get_logs": not valid JSON \(Unexpected token '\\u200B'/)
    expect(text(json)).not.toContain('\u200B')
  })
})

describe('tool names beyond ASCII', () => {
  const named = (name: string) => defineRawTool({ name, description: 'A tool.', inputSchema: { type: 'object' }, execute: () => name })
  const attempt = (name: string): string => {
    try {
      h.ctx.tools.register(named(name))
      return 'registered'
    } catch (error) {
      expect(error).toBeInstanceOf(ToolRegistrationError)
      return (error as Error).message
    }
  }

  test('any non-empty NFC Unicode name registers and is callable', async () => {
    await harness()
    const names = ['搜索工具', '🔍', '👨‍👩‍👧 family', 'café', 'x'.repeat(128), '🔍'.repeat(128)]
    for (const name of names) expect(attempt(name)).toBe('registered')
    const results = await h.execute(names.map((name, i) => call(name, {}, `c${i}`)))
    expect(results.map((r) => [r.isError, r.isError ? undefined : r.value])).toEqual(names.map((name) => [false, name]))
    // A call naming a registered tool in another normal form (NFD) finds it.
    const [nfd] = await h.execute([call('cafe\u0301', {}, 'nfd')])
    expect(nfd).toMatchObject({ isError: false, value: 'café' })
  })

  test('provider declarations carry Unicode names reversibly, and the mapped-back call runs', async () => {
    await harness()
    for (const name of ['搜索工具', '🔍']) expect(attempt(name)).toBe('registered')
    for (const declare of [toOpenAIChatTools, toAnthropicTools]) {
      const declared = declare({ tools: h.ctx.tools.schemas() })
      expect(declared.errors).toEqual([])
      const wire = ['搜索工具', '🔍'].map((name) => declared.nameMap.toWire(name)!)
      expect(wire.every((w) => /^[A-Za-z0-9_-]{1,64}$/.test(w))).toBe(true)
      const results = await h.execute(wire.map((w, i) => call(declared.nameMap.toOriginal(w)!, {}, `c${i}`)))
      expect(results.map((r) => (r.isError ? r.error.message : r.value))).toEqual(['搜索工具', '🔍'])
    }
  })

  test('unevaluatedProperties: false gets the same unknown-key message', async () => {
    await harness()
    h.ctx.tools.register(defineRawTool({ name: 'q', description: 'd', inputSchema: { type: 'object', properties: { query: { type: 'string' } }, unevaluatedProperties: false }, execute: () => 'ok' }))
    const [r] = await h.execute([call('q', { qeury: 'x' }, 'c1')])
    expect(text(r)).toBe('Error: Invalid arguments for tool "q": /qeury: is not a declared key; did you mean "query"?')
  })

  test('empty, control or invisible characters, surrounding whitespace, over 128 characters, non-NFC and reserved names are refused', async () => {
    await harness()
    const rule = 'a tool name must be 1–128 Unicode characters in NFC form, without control or invisible characters and without surrounding whitespace'
    expect(attempt('')).toBe(`Cannot register tool "": ${rule} (it is empty)`)
    expect(attempt('a\nb')).toBe(`Cannot register tool "a\\nb": ${rule} (it contains a control or invisible character)`)
    expect(attempt('a\u200Bb')).toBe(`Cannot register tool "a\\u200Bb": ${rule} (it contains a control or invisible character)`)
    expect(attempt('search ')).toBe(`Cannot register tool "search ": ${rule} (it has whitespace around it)`)
    expect(attempt('x'.repeat(129))).toBe(`Cannot register tool "${'x'.repeat(129)}": ${rule} (it has 129 characters)`)
    expect(attempt('cafe\u0301')).toBe(`Cannot register tool "cafe\u0301": ${rule} (it is not in Unicode NFC form (register it as "café"))`)
    expect(attempt('run_code')).toBe('Cannot register tool "run_code": /name "run_code" is reserved for the PTC executor')
    expect(h.ctx.tools.schemas()).toEqual([])
  })
})
