/**
 * The cancellation matrix (ARCHITECTURE §4.3 "Cancellation is cooperative and quiescent", §11
 * "A cancellation matrix over every stage"), table-driven, for native batches.
 *
 * `packages/tools/test/cancellation.test.ts` already pins: pre-aborted, abort during
 * pre-execute (allow / deny / throw), in a wrapper before `next()`, during a cooperative and a
 * signal-ignoring body, a body failing after the abort, during post-execute (success stays),
 * while an approval is held, and queued calls of a batch. This table covers the rest: the
 * guard stage, a wrapper after `next()`, render, post-execute blocking, finalizeContent,
 * tools/result, an approval answered after the abort, and aborts between the calls of a batch.
 *
 * Each row aborts the caller's signal at one point (a {@link StageTracer} hook, or inside a
 * listener) and asserts every call's code, model-facing text and the exact stages that ran.
 * A second table does the same for the sub-calls of a PTC `run_code` program.
 */
import { afterEach, describe, expect, test } from 'vitest'
import type { Context } from 'cordis'
import { defineTool, ToolError, type ToolResult } from '@deepseek-ai/dsh-tools'
import { createPtcExecutor } from '@deepseek-ai/dsh-tool-executor-ptc'
import {
  call,
  createHarness,
  echoTool,
  failingTool,
  FakeCodeRuntime,
  hangTool,
  MemorySessionLog,
  ScriptedApproval,
  StageTracer,
  type FakeStep,
  type Harness,
  type TracedStage,
} from '@deepseek-ai/dsh-tool-testkit'

let h: Harness
afterEach(async () => {
  await h?.dispose()
})

/** `ok` returns `value of <id>`; `throw` throws `disk full`; `cooperative` waits for its signal; a function is awaited first, then `ok`. */
type Body = 'ok' | 'throw' | 'cooperative' | ((tracer: StageTracer) => Promise<void>)

interface Expected {
  readonly code: string
  /** Exact model-facing text; defaults by code. */
  readonly text?: string
  readonly stages: readonly TracedStage[]
}

interface Row {
  readonly name: string
  /** Call ids of the batch (default `['c1']`). */
  readonly calls?: readonly string[]
  readonly body?: Body
  /** Per-call bodies (override `body`). */
  readonly bodies?: Readonly<Record<string, Body>>
  /** Parallel-safe calls (default: exclusive, so the batch is a chain of barriers). */
  readonly parallel?: boolean
  readonly maxParallel?: number
  /** Abort when the tracer records this stage for this call. */
  readonly abortAt?: readonly [string, TracedStage]
  /** Extra listeners, registered after the tracer (so they run inside it). */
  readonly setup?: (ctx: Context, abort: () => void, tracer: StageTracer) => void
  readonly expected: Readonly<Record<string, Expected>>
}

const CANCELLED_BEFORE = 'Error: Tool call was cancelled before it started'
const CANCELLED = 'Error: Tool call was cancelled'
const FULL: readonly TracedStage[] = ['pre', 'guard', 'wrap', 'body', 'body-end', 'unwrap', 'render', 'post', 'finalize', 'result']
const NO_BODY: readonly TracedStage[] = ['pre', 'guard', 'post', 'finalize', 'result']
const DISPATCHED_NO_RENDER: readonly TracedStage[] = ['pre', 'guard', 'wrap', 'body', 'body-end', 'unwrap', 'post', 'finalize', 'result']

const defaultText: Record<string, string> = {
  ok: 'value of c1',
  ABORTED_BEFORE_DISPATCH: CANCELLED_BEFORE,
  ABORTED: CANCELLED,
}

