/**
 * The Python runtime mounted in the PTC executor: the model-facing texts come from the
 * runtime's flavour, and Python sub-calls go through the complete pipeline as TypeScript
 * sub-calls do (ids `<callId>:code:<n>`, parent, policy, settle/abandon) — including the
 * cancellation matrix of PTC sub-calls, here driven by real Python programs.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { defineTool, type ToolResult } from '@deepseek-ai/dsh-tools'
import { createPtcExecutor, RUN_CODE_DESCRIPTION, RUN_CODE_PARAMETERS, type CodeRuntime } from '@deepseek-ai/dsh-tool-executor-ptc'
import { TimeoutPolicy } from '@deepseek-ai/dsh-tool-call-timeout-policy'
import { call, createHarness, echoTool, failingTool, hangTool, MemorySessionLog, ScriptedApproval, StageTracer, type Harness, type TracedStage } from '@deepseek-ai/dsh-tool-testkit'
import { createPythonRuntime, generatePythonSdk, PY_CODE_DESCRIPTION, PY_RUN_CODE_DESCRIPTION } from '../src/index'
import { BOOT_MS } from './helpers'

const runtime = createPythonRuntime()
beforeAll(() => runtime.warmUp(), BOOT_MS)
afterAll(() => runtime.dispose())

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

const textOf = (r: ToolResult): string => r.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
const outcome = (r: ToolResult) => ({ code: r.isError ? r.error.info?.code : 'ok', text: textOf(r) })
const runCode = (code: string, id = 'r1') => call('run_code', { code, description: 'test program' }, id)

describe('the flavour of the mounted runtime', () => {
  test('describe(): run_code and the SDK section are the Python ones', async () => {
    h = await createHarness({ executor: createPtcExecutor({ runtime }) })
    h.ctx.tools.register(echoTool())
    const { tools, sections } = h.ctx.tools.describe()
    expect(tools).toEqual([{ name: 'run_code', description: PY_RUN_CODE_DESCRIPTION, parameters: { ...RUN_CODE_PARAMETERS, properties: { ...RUN_CODE_PARAMETERS.properties, code: { type: 'string', description: PY_CODE_DESCRIPTION } } } }])
    expect(PY_RUN_CODE_DESCRIPTION.startsWith('Execute a Python program')).toBe(true)
    const definition = h.ctx.tools.get('echo')!
    expect(sections).toEqual([
      { id: 'ptc/sdk', title: 'Tool SDK for run_code', text: generatePythonSdk([{ name: 'echo', description: definition.description, parameters: definition.parameters, outputSchema: definition.output.schema }]) },
    ])
  })

  test('a model-direct call of a known tool gets the Python call form as its hint', async () => {
    h = await createHarness({ executor: createPtcExecutor({ runtime }) })
    h.ctx.tools.register(echoTool({ name: 'fetch.page' }))
    const [r] = await h.execute([call('fetch.page', {}, 'd1')])
    expect(outcome(r!)).toEqual({
      code: 'UNKNOWN_TOOL',
      text: 'Error: Unknown tool "fetch.page". Tools are called from programs in this mode: call run_code with a program that does `await tools.fetch_page(...)`.',
    })
  })

  test('the hint names the function the SDK shows, also when two tool names sanitise alike', async () => {
    h = await createHarness({ executor: createPtcExecutor({ runtime }) })
    // 'fetch.page' < 'fetch_page': the first keeps fetch_page, the second is fetch_page_2 in the SDK.
    h.ctx.tools.register(echoTool({ name: 'fetch_page' }))
    h.ctx.tools.register(echoTool({ name: 'fetch.page' }))
    const sdk = h.ctx.tools.describe().sections[0]!.text
    expect([sdk.includes('async def fetch_page('), sdk.includes('async def fetch_page_2(')]).toEqual([true, true])
    const results = await h.execute([call('fetch.page', {}, 'd1'), call('fetch_page', {}, 'd2')])
    expect(results.map((r) => outcome(r).text)).toEqual([
      'Error: Unknown tool "fetch.page". Tools are called from programs in this mode: call run_code with a program that does `await tools.fetch_page(...)`.',
      'Error: Unknown tool "fetch_page". Tools are called from programs in this mode: call run_code with a program that does `await tools.fetch_page_2(...)`.',
    ])
  })

  test('a runtime without a flavour keeps the TypeScript texts byte for byte', async () => {
    const plainRuntime: CodeRuntime = { language: 'javascript', isolation: 'none', run: async () => ({ logs: [] }) }
    h = await createHarness({ executor: createPtcExecutor({ runtime: plainRuntime }) })
    const { tools } = h.ctx.tools.describe()
    expect(tools[0]).toEqual({ name: 'run_code', description: RUN_CODE_DESCRIPTION, parameters: RUN_CODE_PARAMETERS })
    expect(tools[0]!.parameters).toBe(RUN_CODE_PARAMETERS)
  })
})

describe('Python sub-calls through the pipeline', () => {
  test('ids, parent, renamed keywords, a dict argument, concurrency and the rendered output', async () => {
    h = await createHarness({ executor: createPtcExecutor({ runtime }) })
    const seen: { callId: string; parent: string | undefined; args: unknown }[] = []
    h.ctx.tools.register(
      defineTool({
        name: 'lookup.order',
        description: 'Look up an order.',
        parameters: { id: { type: 'string', required: true }, class: { type: 'string' } },
        output: { schema: { type: 'json' }, render: (_a, v) => [{ type: 'text', text: JSON.stringify(v) }] },
        isConcurrencySafe: () => true,
        execute: (args, exec) => {
          seen.push({ callId: exec.callId, parent: exec.parent?.callId, args })
          return { id: args.id, total: Number(args.id.slice(4)) / 10 }
        },
      }),
    )
    const log = new MemorySessionLog()
    const program = [
      'import asyncio',
      'orders = await asyncio.gather(*[tools.lookup_order(id=f"ORD-{n}") for n in (1001, 1002)])',
      'vip = await tools.lookup_order(id="ORD-1003", class_="vip")',
      'raw = await tools.lookup_order({"id": "ORD-1004", "class": "raw"})',
      'print("orders:", len(orders) + 2)',
      'return {"total": round(sum(o["total"] for o in orders) + vip["total"] + raw["total"], 1)}',
    ].join('\n')
    const [r] = await h.execute([runCode(program)], { log })
    expect(outcome(r!)).toEqual({ code: 'ok', text: 'orders: 4\n{\n  "total": 401\n}' })
    expect(seen).toEqual([
      { callId: 'r1:code:1', parent: 'r1', args: { id: 'ORD-1001' } },
      { callId: 'r1:code:2', parent: 'r1', args: { id: 'ORD-1002' } },
      { callId: 'r1:code:3', parent: 'r1', args: { id: 'ORD-1003', class: 'vip' } },
      { callId: 'r1:code:4', parent: 'r1', args: { id: 'ORD-1004', class: 'raw' } },
    ])
    expect(log.ofType('tool/code-dispatch').map((e) => [e.callId, e.parentCallId, e.name, e.isError])).toEqual([
      ['r1:code:1', 'r1', 'lookup.order', false],
      ['r1:code:2', 'r1', 'lookup.order', false],
      ['r1:code:3', 'r1', 'lookup.order', false],
      ['r1:code:4', 'r1', 'lookup.order', false],
    ])
  })

  test('a guard denial and invalid arguments raise ToolCallError with the pipeline text; uncaught, run_code fails with the Python line', async () => {
    h = await createHarness({ executor: createPtcExecutor({ runtime }) })
    h.ctx.tools.register(echoTool())
    h.ctx.tools.register(echoTool({ name: 'secret' }))
    h.ctx.tools.guard((exec) => (exec.name === 'secret' ? 'not in this workspace' : undefined))
    const program = ['try:', '    await tools.echo(text=5)', 'except ToolCallError as e:', '    print(e.tool_name, "|", e.message)', 'await tools.secret()'].join('\n')
    const [r] = await h.execute([runCode(program)])
    expect(outcome(r!)).toEqual({
      code: 'CODE_RUN_FAILED',
      text:
        'Error: code run failed (exception): ToolCallError (secret): not in this workspace (line 5: await tools.secret())\n' +
        'Captured output:\n' +
        'echo | Invalid arguments for tool "echo": /text: must be string (got number)',
    })
  })
})

describe('Python sub-calls: approvals and timeouts', () => {
  test('an ask policy consults the approval service per sub-call; a rejection and a timeout raise ToolCallError with the pipeline texts', async () => {
    h = await createHarness({ executor: createPtcExecutor({ runtime }), plugins: [{ plugin: TimeoutPolicy, config: {} }] })
    h.ctx.tools.register(echoTool())
    h.ctx.tools.register(hangTool({ timeoutMs: 50 }))
    h.ctx.on('tools/pre-execute', (exec, next) => (exec.name === 'echo' ? { type: 'ask', reason: 'echo writes' } : next()))
    let asked = 0
    h.ctx.tools.approval(new ScriptedApproval(() => (++asked === 1 ? { type: 'approve' } : { type: 'reject', reason: 'not today' })))
    const program = [
      'print(await tools.echo(text="first"))',
      'for name, call in (("echo", tools.echo(text="second")), ("hang", tools.hang())):',
      '    try:',
      '        await call',
      '    except ToolCallError as e:',
      '        print(name, "|", e.message)',
    ].join('\n')
    const log = new MemorySessionLog()
    const [r] = await h.execute([runCode(program)], { log })
    expect(outcome(r!)).toEqual({
      code: 'ok',
      text: "{'text': 'first'}\necho | not today\nhang | tool call timed out after 50ms",
    })
    expect(asked).toBe(2)
    expect(log.ofType('tool/code-dispatch').map((e) => [e.callId, e.isError ? e.error?.info?.code : 'ok'])).toEqual([
      ['r1:code:1', 'ok'],
      ['r1:code:2', 'TOOL_DENIED'],
      ['r1:code:3', 'TOOL_TIMEOUT'],
    ])
  })
})

// ---- cancellation matrix (the PTC table of the testkit, with Python programs) ---------------

const CANCELLED_BEFORE = 'Error: Tool call was cancelled before it started'
const CANCELLED = 'Error: Tool call was cancelled'
const FULL: readonly TracedStage[] = ['pre', 'guard', 'wrap', 'body', 'body-end', 'unwrap', 'render', 'post', 'finalize', 'result']
const NO_BODY: readonly TracedStage[] = ['pre', 'guard', 'post', 'finalize', 'result']
const DISPATCHED_NO_RENDER: readonly TracedStage[] = ['pre', 'guard', 'wrap', 'body', 'body-end', 'unwrap', 'post', 'finalize', 'result']
const OUTER_STAGES: readonly TracedStage[] = ['pre', 'guard', 'wrap', 'unwrap', 'post', 'result']
const defaultText: Record<string, string> = { ABORTED_BEFORE_DISPATCH: CANCELLED_BEFORE, ABORTED: CANCELLED }

interface Row {
  readonly name: string
  readonly program: string
  readonly abortAt?: readonly [string, TracedStage]
  readonly outer: { readonly code: string; readonly text: string }
  readonly subs: Readonly<Record<string, { readonly code: string; readonly text?: string; readonly stages: readonly TracedStage[] }>>
  /** Whether the runtime runs the program (false when the abort comes before the body). */
  readonly runs?: boolean
}

