import { afterEach, describe, expect, test } from 'vitest'
import { defineTool, type ToolResult } from '@deepseek-ai/dsh-tools'
import { createPtcExecutor, RUN_CODE, type CodeRuntime, type RunInput } from '@deepseek-ai/dsh-tool-executor-ptc'
import { createHarness, echoTool, failingTool, Gate, gatedTool, imageTool, MemorySessionLog, ScriptedApproval, TINY_PNG_BASE64, type Harness } from '@deepseek-ai/dsh-tool-testkit'

let h: Harness
afterEach(async () => {
  await h?.dispose()
})

const runtime = createPtcExecutor().name // module loads; runtime shared per executor below

async function ptc(config: Parameters<typeof createPtcExecutor>[0] = {}): Promise<Harness> {
  h = await createHarness({ executor: createPtcExecutor({ limits: { wallMs: 5_000, computeMs: 2_000 }, ...config }) })
  return h
}

function runCall(code: string, callId = 'run1') {
  return { callId, name: RUN_CODE, arguments: JSON.stringify({ code, description: 'test program' }) }
}

const text = (r: ToolResult) => r.content.map((b) => (b.type === 'text' ? b.text : `[image]`)).join('\n')
const tick = () => new Promise((r) => setImmediate(r))

describe('describe', () => {
  test('exposes exactly run_code plus the SDK section; byte-identical for an unchanged set', async () => {
    expect(runtime).toBe('ptc')
    await ptc()
    h.ctx.tools.register(echoTool({ name: 'zeta' }))
    h.ctx.tools.register(echoTool({ name: 'alpha' }))
    const a = h.ctx.tools.describe()
    expect(a.tools.map((t) => t.name)).toEqual(['run_code'])
    expect(a.tools[0]!.parameters).toMatchObject({ required: ['code', 'description'] })
    expect(a.tools[0]!.description).toContain('Both `code` (the program) and `description` (a short label) are required.')
    const sdk = a.sections[0]!.text
    expect(sdk.indexOf('alpha')).toBeGreaterThan(-1)
    expect(sdk.indexOf('alpha')).toBeLessThan(sdk.indexOf('zeta'))
    expect(h.ctx.tools.describe().sections[0]!.text).toBe(sdk)
  })

  test('conditional tools follow the resolved set', async () => {
    await ptc()
    h.ctx.tools.register(echoTool({ name: 'always' }))
    h.ctx.tools.register(echoTool({ name: 'bigonly' }), { when: ({ modelSelection }) => modelSelection?.model === 'big' })
    const small = await h.resolve({ modelSelection: { provider: 'p', model: 'small' } })
    const big = await h.resolve({ modelSelection: { provider: 'p', model: 'big' } })
    expect(h.ctx.tools.describe({ toolSet: small }).sections[0]!.text).not.toContain('bigonly')
    expect(h.ctx.tools.describe({ toolSet: big }).sections[0]!.text).toContain('bigonly')
    const [r] = await h.execute([runCall('return await tools.bigonly({ text: "x" })')], { toolSet: small })
    expect(text(r!)).toBe('Error: code run failed (exception): ToolCallError (bigonly): Unknown tool "bigonly". Available tools: always (line 1: return await tools.bigonly({ text: "x" }))')
  })
})