const rows: readonly Row[] = [
  // --- guard -----------------------------------------------------------------------------
  {
    name: 'guard: abort while the guards run, they allow → ABORTED_BEFORE_DISPATCH; no dispatch, post-execute still runs',
    abortAt: ['c1', 'guard'],
    expected: { c1: { code: 'ABORTED_BEFORE_DISPATCH', stages: NO_BODY } },
  },
  {
    name: 'guard: abort, then a later guard denies → the denial stays',
    abortAt: ['c1', 'guard'],
    setup: (ctx) => void ctx.tools.guard(() => 'outside the sandbox'),
    expected: { c1: { code: 'TOOL_DENIED', text: 'Error: outside the sandbox', stages: NO_BODY } },
  },
  {
    name: 'guard: a guard aborts and throws → the policy failure stays (fail closed)',
    setup: (ctx, abort) =>
      void ctx.tools.guard(() => {
        abort()
        throw new Error('guard crashed')
      }),
    expected: { c1: { code: 'TOOL_DENIED', text: 'Error: Tool "work" could not be checked by policy (guard): guard crashed', stages: NO_BODY } },
  },
  // --- approval answered after the abort ---------------------------------------------------
  {
    name: 'approval: approved, but the caller aborted while it was asked → ABORTED_BEFORE_DISPATCH',
    setup: (ctx, abort) => {
      ctx.on('tools/pre-execute', () => ({ type: 'ask', reason: 'writes' }))
      ctx.tools.approval(
        new ScriptedApproval(() => {
          abort()
          return { type: 'approve' }
        }),
      )
    },
    expected: { c1: { code: 'ABORTED_BEFORE_DISPATCH', stages: ['pre', 'post', 'finalize', 'result'] } },
  },
  // --- wrapper after next() ------------------------------------------------------------------
  {
    name: 'wrapper after next(): abort once the body returned a value → ABORTED replaces the success; nothing is rendered',
    abortAt: ['c1', 'unwrap'],
    expected: { c1: { code: 'ABORTED', stages: DISPATCHED_NO_RENDER } },
  },
  {
    name: 'wrapper after next(): abort after the body failed → the tool failure stays',
    body: 'throw',
    abortAt: ['c1', 'unwrap'],
    expected: { c1: { code: 'TOOL_FAILED', text: 'Error: disk full', stages: DISPATCHED_NO_RENDER } },
  },
  {
    name: 'wrapper after next(): the wrapper aborts, then throws its own error → the wrapper failure stays',
    setup: (ctx, abort) =>
      void ctx.on('tools/execute', async (_exec, next) => {
        await next()
        abort()
        throw new Error('metrics sink unavailable')
      }),
    expected: { c1: { code: 'TOOL_FAILED', text: 'Error: metrics sink unavailable', stages: DISPATCHED_NO_RENDER } },
  },
  {
    name: 'wrapper after next(): the wrapper reports TOOL_TIMEOUT after an abort → TOOL_TIMEOUT stays',
    setup: (ctx, abort) =>
      void ctx.on('tools/execute', async (_exec, next) => {
        await next()
        abort()
        throw new ToolError('TOOL_TIMEOUT', 'tool call timed out after 10ms')
      }),
    expected: { c1: { code: 'TOOL_TIMEOUT', text: 'Error: tool call timed out after 10ms', stages: DISPATCHED_NO_RENDER } },
  },
  {
    name: 'wrapper after next(): a wrapper that swallows the body’s abort and returns a fallback cannot launder it → ABORTED',
    body: 'cooperative',
    abortAt: ['c1', 'body'],
    setup: (ctx) =>
      void ctx.on('tools/execute', async (_exec, next) => {
        try {
          return await next()
        } catch {
          return 'fallback value'
        }
      }),
    expected: { c1: { code: 'ABORTED', stages: DISPATCHED_NO_RENDER } },
  },
  // --- after dispatch -------------------------------------------------------------------------
  {
    name: 'render: abort while the value renders (after dispatch checked the signal) → the success stays',
    abortAt: ['c1', 'render'],
    expected: { c1: { code: 'ok', stages: FULL } },
  },
  {
    name: 'post-execute: abort, then the policy blocks → TOOL_BLOCKED stays',
    setup: (ctx, abort) =>
      void ctx.on('tools/post-execute', () => {
        abort()
        return { type: 'block', feedback: 'contains a secret' }
      }),
    expected: { c1: { code: 'TOOL_BLOCKED', text: 'contains a secret', stages: FULL } },
  },
  {
    name: 'finalizeContent: abort while the content is finalized → the success stays (finalized once)',
    abortAt: ['c1', 'finalize'],
    expected: { c1: { code: 'ok', stages: FULL } },
  },
  {
    name: 'finalizeContent: abort while a failure is finalized → the failure stays',
    body: 'throw',
    abortAt: ['c1', 'finalize'],
    expected: { c1: { code: 'TOOL_FAILED', text: 'Error: disk full', stages: DISPATCHED_NO_RENDER } },
  },
  {
    name: 'tools/result: abort while the frozen result is observed → it is what the caller gets',
    abortAt: ['c1', 'result'],
    expected: { c1: { code: 'ok', stages: FULL } },
  },
  // --- between the calls of a batch ------------------------------------------------------------
  // Policy runs ahead of dispatch in model order, so each row first waits until every call's
  // guard ran (tracer.reached) to make the stages independent of promise scheduling.
  {
    name: 'between calls (exclusive): abort after a’s dispatch, before b’s body → a succeeds; b and c never start',
    calls: ['a', 'b', 'c'],
    bodies: { a: (t) => t.reached('c', 'guard').then(() => undefined) },
    abortAt: ['a', 'render'],
    expected: {
      a: { code: 'ok', text: 'value of a', stages: FULL },
      b: { code: 'ABORTED_BEFORE_DISPATCH', stages: NO_BODY },
      c: { code: 'ABORTED_BEFORE_DISPATCH', stages: NO_BODY },
    },
  },
  {
    name: 'between calls (exclusive): abort while a’s body runs → a is ABORTED; b and c, waiting at the barrier, never start',
    calls: ['a', 'b', 'c'],
    body: 'cooperative',
    setup: (_ctx, abort, tracer) => void tracer.reached('c', 'guard').then(abort),
    expected: {
      a: { code: 'ABORTED', stages: DISPATCHED_NO_RENDER },
      b: { code: 'ABORTED_BEFORE_DISPATCH', stages: NO_BODY },
      c: { code: 'ABORTED_BEFORE_DISPATCH', stages: NO_BODY },
    },
  },
  {
    name: 'between calls (exclusive): the barrier holds bodies only — b’s body starts while a’s post-execute runs; an abort then leaves a’s success and cancels b',
    calls: ['a', 'b', 'c'],
    bodies: { b: 'cooperative' },
    setup: (ctx, abort, tracer) =>
      void ctx.on('tools/post-execute', async (exec, _draft, next) => {
        if (exec.callId === 'a') {
          await Promise.all([tracer.reached('b', 'body'), tracer.reached('c', 'guard')])
          abort()
        }
        return next()
      }),
    expected: {
      a: { code: 'ok', text: 'value of a', stages: FULL },
      b: { code: 'ABORTED', stages: DISPATCHED_NO_RENDER },
      c: { code: 'ABORTED_BEFORE_DISPATCH', stages: NO_BODY },
    },
  },
  {
    name: 'between calls (parallel pool of 1): abort while a runs → a is ABORTED; b, queued for a pool slot, never starts',
    calls: ['a', 'b'],
    parallel: true,
    maxParallel: 1,
    bodies: { a: 'cooperative' },
    setup: (_ctx, abort, tracer) => void tracer.reached('b', 'guard').then(abort),
    expected: {
      a: { code: 'ABORTED', stages: DISPATCHED_NO_RENDER },
      b: { code: 'ABORTED_BEFORE_DISPATCH', stages: NO_BODY },
    },
  },
  {
    name: 'between calls (parallel): abort once a and b returned while c still runs → a and b keep their successes, c is ABORTED',
    calls: ['a', 'b', 'c'],
    parallel: true,
    bodies: { c: 'cooperative' },
    setup: (_ctx, abort, tracer) => void Promise.all([tracer.reached('a', 'render'), tracer.reached('b', 'render'), tracer.reached('c', 'body')]).then(abort),
    expected: {
      a: { code: 'ok', text: 'value of a', stages: FULL },
      b: { code: 'ok', text: 'value of b', stages: FULL },
      c: { code: 'ABORTED', stages: DISPATCHED_NO_RENDER },
    },
  },
]

