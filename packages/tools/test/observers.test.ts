/**
 * The seams the ecosystem plugins build on: `tools/batch-start` / `tools/batch-end`,
 * `exec.batchId` and the `batchId`/`parent` of `tools/result` events, `exec.annotate` into
 * `result.meta.annotations`, a definition's own `checkArguments`, and `idempotent`.
 */
import { afterEach, describe, expect, test } from 'vitest'
import { defineRawTool, defineTool, type ToolExecution } from '@deepseek-ai/dsh-tools'
import { call, createHarness, echoTool, type Harness } from '@deepseek-ai/dsh-tool-testkit'

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

describe('batch observers', () => {
  test('start, every call’s result, then end; one batchId per execute() shared by exec and result events', async () => {
    h = await createHarness()
    h.ctx.tools.register(echoTool())
    const trace: string[] = []
    const execIds: (string | undefined)[] = []
    h.ctx.on('tools/batch-start', (event) => {
      trace.push(`start ${event.batchId} ${event.calls.length} ${event.executor} ${event.scope.id}`)
    })
    h.ctx.on('tools/batch-end', (event, results) => {
      trace.push(`end ${event.batchId} ${results.map((r) => r.callId).join(',')}`)
    })
    h.ctx.on('tools/pre-execute', (exec, next) => {
      execIds.push(exec.batchId)
      return next()
    })
    h.ctx.on('tools/result', (result, event) => {
      trace.push(`result ${result.callId} ${event.batchId}`)
    })
    await h.execute([call('echo', {}, 'a'), call('nope', {}, 'b')])
    await h.execute([call('echo', {}, 'c')])
    const [first, second] = trace.filter((l) => l.startsWith('start')).map((l) => l.split(' ')[1]!)
    expect(first).toMatch(/^batch-\d+$/)
    expect(second).not.toBe(first)
    expect(trace).toEqual([
      `start ${first} 2 native deployment`,
      `result a ${first}`,
      `result b ${first}`,
      `end ${first} a,b`,
      `start ${second} 1 native deployment`,
      `result c ${second}`,
      `end ${second} c`,
    ])
    expect(execIds).toEqual([first, second])
  })

  test('scope-filtered; a throwing observer is contained', async () => {
    h = await createHarness()
    h.ctx.tools.register(echoTool())
    const a1 = h.agent('a1')
    const seen: string[] = []
    a1.ctx.on('tools/batch-start', (event) => {
      seen.push(event.agent?.id ?? '-')
      throw new Error('observer broke')
    })
    const [r1] = await h.execute([call('echo', {}, 'x')], { agent: a1.agent })
    const [r2] = await h.execute([call('echo', {}, 'y')], { agent: h.agent('a2').agent })
    expect([r1!.isError, r2!.isError]).toEqual([false, false])
    expect(seen).toEqual(['a1'])
  })
})

describe('annotate', () => {
  test('annotations land in result.meta.annotations (frozen, last value per key); late ones are ignored', async () => {
    h = await createHarness()
    let kept: ToolExecution | undefined
    h.ctx.tools.register(
      defineTool({
        name: 'note',
        description: 'Annotates.',
        parameters: {},
        output: { schema: { type: 'null' }, render: () => [] },
        execute(_args, exec) {
          kept = exec
          exec.annotate('cache', { hit: false })
          exec.annotate('cache', { hit: true })
          return null
        },
      }),
    )
    h.ctx.on('tools/execute', async (exec, next) => {
      const value = await next()
      exec.annotate('wrapper', 'saw it')
      return value
    })
    const [r] = await h.execute([call('note', {}, 'c1')])
    expect(r!.meta).toEqual({ toolName: 'note', annotations: { cache: { hit: true }, wrapper: 'saw it' } })
    expect(Object.isFrozen(r!.meta!.annotations)).toBe(true)
    kept!.annotate('late', 1)
    expect(r!.meta!.annotations).toEqual({ cache: { hit: true }, wrapper: 'saw it' })
  })

  test('an annotation made after the body settled, by a post-execute listener that accepts the result as it is, still lands in meta', async () => {
    h = await createHarness()
    h.ctx.tools.register(echoTool())
    h.ctx.tools.on('tools/post-execute', (exec, _draft, next) => {
      if (exec.callId === 'c1') exec.annotate('reviewed', true)
      return next()
    })
    const [annotated, plain] = await h.execute([call('echo', { text: 'a' }, 'c1'), call('echo', { text: 'b' }, 'c2')])
    expect(annotated).toEqual({ callId: 'c1', content: annotated!.content, isError: false, value: { text: 'a' }, meta: { toolName: 'echo', annotations: { reviewed: true } } })
    expect(plain).toEqual({ callId: 'c2', content: plain!.content, isError: false, value: { text: 'b' }, meta: { toolName: 'echo' } })
    expect([Object.isFrozen(annotated), Object.isFrozen(plain), Object.isFrozen(annotated!.meta)]).toEqual([true, true, true])
  })

  test('an empty key or a non-JSON value throws a TypeError naming the tool', async () => {
    h = await createHarness()
    const problems: string[] = []
    h.ctx.tools.register(
      defineTool({
        name: 'bad_note',
        description: 'Annotates badly.',
        parameters: {},
        output: { schema: { type: 'null' }, render: () => [] },
        execute(_args, exec) {
          for (const attempt of [() => exec.annotate('', 1), () => exec.annotate('n', Number.NaN)]) {
            try {
              attempt()
            } catch (error) {
              problems.push((error as Error).message)
            }
          }
          return null
        },
      }),
    )
    await h.execute([call('bad_note', {}, 'c1')])
    expect(problems).toEqual(['annotate on "bad_note" takes a non-empty string key, got an empty string', 'annotate("n") on "bad_note": (root) NaN is not a JSON number'])
  })
})

