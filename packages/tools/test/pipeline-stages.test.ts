import { afterEach, describe, expect, test } from 'vitest'
import { defineTool, ToolError, type ToolResult } from '@deepseek-ai/dsh-tools'
import { call, createHarness, echoTool, failingTool, MemorySessionLog, ScriptedApproval, throwingTool, type Harness } from '@deepseek-ai/dsh-tool-testkit'

let h: Harness
afterEach(async () => {
  await h?.dispose()
})

/** Registers listeners on every stage that record `stage:callId` in order. */
function instrument(h: Harness, trace: string[]) {
  h.ctx.on('tools/pre-execute', async (exec, next) => {
    trace.push(`pre:${exec.callId}`)
    return next()
  })
  h.ctx.tools.guard((exec) => {
    trace.push(`guard:${exec.callId}`)
    return undefined
  })
  h.ctx.on('tools/execute', async (exec, next) => {
    trace.push(`wrap:${exec.callId}`)
    return next()
  })
  h.ctx.on('tools/post-execute', async (exec, draft, next) => {
    trace.push(`post:${exec.callId}:${draft.isError ? 'error' : 'ok'}`)
    return next()
  })
  h.ctx.on('tools/result', (result) => {
    trace.push(`result:${result.callId}`)
  })
}

function traced(trace: string[], options: { name?: string; result?: unknown; throws?: unknown; schema?: 'string' } = {}) {
  return defineTool({
    name: options.name ?? 'work',
    description: 'Traced tool.',
    parameters: { n: { type: 'integer' } },
    output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
    execute(_args, exec) {
      trace.push(`body:${exec.callId}`)
      if (options.throws !== undefined) throw options.throws
      return (options.result ?? 'ok') as string
    },
    finalizeContent(content, input) {
      trace.push(`finalize:${input.callId}`)
      return content
    },
  })
}

describe('stage order and once-per-call', () => {
  test('success runs every stage once, in order', async () => {
    h = await createHarness()
    const trace: string[] = []
    instrument(h, trace)
    h.ctx.tools.register(traced(trace))
    const [r] = await h.execute([call('work', { n: 1 }, 'c1')])
    expect(trace).toEqual(['pre:c1', 'guard:c1', 'wrap:c1', 'body:c1', 'post:c1:ok', 'finalize:c1', 'result:c1'])
    expect(r).toEqual({ callId: 'c1', isError: false, value: 'ok', content: [{ type: 'text', text: 'ok' }], meta: { toolName: 'work' } })
    expect(Object.isFrozen(r)).toBe(true)
    expect(Object.isFrozen(r!.content)).toBe(true)
  })

  test('body failure: post-execute and finalize still run once', async () => {
    h = await createHarness()
    const trace: string[] = []
    instrument(h, trace)
    h.ctx.tools.register(traced(trace, { throws: new Error('disk on fire') }))
    const [r] = await h.execute([call('work', {}, 'c1')])
    expect(trace).toEqual(['pre:c1', 'guard:c1', 'wrap:c1', 'body:c1', 'post:c1:error', 'finalize:c1', 'result:c1'])
    expect(r).toEqual({
      callId: 'c1',
      isError: true,
      error: { message: 'disk on fire', info: { name: 'Error', code: 'TOOL_FAILED' } },
      content: [{ type: 'text', text: 'Error: disk on fire' }],
      meta: { toolName: 'work' },
    })
  })

  test('invalid arguments skip policy, dispatch and post-execute but finalize once', async () => {
    h = await createHarness()
    const trace: string[] = []
    instrument(h, trace)
    h.ctx.tools.register(traced(trace))
    const [r] = await h.execute([call('work', { n: 'three' }, 'c1')])
    expect(trace).toEqual(['finalize:c1', 'result:c1'])
    expect(r!.isError).toBe(true)
    expect(r!.content).toEqual([{ type: 'text', text: 'Error: Invalid arguments for tool "work": /n: must be integer (got string)' }])
    expect(r!.isError && r!.error.info?.code).toBe('INVALID_ARGS')
  })

  test('a denial reaches post-execute and finalize, never the wrapper or body', async () => {
    h = await createHarness()
    const trace: string[] = []
    instrument(h, trace)
    h.ctx.on('tools/pre-execute', () => ({ type: 'deny', reason: 'read-only session' }), { prepend: true })
    h.ctx.tools.register(traced(trace))
    const [r] = await h.execute([call('work', {}, 'c1')])
    expect(trace).toEqual(['post:c1:error', 'finalize:c1', 'result:c1'])
    expect(r).toMatchObject({
      isError: true,
      error: { message: 'read-only session', info: { name: 'PolicyDenied', code: 'TOOL_DENIED', toolName: 'work' } },
      content: [{ type: 'text', text: 'Error: read-only session' }],
    })
  })

  test('unknown tool: no stage but tools/result; message lists available names sorted', async () => {
    h = await createHarness()
    const trace: string[] = []
    instrument(h, trace)
    h.ctx.tools.register(traced(trace, { name: 'zeta' }))
    h.ctx.tools.register(traced(trace, { name: 'alpha' }))
    const [r] = await h.execute([call('gamma', {}, 'c1')])
    expect(trace).toEqual(['result:c1'])
    expect(r).toEqual({
      callId: 'c1',
      isError: true,
      error: { message: 'Unknown tool "gamma". Available tools: alpha, zeta', info: { name: 'ToolError', code: 'UNKNOWN_TOOL' } },
      content: [{ type: 'text', text: 'Error: Unknown tool "gamma". Available tools: alpha, zeta' }],
    })
  })

  test('unknown tool list is capped', async () => {
    h = await createHarness()
    for (let i = 0; i < 45; i++) h.ctx.tools.register(echoTool({ name: `t${String(i).padStart(2, '0')}` }))
    const [r] = await h.execute([call('nope', {})])
    const text = (r!.content[0] as { text: string }).text
    expect(text.startsWith('Error: Unknown tool "nope". Available tools: t00, t01,')).toBe(true)
    expect(text.endsWith('t39, … (5 more)')).toBe(true)
  })
})