async function runRow(row: Row): Promise<{ results: readonly ToolResult[]; tracer: StageTracer }> {
  h = await createHarness({ native: { maxParallelCalls: row.maxParallel ?? 10 } })
  const controller = new AbortController()
  const abort = () => controller.abort()
  const tracer = new StageTracer()
  tracer.install(h.ctx)
  const bodyOf = (id: string): Body => row.bodies?.[id] ?? row.body ?? 'ok'
  h.ctx.tools.register(
    tracer.trace(
      defineTool({
        name: 'work',
        description: 'A traced unit of work.',
        parameters: {},
        output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
        isConcurrencySafe: () => row.parallel === true,
        async execute(_args, exec) {
          const body = bodyOf(exec.callId)
          if (typeof body === 'function') await body(tracer)
          if (body === 'throw') throw new Error('disk full')
          if (body === 'cooperative') {
            await new Promise<void>((_resolve, reject) => {
              if (exec.signal.aborted) return reject(exec.signal.reason)
              exec.signal.addEventListener('abort', () => reject(exec.signal.reason), { once: true })
            })
          }
          return `value of ${exec.callId}`
        },
      }),
    ),
  )
  if (row.abortAt !== undefined) {
    const [id, stage] = row.abortAt
    tracer.on((e) => {
      if (e.callId === id && e.stage === stage) abort()
    })
  }
  row.setup?.(h.ctx, abort, tracer)
  const ids = row.calls ?? ['c1']
  const results = await h.execute(
    ids.map((id) => call('work', {}, id)),
    { signal: controller.signal },
  )
  return { results, tracer }
}