describe('model-direct calls', () => {
  test('a registered tool called directly is UNKNOWN_TOOL with a hint; an unknown name lists run_code', async () => {
    await ptc()
    h.ctx.tools.register(echoTool())
    h.ctx.tools.register(echoTool({ name: 'math.add' }))
    const [a, b, c] = await h.execute([
      { callId: 'a', name: 'echo', arguments: '{}' },
      { callId: 'b', name: 'math.add', arguments: '{}' },
      { callId: 'c', name: 'nope', arguments: '{}' },
    ])
    expect(text(a!)).toBe('Error: Unknown tool "echo". Tools are called from programs in this mode: call run_code with a program that does `await tools.echo(args)`.')
    expect(text(b!)).toBe('Error: Unknown tool "math.add". Tools are called from programs in this mode: call run_code with a program that does `await tools["math.add"](args)`.')
    expect(text(c!)).toBe('Error: Unknown tool "nope". Available tools: run_code')
    expect([a, b, c].map((r) => r!.isError && r!.error.info?.code)).toEqual(['UNKNOWN_TOOL', 'UNKNOWN_TOOL', 'UNKNOWN_TOOL'])
  })

  test('run_code arguments are validated like any tool', async () => {
    await ptc()
    const [r] = await h.execute([{ callId: 'x', name: 'run_code', arguments: '{"code":"return 1"}' }])
    expect(text(r!)).toBe('Error: Invalid arguments for tool "run_code": /description: is required')
  })

  test('the batch’s nameMap names model-direct calls as the model saw them; sub-calls keep registry names (programs use them)', async () => {
    await ptc()
    h.ctx.tools.register(
      defineTool({
        name: 'math.add',
        description: 'a + 1',
        parameters: { a: { type: 'integer' } },
        output: { schema: { type: 'integer' }, render: (_args, value) => [{ type: 'text', text: String(value) }] },
        execute: (args) => (args.a ?? 0) + 1,
      }),
    )
    // A provider that had renamed run_code (none of the built-in ones does: the name is valid everywhere).
    const nameMap = { toWire: (name: string) => (name === RUN_CODE ? 'ptc_run_code' : undefined) }
    const results = await h.execute(
      [
        { callId: 'x', name: 'run_code', arguments: '{"code":"return 1"}' },
        { callId: 'y', name: 'nope', arguments: '{}' },
        { callId: 'w', name: 'math.add', arguments: '{}' },
        runCall('return await tools["math.add"]({ a: "one" })', 'z'),
      ],
      { nameMap },
    )
    expect(results.map(text)).toEqual([
      'Error: Invalid arguments for tool "ptc_run_code": /description: is required',
      'Error: Unknown tool "nope". Available tools: ptc_run_code',
      'Error: Unknown tool "math.add". Tools are called from programs in this mode: call ptc_run_code with a program that does `await tools["math.add"](args)`.',
      'Error: code run failed (exception): ToolCallError (math.add): Invalid arguments for tool "math.add": /a: must be integer (got string)',
    ])
    expect(results[0]!.meta?.toolName).toBe(RUN_CODE)
  })

  test('a nameMap that throws shows run_code and is reported with stage nameMap, as the pipeline reports it', async () => {
    await ptc()
    h.ctx.tools.register(echoTool({ name: 'echo' }))
    const reports: string[] = []
    h.ctx.logger.exporter({ export: (message) => void (message.name === 'tools' && message.type === 'warn' && reports.push(`${String(message.args[0])} ${String(message.args[1]).split('\n')[0]}`)) })
    const asked: string[] = []
    const nameMap = {
      toWire(name: string): string | undefined {
        asked.push(name)
        throw new Error('map broke')
      },
    }
    const results = await h.execute(
      [
        { callId: 'y', name: 'nope', arguments: '{}' },
        { callId: 'w', name: 'echo', arguments: '{}' },
      ],
      { nameMap },
    )
    expect(results.map(text)).toEqual([
      'Error: Unknown tool "nope". Available tools: run_code',
      'Error: Unknown tool "echo". Tools are called from programs in this mode: call run_code with a program that does `await tools.echo(args)`.',
    ])
    // Each name asked once per batch (run_code for both texts), each throw reported.
    expect(asked).toEqual(['run_code', 'nope', 'echo'])
    expect(reports).toEqual(['nameMap failed: %s Error: map broke', 'nameMap failed: %s Error: map broke', 'nameMap failed: %s Error: map broke'])
  })
})