describe('exact results for each code', () => {
  async function one(setup: (h: Harness) => void, raw: string | object, name = 'work'): Promise<ToolResult> {
    h = await createHarness({ registry: { maxArgumentBytes: 64 } })
    setup(h)
    const [r] = await h.execute([{ callId: 'c1', name, arguments: raw as string }])
    return r!
  }
  const work = (h: Harness) => h.ctx.tools.register(traced([]))

  test('INVALID_ARGS: bad JSON names the parse error', async () => {
    const r = await one(work, '{"n": 1,,}')
    expect(r.isError && r.error.info?.code).toBe('INVALID_ARGS')
    expect((r.content[0] as { text: string }).text).toBe('Error: Invalid arguments for tool "work": not valid JSON (Expected double-quoted property name in JSON at position 8)')
  })

  test('INVALID_ARGS: over the size cap before parsing', async () => {
    const r = await one(work, `{"n": 1, "pad": "${'x'.repeat(100)}"}`)
    expect(r.content).toEqual([{ type: 'text', text: 'Error: Invalid arguments for tool "work": the arguments are 119 bytes, over the limit of 64 bytes' }])
  })

  test('INVALID_ARGS: not an object', async () => {
    const r = await one(work, '[1,2]')
    expect(r.content).toEqual([{ type: 'text', text: 'Error: Invalid arguments for tool "work": expected a JSON object, got array' }])
  })

  test('"" and whitespace are {}', async () => {
    const r = await one(work, '  \n')
    expect(r).toMatchObject({ isError: false, value: 'ok' })
  })

  test('an already-parsed object is snapshotted and frozen; a non-JSON value inside is rejected', async () => {
    const seen: unknown[] = []
    const r = await one((h) => {
      h.ctx.tools.register(echoTool())
      h.ctx.on('tools/pre-execute', (exec, next) => {
        seen.push(Object.isFrozen(exec.arguments))
        return next()
      })
    }, { text: 'hi' }, 'echo')
    expect(r).toMatchObject({ isError: false, value: { text: 'hi' } })
    expect(seen).toEqual([true])
    const bad = await one((h) => h.ctx.tools.register(echoTool()), { value: { when: new Date(0) } }, 'echo')
    expect(bad.isError && bad.error.message).toBe('Invalid arguments for tool "echo": /value/when is a Date object, not plain JSON')
  })

  test('INVALID_TOOL_OUTPUT: schema violation and non-JSON value', async () => {
    const r = await one((h) => h.ctx.tools.register(traced([], { result: 42 })), '{}')
    expect(r.isError && r.error).toEqual({ message: 'Tool "work" returned an invalid value: (root): must be string (got number)', info: { name: 'ToolError', code: 'INVALID_TOOL_OUTPUT' } })
  })

  test('INVALID_TOOL_OUTPUT: a class instance is named with its article ("an Error object", "a Map object")', async () => {
    const returning = (value: unknown) => (h: Harness) =>
      h.ctx.tools.register(defineTool({ name: 'work', description: 'Returns a class instance.', parameters: {}, output: { schema: { type: 'json' }, render: () => [] }, execute: () => value as never }))
    const messages: string[] = []
    for (const value of [new Error('x'), Object.create({ inherited: 1 }) as object, { nested: new Map() }, new (class Item {})()]) {
      const r = await one(returning(value), '{}')
      messages.push(r.isError ? r.error.message : 'ok')
    }
    expect(messages).toEqual([
      'Tool "work" returned an invalid value: (root) is an Error object, not plain JSON',
      'Tool "work" returned an invalid value: (root) is an Object object, not plain JSON',
      'Tool "work" returned an invalid value: /nested is a Map object, not plain JSON',
      'Tool "work" returned an invalid value: (root) is an Item object, not plain JSON',
    ])
  })

  test('a ToolError chooses its code; a coded object keeps its code', async () => {
    const a = await one((h) => h.ctx.tools.register(traced([], { throws: new ToolError('RATE_LIMITED', 'slow down', { reason: 'quota' }) })), '{}')
    expect(a.isError && a.error).toEqual({ message: 'slow down', info: { name: 'ToolError', code: 'RATE_LIMITED', reason: 'quota' } })
    const b = await one((h) => h.ctx.tools.register(traced([], { throws: { code: 'E42', message: 'quota exceeded' } })), '{}')
    expect(b.isError && b.error).toEqual({ message: 'quota exceeded (E42)', info: { name: 'NonError', code: 'E42' } })
  })

  test('ask without an approval service degrades to deny', async () => {
    const r = await one((h) => {
      work(h)
      h.ctx.on('tools/pre-execute', () => ({ type: 'ask', reason: 'writes files' }))
    }, '{}')
    expect(r.isError && r.error).toEqual({ message: 'writes files', info: { name: 'PolicyDenied', code: 'TOOL_DENIED', reason: 'no approval service is available', toolName: 'work' } })
  })

  test('ask with an approval service: approve runs, reject denies with the user-facing reason in info only', async () => {
    const approval = new ScriptedApproval({ type: 'reject', reason: 'user said no' })
    const r = await one((h) => {
      work(h)
      h.ctx.tools.approval(approval)
      h.ctx.on('tools/pre-execute', () => ({ type: 'ask' }))
    }, '{}')
    expect(approval.requests.map((q) => q.exec.callId)).toEqual(['c1'])
    expect(r.isError && r.error).toEqual({ message: 'user said no', info: { name: 'ApprovalRejected', code: 'TOOL_DENIED', reason: 'user said no', toolName: 'work' } })
    approval.script = { type: 'approve' }
    const ok = await one((h) => {
      work(h)
      h.ctx.tools.approval(approval)
      h.ctx.on('tools/pre-execute', () => ({ type: 'ask' }))
    }, '{}')
    expect(ok).toMatchObject({ isError: false, value: 'ok' })
  })

  test('a malformed approval answer fails closed as a policy failure of the approval stage, like a throwing approval service', async () => {
    const answers: [unknown, string][] = [
      [{ type: 'maybe' }, '{ type: "maybe" }'],
      [undefined, 'undefined'],
      [null, 'null'],
      ['approve', 'string'],
      [{ type: 'reject', reason: 42 }, '{ type: "reject" } with a reason that is not a string'],
    ]
    for (const [answer, described] of answers) {
      const r = await one((h) => {
        work(h)
        h.ctx.tools.approval({ request: async () => answer as never })
        h.ctx.on('tools/pre-execute', () => ({ type: 'ask' }))
      }, '{}')
      expect(r.isError && r.error).toEqual({
        message: `Tool "work" could not be checked by policy (approval): the approval service answered ${described} instead of { type: "approve" }, { type: "reject", reason?: string } or { type: "defer", reason?: string }`,
        info: { name: 'PolicyError', code: 'TOOL_DENIED' },
      })
    }
    // A well-formed rejection without a reason stays a plain rejection.
    const plain = await one((h) => {
      work(h)
      h.ctx.tools.approval({ request: async () => ({ type: 'reject' }) })
      h.ctx.on('tools/pre-execute', () => ({ type: 'ask' }))
    }, '{}')
    expect(plain.isError && plain.error).toEqual({ message: 'Tool "work" was not approved', info: { name: 'ApprovalRejected', code: 'TOOL_DENIED', toolName: 'work' } })
  })

  test('a deny decision with info keeps it out of model content', async () => {
    const r = await one((h) => {
      work(h)
      h.ctx.on('tools/pre-execute', () => ({ type: 'deny', reason: 'outside the workspace', info: { name: 'SandboxDenied', code: 'SANDBOX', reason: 'path /etc is outside /work' } }))
    }, '{}')
    expect(r.content).toEqual([{ type: 'text', text: 'Error: outside the workspace' }])
    expect(r.isError && r.error.info).toEqual({ name: 'SandboxDenied', code: 'SANDBOX', reason: 'path /etc is outside /work', toolName: 'work' })
  })

  test('a throwing pre-execute listener fails closed; a malformed decision too', async () => {
    const a = await one((h) => {
      work(h)
      h.ctx.on('tools/pre-execute', () => {
        throw new Error('policy db down')
      })
    }, '{}')
    expect(a.isError && a.error).toEqual({ message: 'Tool "work" could not be checked by policy (tools/pre-execute): policy db down', info: { name: 'PolicyError', code: 'TOOL_DENIED' } })
    const b = await one((h) => {
      work(h)
      h.ctx.on('tools/pre-execute', () => ({ type: 'maybe' }) as never)
    }, '{}')
    expect(b.isError && b.error.message).toBe('Tool "work" could not be checked by policy (tools/pre-execute): a tools/pre-execute listener returned { type: "maybe" } instead of allow, deny or ask')
  })

  test('a deny without a string reason, or an ask with a non-string reason, is named as such (it fails closed like any malformed decision)', async () => {
    const texts: string[] = []
    for (const decision of [{ type: 'deny' }, { type: 'deny', reason: 42 }, { type: 'ask', reason: ['x'] }]) {
      const r = await one((h) => {
        work(h)
        h.ctx.on('tools/pre-execute', () => decision as never)
      }, '{}')
      texts.push(r.isError ? `${r.error.info?.code} ${r.error.message}` : 'ok')
    }
    expect(texts).toEqual([
      'TOOL_DENIED Tool "work" could not be checked by policy (tools/pre-execute): a tools/pre-execute listener returned { type: "deny" } without a string reason instead of allow, deny or ask',
      'TOOL_DENIED Tool "work" could not be checked by policy (tools/pre-execute): a tools/pre-execute listener returned { type: "deny" } without a string reason instead of allow, deny or ask',
      'TOOL_DENIED Tool "work" could not be checked by policy (tools/pre-execute): a tools/pre-execute listener returned { type: "ask" } with a reason that is not a string instead of allow, deny or ask',
    ])
  })

  test('next() twice in pre-execute is a policy failure', async () => {
    const r = await one((h) => {
      work(h)
      h.ctx.on('tools/pre-execute', async (_e, next) => {
        await next()
        return next()
      })
    }, '{}')
    expect(r.isError && r.error.message).toBe('Tool "work" could not be checked by policy (tools/pre-execute): next() called multiple times')
  })

  test('post-execute: replace content, replace value (revalidated, re-rendered), block, both → failure', async () => {
    const content = await one((h) => {
      work(h)
      h.ctx.on('tools/post-execute', () => ({ type: 'accept', content: [{ type: 'text', text: '[redacted]' }] }))
    }, '{}')
    expect(content).toMatchObject({ isError: false, value: 'ok', content: [{ type: 'text', text: '[redacted]' }] })
    const value = await one((h) => {
      work(h)
      h.ctx.on('tools/post-execute', () => ({ type: 'accept', value: 'replaced' }))
    }, '{}')
    expect(value).toMatchObject({ isError: false, value: 'replaced', content: [{ type: 'text', text: 'replaced' }] })
    const badValue = await one((h) => {
      work(h)
      h.ctx.on('tools/post-execute', () => ({ type: 'accept', value: 7 }))
    }, '{}')
    expect(badValue.isError && badValue.error.info?.code).toBe('INVALID_TOOL_OUTPUT')
    const blocked = await one((h) => {
      work(h)
      h.ctx.on('tools/post-execute', () => ({ type: 'block', feedback: 'contains a secret' }))
    }, '{}')
    expect(blocked).toEqual({
      callId: 'c1',
      isError: true,
      error: { message: 'contains a secret', info: { name: 'PolicyBlocked', code: 'TOOL_BLOCKED', toolName: 'work' } },
      content: [{ type: 'text', text: 'contains a secret' }],
      meta: { toolName: 'work' },
    })
    expect('value' in blocked).toBe(false)
    const both = await one((h) => {
      work(h)
      h.ctx.on('tools/post-execute', () => ({ type: 'accept', value: 'x', content: [] }))
    }, '{}')
    expect(both.isError && both.error.message).toBe('Tool "work" could not be checked by policy (tools/post-execute): a decision may replace content or value, not both')
  })

  test('projectContent installs prepared content before post-execute; finalizeContent runs after', async () => {
    const seen: string[] = []
    const r = await one((h) => {
      h.ctx.tools.register(
        defineTool({
          name: 'work',
          description: 'd',
          parameters: {},
          output: { schema: { type: 'string' }, render: () => [{ type: 'text', text: 'rendered' }] },
          execute: () => 'v',
          projectContent: () => [{ type: 'text', text: 'projected' }],
          finalizeContent: (content) => [...content, { type: 'text', text: 'final' }],
        }),
      )
      h.ctx.on('tools/post-execute', (_e, draft, next) => {
        seen.push((draft.content[0] as { text: string }).text)
        return next()
      })
    }, '{}')
    expect(seen).toEqual(['projected'])
    expect(r.content).toEqual([{ type: 'text', text: 'projected' }, { type: 'text', text: 'final' }])
  })

  test('a throwing tools/result listener is contained; the result stands', async () => {
    const r = await one((h) => {
      work(h)
      h.ctx.on('tools/result', () => {
        throw new Error('observer broke')
      })
    }, '{}')
    expect(r).toMatchObject({ isError: false, value: 'ok' })
  })

  test('exec.signal cannot be replaced outside tools/execute', async () => {
    const r = await one((h) => {
      work(h)
      h.ctx.on('tools/pre-execute', (exec, next) => {
        exec.signal = new AbortController().signal
        return next()
      })
    }, '{}')
    expect(r.isError && r.error.message).toBe('Tool "work" could not be checked by policy (tools/pre-execute): exec.signal of "work" can only be replaced inside a tools/execute wrapper')
  })

  test('exec.arguments and the call identity cannot be replaced at run time: a pre-execute listener fails closed, a wrapper fails the call, the body never sees a replacement', async () => {
    const bodies: unknown[] = []
    const recording = (h: Harness) =>
      h.ctx.tools.register(
        defineTool({
          name: 'work',
          description: 'Records what its body receives.',
          parameters: { n: { type: 'integer' } },
          output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
          execute(args, exec) {
            bodies.push({ args, name: exec.name, callId: exec.callId })
            return 'ok'
          },
        }),
      )
    const fields = ['arguments', 'rawArguments', 'callId', 'name', 'definition', 'scope', 'agent', 'log', 'parent', 'batchId'] as const
    for (const field of fields) {
      const pre = await one((h) => {
        recording(h)
        h.ctx.on('tools/pre-execute', (exec, next) => {
          ;(exec as unknown as Record<string, unknown>)[field] = field === 'arguments' ? { n: 666 } : 'replaced'
          return next()
        })
      }, '{"n":1}')
      expect([field, pre.isError && pre.error]).toEqual([
        field,
        { message: `Tool "work" could not be checked by policy (tools/pre-execute): exec.${field} of "work" cannot be replaced (only exec.signal can, inside a tools/execute wrapper)`, info: { name: 'PolicyError', code: 'TOOL_DENIED' } },
      ])
    }
    const wrapped = await one((h) => {
      recording(h)
      h.ctx.on('tools/execute', (exec, next) => {
        ;(exec as unknown as { arguments: unknown }).arguments = { n: 666 }
        return next()
      })
    }, '{"n":1}')
    expect(wrapped.isError && wrapped.error).toEqual({ message: 'exec.arguments of "work" cannot be replaced (only exec.signal can, inside a tools/execute wrapper)', info: { name: 'TypeError', code: 'TOOL_FAILED' } })
    expect(bodies).toEqual([])
    // Reading is unchanged.
    const read = await one((h) => {
      recording(h)
      h.ctx.on('tools/pre-execute', (exec, next) => {
        bodies.push(['pre', exec.arguments, exec.rawArguments, exec.callId, exec.name, exec.definition.name, exec.scope.kind, exec.batchId])
        return next()
      })
    }, '{"n":1}')
    expect(read).toMatchObject({ isError: false, value: 'ok' })
    expect(bodies).toEqual([['pre', { n: 1 }, '{"n":1}', 'c1', 'work', 'work', 'deployment', 'batch-1'], { args: { n: 1 }, name: 'work', callId: 'c1' }])
  })

  test('the body sees the same read-only fields and texts whether or not a wrapper replaced the signal (a deadline)', async () => {
    const assigning = (field: string) => (h: Harness) =>
      h.ctx.tools.register(
        defineTool({
          name: 'work',
          description: 'Assigns a field of its execution view.',
          parameters: {},
          output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
          execute(_args, exec) {
            ;(exec as unknown as Record<string, unknown>)[field] = field === 'signal' ? new AbortController().signal : 'replaced'
            return 'assigned'
          },
        }),
      )
    const replacing = (h: Harness) =>
      h.ctx.on('tools/execute', (exec, next) => {
        exec.signal = AbortSignal.any([exec.signal])
        return next()
      })
    for (const field of ['arguments', 'callId', 'name', 'signal']) {
      const expected = field === 'signal' ? 'exec.signal of "work" can only be replaced inside a tools/execute wrapper' : `exec.${field} of "work" cannot be replaced (only exec.signal can, inside a tools/execute wrapper)`
      const plain = await one(assigning(field), '{}')
      const wrapped = await one((h) => {
        assigning(field)(h)
        replacing(h)
      }, '{}')
      expect([field, plain.isError && plain.error, wrapped.isError && wrapped.error]).toEqual([field, { message: expected, info: { name: 'TypeError', code: 'TOOL_FAILED' } }, { message: expected, info: { name: 'TypeError', code: 'TOOL_FAILED' } }])
    }
  })

  test('the execution view has no own state: spread, keys and JSON show nothing, and no field of it opens exec.signal', async () => {
    const seen: unknown[] = []
    const r = await one(
      (h) =>
        h.ctx.tools.register(
          defineTool({
            name: 'work',
            description: 'Looks at its execution view, then tries to open its signal.',
            parameters: {},
            output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
            execute(_args, exec) {
              seen.push({ ...exec }, Object.keys(exec), JSON.stringify(exec), exec.callId)
              exec.annotate('k', 1)
              exec.attachContext({ source: 's', content: [{ type: 'text', text: 'c' }] })
              // The pipeline's own state is not on the view: these names are nothing to it.
              for (const key of ['writable', 'attached', 'annotations']) (exec as unknown as Record<string, unknown>)[key] = key === 'writable' ? true : undefined
              exec.signal = new AbortController().signal
              return 'not reached'
            },
          }),
        ),
      '{}',
    )
    expect(seen).toEqual([{}, [], '{}', 'c1'])
    expect(r.isError && r.error).toEqual({ message: 'exec.signal of "work" can only be replaced inside a tools/execute wrapper', info: { name: 'TypeError', code: 'TOOL_FAILED' } })
    // What the body recorded before it threw still reaches its failure result (only a cancelled or timed-out call drops it).
    expect([r.meta?.annotations, r.contexts]).toEqual([{ k: 1 }, [{ source: 's', content: [{ type: 'text', text: 'c' }] }]])
  })
})