describe('cancellation matrix (native), stages the core suite does not cover', () => {
  // An approval service that answers `reject` after the caller aborted: the denial stays more
  // specific (ARCHITECTURE §4.3), like a pre-execute `deny` after an abort.
  test('approval: rejected, but the caller aborted while it was asked → the denial stays (TOOL_DENIED)', async () => {
    const { results, tracer } = await runRow({
      name: 'approval reject after abort',
      setup: (ctx, abort) => {
        ctx.on('tools/pre-execute', () => ({ type: 'ask' }))
        ctx.tools.approval(
          new ScriptedApproval(() => {
            abort()
            return { type: 'reject', reason: 'not now' }
          }),
        )
      },
      expected: {},
    })
    expect(results[0]).toMatchObject({ isError: true, error: { message: 'not now', info: { code: 'TOOL_DENIED', toolName: 'work' } } })
    expect(tracer.stagesOf('c1')).toEqual(['pre', 'post', 'finalize', 'result'])
  })

  test.each(rows.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
    const { results, tracer } = await runRow(row)
    const ids = row.calls ?? ['c1']
    expect(results.map((r) => r.callId)).toEqual(ids)
    for (const [i, id] of ids.entries()) {
      const want = row.expected[id]!
      const result = results[i]!
      const got = {
        code: result.isError ? result.error.info?.code : 'ok',
        text: result.content.map((b) => (b.type === 'text' ? b.text : '')).join(''),
        stages: tracer.stagesOf(id),
      }
      expect(got, `call ${id}`).toEqual({ code: want.code, text: want.text ?? defaultText[want.code] ?? `value of ${id}`, stages: want.stages })
      expect(Object.isFrozen(result)).toBe(true)
    }
    expect(tracer.repeated()).toEqual([])
  })
})

// ---------------------------------------------------------------------------------------------
// PTC: sub-calls of a run_code program (ARCHITECTURE §6 "Settlement aborts and drains every
// in-flight sub-call before run_code returns"). The program is scripted with FakeCodeRuntime,
// so every row is deterministic; sub-call outcomes are read from the session log's
// `tool/code-dispatch` events and their stages from the tracer.
// ---------------------------------------------------------------------------------------------

interface PtcRow {
  readonly name: string
  readonly steps: readonly FakeStep[]
  readonly abortAt?: readonly [string, TracedStage]
  /** Outer `run_code` result: code and model-facing text. */
  readonly outer: { readonly code: string; readonly text: string }
  /** Sub-call id → code and stages. */
  readonly subs: Readonly<Record<string, Expected>>
}

const OUTER_STAGES: readonly TracedStage[] = ['pre', 'guard', 'wrap', 'unwrap', 'post', 'result']

