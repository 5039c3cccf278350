/**
 * A batch's `nameMap` (the provider names the model saw): every library text that names a tool
 * names it as the model saw it (`math_factorial`), the same call without a map keeps the
 * registry name (`math.factorial`), and everything code reads — `error.info.toolName`,
 * `meta.toolName`, `exec.name`, the session log, `tools/*` events — keeps the registry name.
 * Each message kind is pinned with its exact text, once with and once without the map.
 */
import { afterEach, describe, expect, test } from 'vitest'
import { z } from 'zod'
import { defineRawTool, defineTool, shownToolName, ToolError, type JsonValue, type RawToolCall, type ToolBatch, type ToolExecutor, type ToolNameMap, type ToolResult, type ToolRegistryConfig } from '@deepseek-ai/dsh-tools'
import { toOpenAIChatTools } from '@deepseek-ai/dsh-tool-executor-native'
import { call, createHarness, MemorySessionLog, objectCall, ScriptedApproval, type Harness } from '@deepseek-ai/dsh-tool-testkit'

let h: Harness
afterEach(async () => {
  await h?.dispose()
})

const REGISTRY = 'math.factorial'
const WIRE = 'math_factorial'

/** `math.factorial`, with a mode per failure it can be made to produce. */
function factorial() {
  return defineRawTool({
    name: REGISTRY,
    description: 'The factorial of n.',
    inputSchema: { type: 'object', properties: { n: { type: 'integer', minimum: 0, maximum: 20 }, mode: { type: 'string' } }, required: ['n'] },
    outputSchema: { type: 'integer' },
    checkArguments: (args) => {
      if (args.mode === 'check') throw new Error('the checker broke')
      return undefined
    },
    render: (args, value) => {
      if (args.mode === 'render') throw new Error('no renderer')
      return [{ type: 'text', text: String(value) }]
    },
    finalizeContent: (content, info) => {
      if (info.callId === 'finalize') throw new Error('finalizer broke')
      return content
    },
    execute: (args) => (args.mode === 'output' ? 'not a number' : Array.from({ length: Number(args.n) }, (_, i) => i + 1).reduce((a, b) => a * b, 1)),
  })
}

/** A second tool whose name is valid everywhere (kept as it is by the declaration builders). */
function abs() {
  return defineRawTool({ name: 'math_abs', description: 'The absolute value of n.', inputSchema: { type: 'object', properties: { n: { type: 'number' } } }, execute: (args) => Math.abs(Number(args.n)) })
}

async function harness(setup?: (h: Harness) => void, registry?: ToolRegistryConfig): Promise<ToolNameMap> {
  h = await createHarness(registry === undefined ? {} : { registry })
  h.ctx.tools.register(factorial())
  h.ctx.tools.register(abs())
  setup?.(h)
  // The real declaration's map, passed as it is (no cast): `math.factorial` is sent as `math_factorial`.
  const declared = toOpenAIChatTools(h.ctx.tools.describe())
  expect(declared.nameMap.toWire(REGISTRY)).toBe(WIRE)
  const batch: Omit<ToolBatch, 'calls'> = { nameMap: declared.nameMap }
  return batch.nameMap!
}

/** The call's result with and without the name map (the same registry, one batch each). */
async function both(entry: RawToolCall, nameMap: ToolNameMap): Promise<{ mapped: ToolResult; plain: ToolResult }> {
  const [mapped] = await h.execute([entry], { nameMap })
  const [plain] = await h.execute([entry])
  return { mapped: mapped!, plain: plain! }
}

function failure(r: ToolResult): [string, string, string | undefined, string | undefined] {
  if (!r.isError) throw new Error(`expected a failure, got ${JSON.stringify(r.content)}`)
  const text = r.content.length === 1 && r.content[0]!.type === 'text' ? r.content[0]!.text : JSON.stringify(r.content)
  return [String(r.error.info?.code), text, r.error.info?.toolName, r.meta?.toolName]
}

/**
 * Asserts the exact text of `entry`'s failure with the map (`name` = the wire name) and without
 * it (`name` = the registry name), the same code both times, and that `info.toolName` (when the
 * code sets one) and `meta.toolName` say the registry name either way.
 */