describe('non-Error throws give readable messages (B17)', () => {
  const cases: [string, () => unknown, string][] = [
    ['plain string', () => 'plain string', 'plain string'],
    ['coded object', () => ({ code: 'E42', message: 'quota exceeded' }), 'quota exceeded (E42)'],
    ['null', () => null, 'threw null'],
    ['undefined', () => undefined, 'threw undefined'],
    ['number', () => 42, 'threw 42'],
    ['null prototype', () => Object.create(null) as object, 'threw {}'],
    ['circular', () => {
      const o: Record<string, unknown> = { a: 1 }
      o.self = o
      return o
    }, 'threw {"a":1,"self":"[Circular]"}'],
    ['Error subclass without message', () => new (class QuotaError extends Error { override name = 'QuotaError' })(), 'QuotaError'],
  ]
  test.each(cases)('%s', async (_label, make, message) => {
    h = await createHarness()
    h.ctx.tools.register(throwingTool(make))
    const [r] = await h.execute([call('throws', {}, 'c1')])
    expect(r!.isError && r!.error.message).toBe(message)
    expect(r!.content).toEqual([{ type: 'text', text: `Error: ${message}` }])
  })
})

describe('session log', () => {
  test('tool/call entries in model order, then tool/result entries in model order', async () => {
    h = await createHarness()
    h.ctx.tools.register(echoTool())
    h.ctx.tools.register(failingTool())
    const log = new MemorySessionLog()
    await h.execute([call('echo', { text: 'a' }, 'c1'), call('fail', {}, 'c2'), call('nope', {}, 'c3')], { log })
    expect(log.trace()).toEqual(['tool/call:c1', 'tool/call:c2', 'tool/call:c3', 'tool/result:c1', 'tool/result:c2', 'tool/result:c3'])
    expect(log.ofType('tool/result')[1]).toEqual({
      type: 'tool/result',
      callId: 'c2',
      name: 'fail',
      isError: true,
      content: [{ type: 'text', text: 'Error: boom' }],
      error: { message: 'boom', info: { name: 'Error', code: 'TOOL_FAILED' } },
    })
  })
})