const ptcRows: readonly PtcRow[] = [
  {
    name: 'abort while a sub-call’s body runs → the sub-call is ABORTED, the run settles as abort, run_code is ABORTED',
    steps: [{ call: 'hang', await: true }, { return: 'unreachable' }],
    abortAt: ['r1:code:1', 'body'],
    outer: { code: 'ABORTED', text: CANCELLED },
    subs: { 'r1:code:1': { code: 'ABORTED', stages: DISPATCHED_NO_RENDER } },
  },
  {
    name: 'abort at the second sub-call’s guard while the first runs → first ABORTED, second ABORTED_BEFORE_DISPATCH',
    steps: [{ call: 'hang' }, { call: 'echo' }, { awaitAll: 'all' }],
    abortAt: ['r1:code:2', 'guard'],
    outer: { code: 'ABORTED', text: CANCELLED },
    subs: { 'r1:code:1': { code: 'ABORTED', stages: DISPATCHED_NO_RENDER }, 'r1:code:2': { code: 'ABORTED_BEFORE_DISPATCH', stages: NO_BODY } },
  },
  {
    name: 'abort while a finished sub-call is finalized → its success stays; the program stops at its next step: run_code ABORTED',
    steps: [{ call: 'echo', await: true }, { log: 'after' }, { return: 'done' }],
    abortAt: ['r1:code:1', 'finalize'],
    outer: { code: 'ABORTED', text: CANCELLED },
    subs: { 'r1:code:1': { code: 'ok', text: '{}', stages: FULL } },
  },
  {
    name: 'abort while the program hangs after its sub-calls → run_code ABORTED; the finished sub-call stays a success',
    steps: [{ call: 'echo', await: true }, { hang: true }],
    abortAt: ['r1:code:1', 'result'],
    outer: { code: 'ABORTED', text: CANCELLED },
    subs: { 'r1:code:1': { code: 'ok', text: '{}', stages: FULL } },
  },
  {
    name: 'the program returns with a sub-call in flight → settlement aborts and drains it (ABORTED); run_code succeeds',
    steps: [{ call: 'hang' }, { yield: 2 }, { return: 'early' }],
    outer: { code: 'ok', text: 'early' },
    subs: { 'r1:code:1': { code: 'ABORTED', stages: DISPATCHED_NO_RENDER } },
  },
  {
    name: 'a failing sub-call the program catches → TOOL_FAILED inside, run_code succeeds',
    steps: [{ call: 'fail' }, { awaitAll: 'settled' }, { return: (s) => s.calls[0]!.error ?? null }],
    outer: { code: 'ok', text: 'boom' },
    subs: { 'r1:code:1': { code: 'TOOL_FAILED', text: 'Error: boom', stages: DISPATCHED_NO_RENDER } },
  },
  {
    name: 'abort once run_code’s post-execute runs → its success stays',
    steps: [{ call: 'echo', await: true }, { return: 'value' }],
    abortAt: ['r1', 'post'],
    outer: { code: 'ok', text: 'value' },
    subs: { 'r1:code:1': { code: 'ok', text: '{}', stages: FULL } },
  },
  {
    name: 'abort before the program starts (in run_code’s wrapper) → ABORTED_BEFORE_DISPATCH; the runtime never runs',
    steps: [{ call: 'echo', await: true }],
    abortAt: ['r1', 'wrap'],
    outer: { code: 'ABORTED_BEFORE_DISPATCH', text: CANCELLED_BEFORE },
    subs: {},
  },
]

describe('cancellation matrix (PTC sub-calls, scripted with FakeCodeRuntime)', () => {
  test.each(ptcRows.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
    const runtime = new FakeCodeRuntime()
    runtime.enqueue(row.steps)
    h = await createHarness({ executor: createPtcExecutor({ runtime }) })
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
    const [outer] = await h.execute([call('run_code', { code: '/* scripted */', description: 'matrix row' }, 'r1')], { log, signal: controller.signal })
    expect({ code: outer!.isError ? outer!.error.info?.code : 'ok', text: outer!.content.map((b) => (b.type === 'text' ? b.text : '')).join('') }).toEqual(row.outer)
    expect(tracer.stagesOf('r1')).toEqual(OUTER_STAGES)
    const dispatched = log.ofType('tool/code-dispatch')
    expect(dispatched.map((e) => e.callId)).toEqual(Object.keys(row.subs))
    for (const e of dispatched) {
      const want = row.subs[e.callId]!
      expect(
        { code: e.isError ? e.error?.info?.code : 'ok', text: e.content.map((b) => (b.type === 'text' ? b.text : '')).join(''), stages: tracer.stagesOf(e.callId) },
        `sub-call ${e.callId}`,
      ).toEqual({ code: want.code, text: want.text ?? defaultText[want.code], stages: want.stages })
    }
    expect(runtime.runs).toHaveLength(row.abortAt?.[1] === 'wrap' ? 0 : 1)
    expect(tracer.repeated()).toEqual([])
  })
})