async function expectTexts(entry: RawToolCall, nameMap: ToolNameMap, code: string, text: (name: string) => string, toolName?: string): Promise<void> {
  const { mapped, plain } = await both(entry, nameMap)
  expect(failure(mapped)).toEqual([code, `Error: ${text(WIRE)}`, toolName, REGISTRY])
  expect(failure(plain)).toEqual([code, `Error: ${text(REGISTRY)}`, toolName, REGISTRY])
  expect(mapped.isError && mapped.error.message).toBe(text(WIRE))
}

describe('arguments (prepare)', () => {
  test('invalid against the schema', async () => {
    const map = await harness()
    await expectTexts(call(REGISTRY, { n: 'five' }, 'c1'), map, 'INVALID_ARGS', (name) => `Invalid arguments for tool "${name}": /n: must be integer (got string)`)
  })

  test('over the size cap', async () => {
    const map = await harness(undefined, { maxArgumentBytes: 64 })
    await expectTexts(call(REGISTRY, { n: 1, mode: 'x'.repeat(80) }, 'c1'), map, 'INVALID_ARGS', (name) => `Invalid arguments for tool "${name}": the arguments are 97 bytes, over the limit of 64 bytes`)
  })

  test('not JSON', async () => {
    const map = await harness()
    await expectTexts(call(REGISTRY, '{"n": 1,}', 'c1'), map, 'INVALID_ARGS', (name) => `Invalid arguments for tool "${name}": not valid JSON (Expected double-quoted property name in JSON at position 8)`)
  })

  test('truncated JSON', async () => {
    const map = await harness()
    await expectTexts(
      call(REGISTRY, '{"n": 1', 'c1'),
      map,
      'INVALID_ARGS',
      (name) => `Invalid arguments for tool "${name}": the JSON ends before it is complete (cut off after 7 characters, likely at the model's output limit); the call was not run`,
    )
  })

  test('not an object', async () => {
    const map = await harness()
    await expectTexts(call(REGISTRY, '[1]', 'c1'), map, 'INVALID_ARGS', (name) => `Invalid arguments for tool "${name}": expected a JSON object, got array`)
  })

  test('not lossless JSON', async () => {
    const map = await harness()
    await expectTexts(objectCall(REGISTRY, { n: Number.NaN } as never, 'c1'), map, 'INVALID_ARGS', (name) => `Invalid arguments for tool "${name}": /n NaN is not a JSON number`)
  })

  test('an integer beyond the exact range', async () => {
    const map = await harness()
    await expectTexts(
      call(REGISTRY, '{"n": 12345678901234567890}', 'c1'),
      map,
      'INVALID_ARGS',
      (name) => `Invalid arguments for tool "${name}": /n: 12345678901234567890 is outside the exact integer range of ±9007199254740991 and would be rounded; send it as a string ("12345678901234567890")`,
    )
  })

  test('the definition’s argument check threw', async () => {
    const map = await harness()
    await expectTexts(call(REGISTRY, { n: 1, mode: 'check' }, 'c1'), map, 'TOOL_FAILED', (name) => `Tool "${name}" could not check its arguments: the checker broke`)
  })

  test('a malformed batch entry names no tool: the same text either way', async () => {
    const map = await harness()
    const entry = { callId: 'c1', name: 5, arguments: '{}' } as never as RawToolCall
    const { mapped, plain } = await both(entry, map)
    expect(failure(mapped)).toEqual(['INVALID_ARGS', 'Error: Invalid tool call at position 0: name must be a string, got number', undefined, undefined])
    expect(failure(plain)).toEqual(failure(mapped))
  })
})