const rows: readonly Row[] = [
  {
    name: 'abort while a sub-call’s body runs → the sub-call is ABORTED, the run settles as abort, run_code is ABORTED',
    program: 'await tools.hang()\nreturn "unreachable"',
    abortAt: ['r1:code:1', 'body'],
    outer: { code: 'ABORTED', text: CANCELLED },
    subs: { 'r1:code:1': { code: 'ABORTED', stages: DISPATCHED_NO_RENDER } },
  },
  {
    name: 'abort at the second sub-call’s guard while the first runs → first ABORTED, second ABORTED_BEFORE_DISPATCH',
    program: 'import asyncio\nawait asyncio.gather(tools.hang(), tools.echo())',
    abortAt: ['r1:code:2', 'guard'],
    outer: { code: 'ABORTED', text: CANCELLED },
    subs: { 'r1:code:1': { code: 'ABORTED', stages: DISPATCHED_NO_RENDER }, 'r1:code:2': { code: 'ABORTED_BEFORE_DISPATCH', stages: NO_BODY } },
  },
  {
    name: 'abort while a finished sub-call is finalized → its success stays; the program stops: run_code ABORTED',
    program: 'await tools.echo()\nprint("after")\nreturn "done"',
    abortAt: ['r1:code:1', 'finalize'],
    outer: { code: 'ABORTED', text: CANCELLED },
    subs: { 'r1:code:1': { code: 'ok', text: '{}', stages: FULL } },
  },
  {
    name: 'abort while the program waits after its sub-calls → run_code ABORTED; the finished sub-call stays a success',
    program: 'import asyncio\nawait tools.echo()\nawait asyncio.Future()',
    abortAt: ['r1:code:1', 'result'],
    outer: { code: 'ABORTED', text: CANCELLED },
    subs: { 'r1:code:1': { code: 'ok', text: '{}', stages: FULL } },
  },
  {
    name: 'the program returns with a sub-call in flight → settlement aborts and drains it (ABORTED); run_code succeeds',
    // The background task starts after the awaited echo is issued, so echo is :1 and hang :2.
    program: 'import asyncio\nbackground = asyncio.ensure_future(tools.hang())\nawait tools.echo()\nreturn "early"',
    outer: { code: 'ok', text: 'early\nnote: the task running tools.hang() was still pending when the program ended: it was cancelled' },
    subs: { 'r1:code:1': { code: 'ok', text: '{}', stages: FULL }, 'r1:code:2': { code: 'ABORTED', stages: DISPATCHED_NO_RENDER } },
  },
  {
    name: 'a failing sub-call the program catches → TOOL_FAILED inside, run_code succeeds',
    program: 'try:\n    await tools.fail()\nexcept ToolCallError as e:\n    return e.message',
    outer: { code: 'ok', text: 'boom' },
    subs: { 'r1:code:1': { code: 'TOOL_FAILED', text: 'Error: boom', stages: DISPATCHED_NO_RENDER } },
  },
  {
    name: 'abort once run_code’s post-execute runs → its success stays',
    program: 'await tools.echo()\nreturn "value"',
    abortAt: ['r1', 'post'],
    outer: { code: 'ok', text: 'value' },
    subs: { 'r1:code:1': { code: 'ok', text: '{}', stages: FULL } },
  },
  {
    name: 'abort before the program starts (in run_code’s wrapper) → ABORTED_BEFORE_DISPATCH; the runtime never runs',
    program: 'await tools.echo()',
    abortAt: ['r1', 'wrap'],
    outer: { code: 'ABORTED_BEFORE_DISPATCH', text: CANCELLED_BEFORE },
    subs: {},
    runs: false,
  },
]