describe('model-facing output', () => {
  test('printed lines then the return value; strings raw; empty output', async () => {
    await ptc()
    const results = await h.execute([
      runCall('console.log("a", 1); console.log({ b: [1] }); return { ok: true }', 'r1'),
      runCall('return "plain"', 'r2'),
      runCall('const x = 1', 'r3'),
      runCall('console.log("before"); throw new Error("bad input")', 'r4'),
    ])
    expect(results.map(text)).toEqual([
      'a 1\n{"b":[1]}\n{\n  "ok": true\n}',
      'plain',
      '(run_code completed with no output)',
      'Error: code run failed (exception): Error: bad input (line 1: console.log("before"); throw new Error("bad input"))\nCaptured output:\nbefore',
    ])
    expect(results[3]!.isError && results[3]!.error.info?.code).toBe('CODE_RUN_FAILED')
  })

  test('an unhandled rejection and a program that can never progress reach the model as failed runs', async () => {
    await ptc({ limits: { wallMs: 2_147_483_647, computeMs: 2_000 } })
    const results = await h.execute([
      runCall("Promise.resolve().then(() => { notDefinedAnywhere() }); console.log('after'); return 'done'", 'u1'),
      runCall("console.log('before'); await new Promise(() => {})", 'u2'),
    ])
    expect(results.map(text)).toEqual([
      "Error: code run failed (exception): Uncaught (in promise) ReferenceError: 'notDefinedAnywhere' is not defined (line 1: Promise.resolve().then(() => { notDefinedAnywhere() }); console.log('after'); return 'done')\nCaptured output:\nafter",
      'Error: code run failed (timeout): the program was waiting on a promise that can never settle (no tool call was running and nothing else was pending)\nCaptured output:\nbefore',
    ])
  })
})