describe('unknown tools', () => {
  test('Available tools lists the names the model saw, sorted after mapping; a name the map does not know is quoted as given', async () => {
    const map = await harness()
    const { mapped, plain } = await both(call('math_factoral', {}, 'c1'), map)
    // Registry order would be `math.factorial, math_abs` ('.' sorts before '_').
    expect(failure(mapped)).toEqual(['UNKNOWN_TOOL', 'Error: Unknown tool "math_factoral". Available tools: math_abs, math_factorial', undefined, undefined])
    expect(failure(plain)).toEqual(['UNKNOWN_TOOL', 'Error: Unknown tool "math_factoral". Available tools: math.factorial, math_abs', undefined, undefined])
  })

  test('40 names are listed, the first 40 by the names the model saw, then the count of the rest', async () => {
    h = await createHarness()
    const names = Array.from({ length: 45 }, (_, i) => `t${String(i).padStart(2, '0')}`)
    for (const name of names) h.ctx.tools.register(defineRawTool({ name, description: 'd', inputSchema: { type: 'object' }, execute: () => null }))
    // The map reverses the order: t44 is shown as w00, t00 as w44.
    const nameMap: ToolNameMap = { toWire: (name) => (/^t\d\d$/.test(name) ? `w${String(44 - Number(name.slice(1))).padStart(2, '0')}` : undefined) }
    const [r] = await h.execute([call('nope', {}, 'c1')], { nameMap })
    const listed = Array.from({ length: 40 }, (_, i) => `w${String(i).padStart(2, '0')}`).join(', ')
    expect(failure(r!)).toEqual(['UNKNOWN_TOOL', `Error: Unknown tool "nope". Available tools: ${listed}, … (5 more)`, undefined, undefined])
    const [plain] = await h.execute([call('nope', {}, 'c2')])
    expect(failure(plain!)[1]).toBe(`Error: Unknown tool "nope". Available tools: ${names.slice(0, 40).join(', ')}, … (5 more)`)
  })

  test('a declared tool that is gone when the batch runs is quoted by the name the model called', async () => {
    const map = await harness()
    const [r] = await h.execute([call('math.factorial', { n: 1 }, 'c1')], { nameMap: map, toolSet: await disposedSet(h) })
    expect(failure(r!)).toEqual(['UNKNOWN_TOOL', 'Error: Unknown tool "math_factorial". No tools are available.', undefined, undefined])
  })

  test('a tool revoked from the step’s set after submission: the same', async () => {
    const map = await harness()
    const toolSet = await h.ctx.tools.resolve()
    h.ctx.on('tools/pre-execute', (exec, next) => {
      if (exec.callId === 'c2') toolSet.dispose()
      return next()
    })
    const results = await h.execute([call(REGISTRY, { n: 1 }, 'c1'), call(REGISTRY, { n: 2 }, 'c2')], { nameMap: map, toolSet })
    expect(results.map(failureOrText)).toEqual(['1', ['UNKNOWN_TOOL', 'Error: Unknown tool "math_factorial". No tools are available.', undefined, REGISTRY]])
  })
})

async function disposedSet(h: Harness) {
  const set = await h.ctx.tools.resolve()
  set.dispose()
  return set
}

function failureOrText(r: ToolResult): unknown {
  return r.isError ? failure(r) : r.content.map((b) => (b.type === 'text' ? b.text : b.type)).join('')
}

describe('output and rendering', () => {
  test('an invalid value', async () => {
    const map = await harness()
    await expectTexts(call(REGISTRY, { n: 1, mode: 'output' }, 'c1'), map, 'INVALID_TOOL_OUTPUT', (name) => `Tool "${name}" returned an invalid value: (root): must be integer (got string)`)
  })

  test('render threw', async () => {
    const map = await harness()
    await expectTexts(call(REGISTRY, { n: 1, mode: 'render' }, 'c1'), map, 'TOOL_FAILED', (name) => `Tool "${name}" failed to render its result: no renderer`)
  })

  test('finalizeContent threw', async () => {
    const map = await harness()
    await expectTexts(call(REGISTRY, { n: 1 }, 'finalize'), map, 'TOOL_FAILED', (name) => `Tool "${name}" failed to render its result: finalizeContent threw: finalizer broke`)
  })
})