describe('cancellation matrix (Python sub-calls)', () => {
  test.each(rows.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
    let runs = 0
    const counted: CodeRuntime = { language: runtime.language, isolation: runtime.isolation, flavour: runtime.flavour, run: (input) => (runs++, runtime.run(input)) }
    h = await createHarness({ executor: createPtcExecutor({ runtime: counted }) })
    const tracer = new StageTracer()
    tracer.install(h.ctx)
    h.ctx.tools.register(tracer.trace(echoTool()))
    h.ctx.tools.register(tracer.trace(hangTool()))
    h.ctx.tools.register(tracer.trace(failingTool()))
    const controller = new AbortController()
    if (row.abortAt !== undefined) {
      const [id, stage] = row.abortAt
      tracer.on((e) => {
        if (e.callId === id && e.stage === stage) controller.abort()
      })
    }
    const log = new MemorySessionLog()
    const [r] = await h.execute([runCode(row.program)], { log, signal: controller.signal })
    expect(outcome(r!)).toEqual(row.outer)
    expect(tracer.stagesOf('r1')).toEqual(OUTER_STAGES)
    const dispatched = log.ofType('tool/code-dispatch')
    expect(dispatched.map((e) => e.callId).sort()).toEqual(Object.keys(row.subs).sort())
    for (const e of dispatched) {
      const want = row.subs[e.callId]!
      expect(
        { code: e.isError ? e.error?.info?.code : 'ok', text: e.content.map((b) => (b.type === 'text' ? b.text : '')).join(''), stages: tracer.stagesOf(e.callId) },
        `sub-call ${e.callId}`,
      ).toEqual({ code: want.code, text: want.text ?? defaultText[want.code], stages: want.stages })
    }
    expect(runs).toBe(row.runs === false ? 0 : 1)
    expect(tracer.repeated()).toEqual([])
  })
})