describe('definition fields', () => {
  test('checkArguments runs even with validateArguments: false; its problem is INVALID_ARGS', async () => {
    h = await createHarness()
    const base = defineRawTool({ name: 'raw', description: 'd', inputSchema: { type: 'object' }, validateArguments: false, execute: () => 'ran' })
    h.ctx.tools.register({ ...base, checkArguments: (args) => (typeof args.n === 'number' ? undefined : '/n: must be a number') })
    const [ok, bad] = await h.execute([call('raw', { n: 1 }, 'c1'), call('raw', { n: 'x' }, 'c2')])
    expect(ok!.isError).toBe(false)
    expect(bad!.isError && [bad!.error.info?.code, bad!.error.message]).toEqual(['INVALID_ARGS', 'Invalid arguments for tool "raw": /n: must be a number'])
  })

  test('defineRawTool keeps checkArguments: its problem is INVALID_ARGS (also with validateArguments: false), its throw TOOL_FAILED', async () => {
    h = await createHarness()
    const bodies: string[] = []
    h.ctx.tools.register(
      defineRawTool({
        name: 'raw',
        description: 'd',
        inputSchema: { type: 'object' },
        validateArguments: false,
        checkArguments: (args) => (args.n === 'boom' ? (() => { throw new Error('checker broke') })() : typeof args.n === 'number' ? undefined : '/n: must be a number'),
        execute: (args, exec) => {
          bodies.push(exec.callId)
          return 'ran'
        },
      }),
    )
    const results = await h.execute([call('raw', { n: 1 }, 'c1'), call('raw', { n: 'x' }, 'c2'), call('raw', { n: 'boom' }, 'c3')])
    expect(results.map((r) => (r.isError ? [r.error.info?.code, r.error.message] : 'ok'))).toEqual([
      'ok',
      ['INVALID_ARGS', 'Invalid arguments for tool "raw": /n: must be a number'],
      ['TOOL_FAILED', 'Tool "raw" could not check its arguments: checker broke'],
    ])
    expect(bodies).toEqual(['c1'])
    expect(() => defineRawTool({ name: 'raw', description: 'd', inputSchema: { type: 'object' }, checkArguments: 'no' as never, execute: () => null })).toThrow('tool "raw": /checkArguments: must be a function (got string)')
  })

  test('idempotent: true is kept by defineTool and defineRawTool; anything else is dropped', () => {
    const common = { name: 't', description: 'd', execute: () => null }
    expect(defineTool({ ...common, parameters: {}, output: { schema: { type: 'null' }, render: () => [] }, idempotent: true }).idempotent).toBe(true)
    expect(defineRawTool({ ...common, inputSchema: { type: 'object' }, idempotent: true }).idempotent).toBe(true)
    expect('idempotent' in defineRawTool({ ...common, inputSchema: { type: 'object' }, idempotent: false })).toBe(false)
  })
})