describe('policy (library texts; author texts stay verbatim)', () => {
  test('denied without a reason', async () => {
    const map = await harness((h) => h.ctx.on('tools/pre-execute', () => ({ type: 'deny', reason: '' })))
    await expectTexts(call(REGISTRY, { n: 1 }, 'c1'), map, 'TOOL_DENIED', (name) => `Tool "${name}" was denied`, REGISTRY)
  })

  test('a guard’s empty verdict', async () => {
    const map = await harness((h) => h.ctx.tools.guard(() => ''))
    await expectTexts(call(REGISTRY, { n: 1 }, 'c1'), map, 'TOOL_DENIED', (name) => `Tool "${name}" was denied`, REGISTRY)
  })

  test('ask without an approval service and without a reason', async () => {
    const map = await harness((h) => h.ctx.on('tools/pre-execute', () => ({ type: 'ask' })))
    await expectTexts(call(REGISTRY, { n: 1 }, 'c1'), map, 'TOOL_DENIED', (name) => `Tool "${name}" needs approval and no approval service is available`, REGISTRY)
  })

  test('approval rejected without a reason', async () => {
    const map = await harness((h) => {
      h.ctx.on('tools/pre-execute', () => ({ type: 'ask' }))
      h.ctx.tools.approval(new ScriptedApproval({ type: 'reject' }))
    })
    await expectTexts(call(REGISTRY, { n: 1 }, 'c1'), map, 'TOOL_DENIED', (name) => `Tool "${name}" was not approved`, REGISTRY)
  })

  test('a throwing pre-execute listener, guard and approval service', async () => {
    const pre = await harness((h) =>
      h.ctx.on('tools/pre-execute', () => {
        throw new Error('policy crashed')
      }),
    )
    await expectTexts(call(REGISTRY, { n: 1 }, 'c1'), pre, 'TOOL_DENIED', (name) => `Tool "${name}" could not be checked by policy (tools/pre-execute): policy crashed`)
    await h.dispose()
    const guard = await harness((h) =>
      h.ctx.tools.guard(() => {
        throw new Error('guard crashed')
      }),
    )
    await expectTexts(call(REGISTRY, { n: 1 }, 'c1'), guard, 'TOOL_DENIED', (name) => `Tool "${name}" could not be checked by policy (guard): guard crashed`)
    await h.dispose()
    const approval = await harness((h) => {
      h.ctx.on('tools/pre-execute', () => ({ type: 'ask' }))
      h.ctx.tools.approval({
        request: () => {
          throw new Error('approver crashed')
        },
      })
    })
    await expectTexts(call(REGISTRY, { n: 1 }, 'c1'), approval, 'TOOL_DENIED', (name) => `Tool "${name}" could not be checked by policy (approval): approver crashed`)
  })

  test('blocked with empty feedback, and a malformed post-execute decision', async () => {
    const block = await harness((h) => h.ctx.on('tools/post-execute', () => ({ type: 'block', feedback: '' })))
    await expectTexts(call(REGISTRY, { n: 1 }, 'c1'), block, 'TOOL_BLOCKED', (name) => `Tool "${name}" result was blocked`, REGISTRY)
    await h.dispose()
    const malformed = await harness((h) => h.ctx.on('tools/post-execute', () => 'yes' as never))
    await expectTexts(
      call(REGISTRY, { n: 1 }, 'c1'),
      malformed,
      'TOOL_BLOCKED',
      (name) => `Tool "${name}" could not be checked by policy (tools/post-execute): a tools/post-execute listener returned string instead of accept or block (with feedback: a string or content blocks)`,
    )
  })

  test('author texts are not rewritten: a deny reason naming the registry name stays verbatim', async () => {
    const map = await harness((h) => h.ctx.on('tools/pre-execute', (exec) => ({ type: 'deny', reason: `${exec.name} is off today` })))
    const { mapped } = await both(call(REGISTRY, { n: 1 }, 'c1'), map)
    expect(failure(mapped)).toEqual(['TOOL_DENIED', 'Error: math.factorial is off today', REGISTRY, REGISTRY])
  })
})