describe('the bridge', () => {
  test('sub-calls re-enter the pipeline with <callId>:code:<n> ids and the outer execution as parent', async () => {
    await ptc()
    h.ctx.tools.register(echoTool())
    const seen: string[] = []
    h.ctx.on('tools/pre-execute', (exec, next) => {
      seen.push(`${exec.callId}<${exec.parent?.callId ?? '-'}>`)
      return next()
    })
    const [r] = await h.execute([runCall('const a = await tools.echo({ text: "1" }); const b = await tools.echo({ text: "2" }); return [a.text, b.text]')])
    expect(r).toMatchObject({ isError: false })
    expect(seen).toEqual(['run1<->', 'run1:code:1<run1>', 'run1:code:2<run1>'])
    expect(text(r!)).toBe('[\n  "1",\n  "2"\n]')
  })

  test('results keep submission order under out-of-order completion; post-policy in submission order', async () => {
    await ptc()
    const gate = new Gate()
    h.ctx.tools.register(gatedTool(gate))
    const post: string[] = []
    h.ctx.on('tools/post-execute', (exec, _d, next) => {
      post.push(exec.callId)
      return next()
    })
    const pending = h.execute([runCall('const r = await Promise.all(["a", "b", "c"].map((id) => tools.gated({ id }))); return r.map((x) => x.id).join(",")')])
    await gate.started(3)
    gate.release('run1:code:3')
    gate.release('run1:code:2')
    await tick()
    gate.release('run1:code:1')
    const [r] = await pending
    expect(text(r!)).toBe('a,b,c')
    expect(gate.ends).toEqual(['run1:code:3', 'run1:code:2', 'run1:code:1'])
    expect(post).toEqual(['run1:code:1', 'run1:code:2', 'run1:code:3', 'run1'])
  })

  test('concurrent sub-calls overlap up to the bound; excess is queued, not a failure; exclusive calls are barriers', async () => {
    await ptc({ maxParallelSubCalls: 2 })
    const gate = new Gate()
    h.ctx.tools.register(gatedTool(gate))
    const pending = h.execute([
      runCall('await Promise.all([1, 2, 3, 4].map((i) => tools.gated({ id: String(i) }))); await Promise.all([tools.gated({ id: "x", exclusive: true }), tools.gated({ id: "y" })]); return "done"'),
    ])
    await gate.started(2)
    await tick()
    expect(gate.live).toBe(2) // 3 and 4 are queued, not failed
    for (let n = 3; n <= 4; n++) {
      gate.release(gate.waiting[0]!)
      await gate.started(n)
    }
    gate.releaseAll()
    await gate.started(5)
    await tick()
    expect(gate.waiting).toEqual(['run1:code:5']) // the exclusive call runs alone; y waits behind it
    gate.release('run1:code:5')
    await gate.started(6)
    gate.releaseAll()
    const [r] = await pending
    expect(text(r!)).toBe('done')
    expect(gate.peak).toBe(2)
    expect(gate.starts).toEqual(['run1:code:1', 'run1:code:2', 'run1:code:3', 'run1:code:4', 'run1:code:5', 'run1:code:6'])
  })

  test('settlement aborts in-flight sub-calls, abandons queued ones, and drains before run_code returns', async () => {
    await ptc({ maxParallelSubCalls: 2 })
    const gate = new Gate()
    h.ctx.tools.register(gatedTool(gate))
    h.ctx.tools.register(echoTool())
    const log = new MemorySessionLog()
    const program = `
      const first = tools.echo({ text: 'go' })
      for (const id of ['a', 'b', 'c']) tools.gated({ id })
      await first
      return 'left early'`
    const [r] = await h.execute([runCall(program)], { log })
    // The model is told what was cancelled: the two calls running and the one never started.
    expect(text(r!)).toBe(
      [
        'left early',
        'note: the call tools.gated(…) was still running when the program ended: it was cancelled',
        'note: the call tools.gated(…) was still running when the program ended: it was cancelled',
        'note: the call tools.gated(…) was still running when the program ended: it was cancelled',
      ].join('\n'),
    )
    expect(gate.live).toBe(0)
    expect(gate.starts).toEqual(['run1:code:2', 'run1:code:3'])
    expect(gate.aborted).toEqual(['run1:code:2', 'run1:code:3'])
    expect(log.ofType('tool/code-dispatch').map((e) => [e.callId, e.isError ? e.error?.info?.code : 'ok'])).toEqual([
      ['run1:code:1', 'ok'],
      ['run1:code:2', 'ABORTED'],
      ['run1:code:3', 'ABORTED'],
      ['run1:code:4', 'ABORTED_BEFORE_DISPATCH'],
    ])
    expect(log.trace().at(-1)).toBe('tool/result:run1')
  })

  test('a call the program issues but never awaits before returning is not forwarded at all, and the model is told', async () => {
    await ptc()
    const gate = new Gate()
    h.ctx.tools.register(gatedTool(gate))
    const [r] = await h.execute([runCall('tools.gated({ id: "x" }); return "done"')])
    expect(text(r!)).toBe('done\nnote: the call tools.gated(…) was never awaited and the program ended first: it was cancelled before it started')
    expect(r!.isError ? undefined : r!.value).toEqual({ logs: [], value: 'done', notes: ['note: the call tools.gated(…) was never awaited and the program ended first: it was cancelled before it started'] })
    expect(gate.starts).toEqual([])
  })

  test('a failing sub-call rejects with ToolCallError carrying toolName and the message (no codes)', async () => {
    await ptc()
    h.ctx.tools.register(failingTool({ message: 'disk full' }))
    const [r] = await h.execute([runCall('try { await tools.fail({}) } catch (e) { return [e instanceof ToolCallError, e.toolName, e.message] }')])
    expect(text(r!)).toBe('[\n  true,\n  "fail",\n  "disk full"\n]')
  })

  test('policy denial, guards and approval apply inside a program', async () => {
    await ptc()
    h.ctx.tools.register(echoTool())
    h.ctx.tools.register(echoTool({ name: 'rm' }))
    h.ctx.tools.register(echoTool({ name: 'deploy' }))
    h.ctx.on('tools/pre-execute', (exec, next) => (exec.name === 'rm' ? { type: 'deny', reason: 'no deletes' } : exec.name === 'deploy' ? { type: 'ask', reason: 'deploys need a human' } : next()))
    h.ctx.tools.guard((exec) => (exec.name === 'echo' && exec.arguments.text === 'secret' ? 'secrets stay home' : undefined))
    const approval = new ScriptedApproval({ type: 'approve' })
    h.ctx.tools.approval(approval)
    const program = `
      const out = []
      for (const [name, args] of [['rm', {}], ['echo', { text: 'secret' }], ['deploy', { text: 'v2' }]]) {
        try { out.push(JSON.stringify(await tools[name](args))) } catch (e) { out.push(e.message) }
      }
      return out`
    const [r] = await h.execute([runCall(program)])
    expect(JSON.parse(text(r!))).toEqual(['no deletes', 'secrets stay home', '{"text":"v2"}'])
    expect(approval.requests.map((q) => [q.exec.callId, q.reason])).toEqual([['run1:code:3', 'deploys need a human']])
  })

  test('resolved-set invalidation reaches sub-calls issued after it', async () => {
    await ptc()
    const gate = new Gate()
    h.ctx.tools.register(gatedTool(gate))
    const dispose = h.ctx.tools.register(echoTool({ name: 'temp' }))
    const set = await h.resolve()
    const pending = h.execute([runCall('await tools.gated({ id: "first" }); try { await tools.temp({}) } catch (e) { return e.message }')], { toolSet: set })
    await gate.started(1)
    await dispose()
    gate.releaseAll()
    const [r] = await pending
    expect(text(r!)).toBe('Unknown tool "temp". Available tools: gated')
  })

  test('a tool outside the set is not in the SDK object; calling it rejects with ToolCallError listing the tools', async () => {
    await ptc()
    h.ctx.tools.register(echoTool())
    const [r] = await h.execute([runCall('const out = ["missing" in tools, Object.keys(tools).join(",")]; try { await tools.missing({}) } catch (e) { out.push(e instanceof ToolCallError, e.toolName, e.message) } return out')])
    expect(JSON.parse(text(r!))).toEqual([false, 'echo', true, 'missing', 'Unknown tool "missing". Available tools: echo'])
  })

  test('an image-bearing sub-result is appended after the outer result as source-attributed context', async () => {
    await ptc()
    h.ctx.tools.register(imageTool())
    const [r] = await h.execute([runCall('const x = await tools.image({ caption: "chart" }); return x.caption')])
    expect(text(r!)).toBe('chart')
    expect(r!.contexts).toEqual([{ source: 'image (run1:code:1)', content: [{ type: 'image', data: TINY_PNG_BASE64, mimeType: 'image/png' }] }])
  })

  test('inner dispatch events go to the session log only', async () => {
    await ptc()
    h.ctx.tools.register(echoTool())
    const log = new MemorySessionLog()
    const [r] = await h.execute([runCall('await tools.echo({ text: "x" }); return 1')], { log })
    expect(r).toMatchObject({ isError: false })
    expect(log.trace()).toEqual(['tool/call:run1', 'tool/code-dispatch-start:run1:code:1', 'tool/code-dispatch:run1:code:1', 'tool/result:run1'])
    expect(JSON.stringify(r!.content)).not.toContain('code-dispatch')
  })

  test('a pre-aborted outer call never starts the runtime', async () => {
    const runs: RunInput[] = []
    const fake: CodeRuntime = { language: 'javascript', isolation: 'none', run: async (input) => (runs.push(input), { logs: [] }) }
    await ptc({ runtime: fake })
    const controller = new AbortController()
    controller.abort()
    const [r] = await h.execute([runCall('return 1')], { signal: controller.signal })
    expect(r!.isError && r!.error.info?.code).toBe('ABORTED_BEFORE_DISPATCH')
    expect(runs).toEqual([])
  })

  test('an abort during the run: in-flight sub-calls are aborted and run_code settles as ABORTED', async () => {
    await ptc()
    const gate = new Gate()
    h.ctx.tools.register(gatedTool(gate))
    const controller = new AbortController()
    const pending = h.execute([runCall('await tools.gated({ id: "slow" }); return "never"')], { signal: controller.signal })
    await gate.started(1)
    controller.abort()
    const [r] = await pending
    expect(r!.isError && r!.error.info?.code).toBe('ABORTED')
    expect(gate.aborted).toEqual(['run1:code:1'])
  })
})