describe('malformed batch entries', () => {
  test('each gets its own INVALID_ARGS result; the rest of the batch runs', async () => {
    h = await createHarness()
    h.ctx.tools.register(echoTool())
    const results = await h.execute([{ name: 'echo', arguments: '{}' }, { callId: 'c2', name: 7, arguments: '{}' }, 'junk' as never, call('echo', { text: 'ok' }, 'c4')] as never)
    expect(results.map((r) => [r.callId, r.isError ? r.error.message : 'ok'])).toEqual([
      ['invalid-call-0', 'Invalid tool call at position 0: callId must be a non-empty string, got undefined'],
      ['c2', 'Invalid tool call at position 1: name must be a string, got number'],
      ['invalid-call-2', 'Invalid tool call at position 2: expected an object with callId, name and arguments, got string'],
      ['c4', 'ok'],
    ])
  })

  test('a batch whose signal is not an AbortSignal is refused with a TypeError naming it (not a Node events error)', async () => {
    h = await createHarness()
    h.ctx.tools.register(echoTool())
    const refused: string[] = []
    for (const signal of ['abort', {}, 42]) {
      const error = await h.ctx.tools.execute({ calls: [call('echo', {}, 'c1')], signal: signal as never }).then(() => undefined, (e: unknown) => e as Error)
      refused.push(`${error?.name}: ${error?.message}`)
    }
    expect(refused).toEqual([
      'TypeError: ctx.tools.execute(): signal must be an AbortSignal, got string',
      'TypeError: ctx.tools.execute(): signal must be an AbortSignal, got object',
      'TypeError: ctx.tools.execute(): signal must be an AbortSignal, got number',
    ])
    // null and undefined mean "no signal".
    expect((await h.ctx.tools.execute({ calls: [call('echo', {}, 'c2')], signal: null as never }))[0]!.isError).toBe(false)
  })
})