describe('Standard Schema checks that run inside the body', () => {
  function lookup(output: z.ZodType<JsonValue> = z.string()) {
    return defineTool({
      name: 'users.lookup',
      description: 'Looks a user up.',
      parameters: z.object({
        user: z
          .string()
          .refine((u) => {
            if (u === 'crash') throw new Error('directory offline')
            return true
          })
          .refine(async (u) => u !== 'nobody', 'unknown user'),
      }),
      output: { schema: output, render: (_a, value) => [{ type: 'text', text: String(value) }] },
      execute: (args) => (args.user === 'number' ? 7 : `found ${args.user}`) as never,
    })
  }
  const nameMap: ToolNameMap = { toWire: (name) => (name === 'users.lookup' ? 'users_lookup' : undefined) }

  test('async argument issues, a throwing validator and output issues name the tool as the model saw it', async () => {
    h = await createHarness()
    h.ctx.tools.register(lookup())
    const calls = [call('users.lookup', { user: 'nobody' }, 'c1'), call('users.lookup', { user: 'crash' }, 'c2'), call('users.lookup', { user: 'number' }, 'c3')]
    const expected = (name: string) => [
      ['INVALID_ARGS', `Error: Invalid arguments for tool "${name}": /user: unknown user`, undefined, 'users.lookup'],
      ['TOOL_FAILED', `Error: Tool "${name}" could not check its arguments: directory offline`, undefined, 'users.lookup'],
      ['INVALID_TOOL_OUTPUT', `Error: Tool "${name}" returned an invalid value: (root): Invalid input: expected string, received number`, undefined, 'users.lookup'],
    ]
    expect((await h.execute(calls, { nameMap })).map(failure)).toEqual(expected('users_lookup'))
    expect((await h.execute(calls)).map(failure)).toEqual(expected('users.lookup'))
  })

  test('through a tools/execute wrapper that replaced the signal (the body gets a view of the execution)', async () => {
    h = await createHarness()
    h.ctx.tools.register(lookup())
    h.ctx.on('tools/execute', (exec, next) => {
      exec.signal = new AbortController().signal
      return next()
    })
    const [r] = await h.execute([call('users.lookup', { user: 'nobody' }, 'c1')], { nameMap })
    expect(failure(r!)).toEqual(['INVALID_ARGS', 'Error: Invalid arguments for tool "users_lookup": /user: unknown user', undefined, 'users.lookup'])
  })

  test('a body called outside the pipeline names the tool by its definition', async () => {
    const definition = lookup()
    await expect(definition.execute({ user: 'nobody' }, {} as never)).rejects.toThrow('Invalid arguments for tool "users.lookup": /user: unknown user')
  })
})

describe('shownToolName: the name for a tool’s own texts', () => {
  test('the name the model saw inside a batch with a map, the registry name without one or outside the pipeline', async () => {
    h = await createHarness()
    h.ctx.tools.register(
      defineRawTool({
        name: 'notes.read',
        description: 'Reads a note.',
        inputSchema: { type: 'object', properties: { name: { type: 'string' } } },
        execute: (args, exec) => {
          throw new ToolError('NOT_FOUND', `${shownToolName(exec)}: no note named ${JSON.stringify(args.name)} (exec.name ${exec.name})`)
        },
      }),
    )
    const nameMap: ToolNameMap = { toWire: (name) => name.replace('.', '_') }
    const [mapped] = await h.execute([call('notes.read', { name: 'todo' }, 'c1')], { nameMap })
    const [plain] = await h.execute([call('notes.read', { name: 'todo' }, 'c1')])
    expect([mapped, plain].map((r) => r!.isError && [r!.error.info?.code, r!.error.message])).toEqual([
      ['NOT_FOUND', 'notes_read: no note named "todo" (exec.name notes.read)'],
      ['NOT_FOUND', 'notes.read: no note named "todo" (exec.name notes.read)'],
    ])
    expect(shownToolName({ name: 'own.exec' } as never)).toBe('own.exec')
  })
})

describe('the execution view’s own TypeErrors (a body, listener or wrapper misusing exec; the model reads them when uncaught)', () => {
  /** `math.factorial` whose body misuses its execution view as `args.mode` says. */
  function misuser() {
    return defineRawTool({
      name: REGISTRY,
      description: 'Misuses its execution view.',
      inputSchema: { type: 'object', properties: { mode: { type: 'string' } } },
      execute: (args, exec) => {
        if (args.mode === 'annotate') exec.annotate('', 1)
        if (args.mode === 'annotate-value') exec.annotate('k', Number.NaN)
        if (args.mode === 'context') exec.attachContext(5 as never)
        if (args.mode === 'progress') exec.reportProgress({ progress: 'half' } as never)
        if (args.mode === 'progress-shape') exec.reportProgress(null as never)
        if (args.mode === 'signal') exec.signal = new AbortController().signal
        return 1
      },
    })
  }

  async function mapped(setup?: (h: Harness) => void): Promise<ToolNameMap> {
    h = await createHarness()
    h.ctx.tools.register(misuser())
    setup?.(h)
    return { toWire: (name) => (name === REGISTRY ? WIRE : undefined) }
  }

  test('a body: annotate, attachContext, reportProgress and exec.signal name the tool as the model saw it', async () => {
    const map = await mapped((h) => h.ctx.on('tools/progress', () => undefined))
    const expected: [string, (name: string) => string][] = [
      ['annotate', (name) => `annotate on "${name}" takes a non-empty string key, got an empty string`],
      ['annotate-value', (name) => `annotate("k") on "${name}": (root) NaN is not a JSON number`],
      ['context', (name) => `attachContext on "${name}" takes { source: string, content: ContentBlock[] }`],
      ['progress', (name) => `reportProgress on "${name}": /progress must be a finite number, got string`],
      ['progress-shape', (name) => `reportProgress on "${name}" takes { progress: number, total?: number, message?: string }, got null`],
      ['signal', (name) => `exec.signal of "${name}" can only be replaced inside a tools/execute wrapper`],
    ]
    for (const [mode, text] of expected) await expectTexts(call(REGISTRY, { mode }, 'c1'), map, 'TOOL_FAILED', text)
  })

  test('a wrapper: a signal that is not an AbortSignal, and the body’s view after the wrapper replaced the signal', async () => {
    const map = await mapped((h) =>
      h.ctx.on('tools/execute', (exec, next) => {
        exec.signal = (exec.arguments.mode === 'bad-signal' ? 5 : new AbortController().signal) as never
        return next()
      }),
    )
    await expectTexts(call(REGISTRY, { mode: 'bad-signal' }, 'c1'), map, 'TOOL_FAILED', (name) => `exec.signal of "${name}" must be an AbortSignal`)
    await expectTexts(call(REGISTRY, { mode: 'signal' }, 'c1'), map, 'TOOL_FAILED', (name) => `exec.signal of "${name}" can only be replaced inside a tools/execute wrapper`)
  })

  test('a pre-execute listener that assigns a read-only field fails closed with one name throughout', async () => {
    const map = await mapped((h) =>
      h.ctx.on('tools/pre-execute', (exec, next) => {
        ;(exec as { arguments: unknown }).arguments = {}
        return next()
      }),
    )
    await expectTexts(
      call(REGISTRY, {}, 'c1'),
      map,
      'TOOL_DENIED',
      (name) => `Tool "${name}" could not be checked by policy (tools/pre-execute): exec.arguments of "${name}" cannot be replaced (only exec.signal can, inside a tools/execute wrapper)`,
    )
  })
})

describe('what code reads keeps the registry name', () => {
  test('calls, exec.name, the session log and tools/* events', async () => {
    const map = await harness()
    const seen: string[] = []
    h.ctx.on('tools/pre-execute', (exec, next) => {
      seen.push(`pre ${exec.name}`)
      return next()
    })
    h.ctx.on('tools/result', (result, event) => {
      seen.push(`result ${event.exec?.name} ${event.call.name} ${result.meta?.toolName}`)
    })
    const log = new MemorySessionLog()
    const results = await h.execute([call(REGISTRY, { n: 3 }, 'c1'), call(REGISTRY, { n: 'x' }, 'c2')], { nameMap: map, log })
    expect(results.map(failureOrText)).toEqual(['6', ['INVALID_ARGS', 'Error: Invalid arguments for tool "math_factorial": /n: must be integer (got string)', undefined, REGISTRY]])
    expect(seen).toEqual(['pre math.factorial', 'result math.factorial math.factorial math.factorial', 'result undefined math.factorial math.factorial'])
    expect(log.events.filter((e) => e.type === 'tool/call').map((e) => (e as { name: string }).name)).toEqual([REGISTRY, REGISTRY])
  })

  test('a map that throws or answers no name (\'\', a number) shows the registry name; it is asked once per name and batch; a throw is reported', async () => {
    h = await createHarness()
    h.ctx.tools.register(factorial())
    const reports: string[] = []
    h.ctx.logger.exporter({ export: (message) => void (message.name === 'tools' && message.type === 'warn' && reports.push(`${String(message.args[0])} ${String(message.args[1]).split('\n')[0]}`)) })
    const asked: string[] = []
    const throwing: ToolNameMap = {
      toWire(name) {
        asked.push(name)
        throw new Error('map broke')
      },
    }
    const empty: ToolNameMap = {
      toWire(name) {
        asked.push(name)
        return ''
      },
    }
    const numeric: ToolNameMap = {
      toWire(name) {
        asked.push(name)
        return 42 as never
      },
    }
    for (const nameMap of [throwing, empty, numeric]) {
      const results = await h.execute([call(REGISTRY, { n: 'x' }, 'c1'), call(REGISTRY, { n: 'y' }, 'c2'), call(REGISTRY, { n: 2 }, 'c3')], { nameMap })
      expect(results.map(failureOrText)).toEqual([
        ['INVALID_ARGS', 'Error: Invalid arguments for tool "math.factorial": /n: must be integer (got string)', undefined, REGISTRY],
        ['INVALID_ARGS', 'Error: Invalid arguments for tool "math.factorial": /n: must be integer (got string)', undefined, REGISTRY],
        '2',
      ])
    }
    // Two failures of one tool per batch: asked once per batch; the call that succeeded never asks.
    expect(asked).toEqual([REGISTRY, REGISTRY, REGISTRY])
    expect(reports).toEqual(['nameMap failed: %s Error: map broke'])
  })

  test('a runner a custom executor makes with nameMap: null shows registry names and reports nothing, as execute() reads null', async () => {
    const executor: ToolExecutor = {
      name: 'custom',
      describe: (input) => ({ tools: input.schemas, sections: [] }),
      execute(batch) {
        const runner = batch.pipeline.createRunner({ scope: batch.scope, signal: batch.signal, nameMap: null as unknown as ToolNameMap })
        return Promise.all(batch.calls.map((c) => runner.submit(c)))
      },
    }
    h = await createHarness({ executor })
    h.ctx.tools.register(factorial())
    const reports: unknown[] = []
    h.ctx.logger.exporter({ export: (message) => void (message.name === 'tools' && message.type === 'warn' && reports.push(message.args[0])) })
    const results = await h.execute([call(REGISTRY, { n: 'x' }, 'c1'), call('nope', {}, 'c2')])
    expect(results.map(failureOrText)).toEqual([
      ['INVALID_ARGS', 'Error: Invalid arguments for tool "math.factorial": /n: must be integer (got string)', undefined, REGISTRY],
      ['UNKNOWN_TOOL', 'Error: Unknown tool "nope". Available tools: math.factorial', undefined, undefined],
    ])
    expect(reports).toEqual([])
  })

  test('a nameMap without toWire is refused with a TypeError naming it', async () => {
    await harness()
    const refused: string[] = []
    for (const nameMap of [{}, 'map', 5]) {
      const error = await h.ctx.tools.execute({ calls: [call(REGISTRY, { n: 1 }, 'c1')], nameMap: nameMap as never }).then(() => undefined, (e: unknown) => e as Error)
      refused.push(`${error?.name}: ${error?.message}`)
    }
    expect(refused).toEqual([
      'TypeError: ctx.tools.execute(): nameMap must have a toWire(name) method, got object',
      'TypeError: ctx.tools.execute(): nameMap must have a toWire(name) method, got string',
      'TypeError: ctx.tools.execute(): nameMap must have a toWire(name) method, got number',
    ])
    // null means none, as for the signal.
    expect((await h.ctx.tools.execute({ calls: [call(REGISTRY, { n: 3 }, 'c2')], nameMap: null as never }))[0]!.isError).toBe(false)
  })
})
