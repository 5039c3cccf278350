/**
 * Properties of whole batches (ARCHITECTURE §4.3, §11): random tools (random DSL parameter
 * schemas, random concurrency classes), random batches of calls with random arguments (valid
 * for the schema, or violating it at one point) and random outcomes (success, Error throw,
 * non-Error throw, invalid output, pre-execute deny, guard deny, ask → approve or reject,
 * post-execute block; bad JSON, non-object, unknown tool, malformed entry), random
 * pool bounds, random interleavings (fast-check's scheduler decides when every body and
 * every async policy step resumes — no timers, no sleeps) and random abort points (none,
 * before the batch, at a scheduled moment, or at a given stage of a given call). For every run:
 *
 * - `execute` resolves (never rejects) with one frozen result per call, in call order, each
 *   with its call's id, and failure content is exactly `Error: <message>` (a block's is its
 *   feedback, verbatim);
 * - every traced stage ran at most once per call, `tools/result` exactly once per call and in
 *   call order, `finalizeContent` exactly once per call that resolved a tool;
 * - parallel bodies never exceed the pool bound; an exclusive body never overlaps another;
 * - every started body ended before `execute` resolved (no orphaned work);
 * - each call's code is the one its outcome implies — exactly, without an abort; with one,
 *   only the cancellation codes the contract allows (ABORTED only for a started body and a
 *   would-be success or a body that observed the abort, ABORTED_BEFORE_DISPATCH only for a body
 *   that never started; denials, blocks and prepare failures stay);
 * - no unhandled rejection happened.
 *
 * Seeded: FC_SEED / FC_NUM_RUNS / FC_PATH (see propertyParameters).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import fc from 'fast-check'
import { defineTool, type JsonValue, type RawToolCall, type ToolResult } from '@deepseek-ai/dsh-tools'
import { createHarness, propertyParameters, ScriptedApproval, StageTracer, type TracedStage } from '@deepseek-ai/dsh-tool-testkit'
import { mutationsOf, objectArb, parametersArb, parametersOf, type Prop } from './support/arbitraries'

const SEED = 4_242

// ---------------------------------------------------------------------------------------------
// The model of a batch
// ---------------------------------------------------------------------------------------------

type Outcome = 'success' | 'throw' | 'throw-non-error' | 'invalid-output' | 'deny' | 'guard-deny' | 'ask-approve' | 'ask-reject' | 'block'
type ArgsKind = 'valid' | 'schema-violation' | 'bad-json' | 'not-object' | 'unknown-tool' | 'malformed'
/** How a tool answers `isConcurrencySafe`: exactly true, false, a truthy non-true value, or a throw. */
type Concurrency = 'parallel' | 'exclusive' | 'truthy' | 'throws'

interface ToolModel {
  readonly props: readonly Prop[]
  readonly concurrency: Concurrency
}

interface CallModel {
  readonly tool: number
  readonly outcome: Outcome
  readonly argsKind: ArgsKind
  /** Argument value (valid for the tool's schema; for `schema-violation`, a single-point violation of it). */
  readonly args: JsonValue
  /** Whether the pre-execute listener yields to the scheduler for this call. */
  readonly slowPolicy: boolean
  /** For `schema-violation`: the issue the validator must report (`<pointer>: <message>`). */
  readonly violation?: string
}

type AbortPlan = { readonly at: 'none' } | { readonly at: 'before' } | { readonly at: 'scheduled' } | { readonly at: 'stage'; readonly call: number; readonly stage: TracedStage }

interface BatchModel {
  readonly tools: readonly ToolModel[]
  readonly calls: readonly CallModel[]
  readonly maxParallel: number
  readonly abort: AbortPlan
}

const OUTCOMES: readonly Outcome[] = ['success', 'throw', 'throw-non-error', 'invalid-output', 'deny', 'guard-deny', 'ask-approve', 'ask-reject', 'block']
const STAGES: readonly TracedStage[] = ['pre', 'approval', 'guard', 'wrap', 'body', 'body-end', 'unwrap', 'render', 'post', 'finalize', 'result']

const toolArb: fc.Arbitrary<ToolModel> = fc.record({
  props: parametersArb(1, 3),
  concurrency: fc.constantFrom<Concurrency>('parallel', 'parallel', 'exclusive', 'truthy', 'throws'),
})

const batchArb: fc.Arbitrary<BatchModel> = fc
  .array(toolArb, { minLength: 1, maxLength: 3 })
  .chain((tools) => {
    const callArb: fc.Arbitrary<CallModel> = fc.integer({ min: 0, max: tools.length - 1 }).chain((tool) =>
      fc
        .record({
          tool: fc.constant(tool),
          outcome: fc.constantFrom(...OUTCOMES),
          argsKind: fc.oneof({ weight: 10, arbitrary: fc.constant<ArgsKind>('valid') }, { weight: 1, arbitrary: fc.constantFrom<ArgsKind>('schema-violation', 'bad-json', 'not-object', 'unknown-tool', 'malformed') }),
          args: objectArb(tools[tool]!.props),
          slowPolicy: fc.boolean(),
        })
        .chain((c): fc.Arbitrary<CallModel> => {
          if (c.argsKind !== 'schema-violation') return fc.constant(c)
          const mutations = mutationsOf(tools[tool]!.props, c.args as Record<string, JsonValue>)
          // A schema that admits every object has no violation: send a non-object instead.
          if (mutations.length === 0) return fc.constant({ ...c, argsKind: 'not-object' as const })
          return fc.constantFrom(...mutations).map((m) => ({ ...c, args: m.value, violation: `${m.pointer}: ${m.message}` }))
        }),
    )
    return fc.record({
      tools: fc.constant(tools),
      calls: fc.array(callArb, { minLength: 1, maxLength: 8 }),
      maxParallel: fc.integer({ min: 1, max: 4 }),
    })
  })
  .chain((b) =>
    fc.record({
      tools: fc.constant(b.tools),
      calls: fc.constant(b.calls),
      maxParallel: fc.constant(b.maxParallel),
      abort: fc.oneof(
        { weight: 3, arbitrary: fc.constant<AbortPlan>({ at: 'none' }) },
        { weight: 1, arbitrary: fc.constant<AbortPlan>({ at: 'before' }) },
        { weight: 2, arbitrary: fc.constant<AbortPlan>({ at: 'scheduled' }) },
        { weight: 3, arbitrary: fc.record({ at: fc.constant('stage' as const), call: fc.integer({ min: 0, max: b.calls.length - 1 }), stage: fc.constantFrom(...STAGES) }) },
      ),
    }),
  )

const callId = (i: number) => `c${i}`

function rawEntry(call: CallModel, i: number): RawToolCall | Record<string, unknown> {
  const name = `t${call.tool}`
  switch (call.argsKind) {
    case 'valid':
    case 'schema-violation':
      return { callId: callId(i), name, arguments: JSON.stringify(call.args) }
    case 'bad-json':
      return { callId: callId(i), name, arguments: '{"a": tru' }
    case 'not-object':
      return { callId: callId(i), name, arguments: '[1, 2]' }
    case 'unknown-tool':
      return { callId: callId(i), name: `ghost${i}`, arguments: '{}' }
    case 'malformed':
      return { name, arguments: '{}' } // no callId: the result's id is `invalid-call-<i>`
  }
}

const expectedId = (call: CallModel, i: number) => (call.argsKind === 'malformed' ? `invalid-call-${i}` : callId(i))

/** The code a call must end with when nothing aborts. */
function expectedCode(call: CallModel): string {
  switch (call.argsKind) {
    case 'schema-violation':
    case 'bad-json':
    case 'not-object':
    case 'malformed':
      return 'INVALID_ARGS'
    case 'unknown-tool':
      return 'UNKNOWN_TOOL'
    case 'valid':
      break
  }
  switch (call.outcome) {
    case 'success':
    case 'ask-approve':
      return 'ok'
    case 'throw':
    case 'throw-non-error':
      return 'TOOL_FAILED'
    case 'invalid-output':
      return 'INVALID_TOOL_OUTPUT'
    case 'deny':
    case 'guard-deny':
    case 'ask-reject':
      return 'TOOL_DENIED'
    case 'block':
      return 'TOOL_BLOCKED'
  }
}

/** The codes a call may end with when the caller aborted at some point. */
function allowedUnderAbort(call: CallModel, expected: string, abortedBeforeExecute: boolean): readonly string[] {
  if (call.argsKind !== 'valid') return [expected] // prepare failures are decided before anything can abort
  if (abortedBeforeExecute) return ['ABORTED_BEFORE_DISPATCH']
  switch (call.outcome) {
    case 'block':
      return ['TOOL_BLOCKED'] // post-execute runs for every call that reached policy and blocks it
    case 'deny':
    case 'guard-deny':
    case 'ask-reject':
      return [expected, 'ABORTED_BEFORE_DISPATCH']
    default:
      return [expected, 'ABORTED', 'ABORTED_BEFORE_DISPATCH']
  }
}

// ---------------------------------------------------------------------------------------------
// Running one model
// ---------------------------------------------------------------------------------------------

const unhandled: unknown[] = []
const onUnhandled = (reason: unknown) => {
  unhandled.push(reason)
}
beforeAll(() => {
  process.on('unhandledRejection', onUnhandled)
})
afterAll(() => {
  process.off('unhandledRejection', onUnhandled)
})

const realImmediate = () => new Promise<void>((resolve) => setImmediate(resolve))

/** Resolves when `signal` aborts (rejecting with its reason); the listener is removed when `p` settles first. */
function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as unknown)
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as unknown)
    signal.addEventListener('abort', onAbort, { once: true })
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort)
        resolve(v)
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(e)
      },
    )
  })
}

interface Observed {
  readonly results: readonly ToolResult[]
  readonly tracer: StageTracer
  readonly violations: readonly string[]
  readonly bodiesStarted: ReadonlySet<string>
  readonly bodiesOpenAtSettle: number
  readonly aborted: boolean
}

async function runModel(model: BatchModel, s: fc.Scheduler): Promise<Observed> {
  const h = await createHarness({ native: { maxParallelCalls: model.maxParallel } })
  try {
    const controller = new AbortController()
    const tracer = new StageTracer()
    tracer.install(h.ctx)
    const violations: string[] = []
    const outcomeOf = new Map<string, Outcome>()
    model.calls.forEach((c, i) => outcomeOf.set(callId(i), c.outcome))
    const slow = new Set(model.calls.flatMap((c, i) => (c.slowPolicy ? [callId(i)] : [])))

    // Body accounting: live count, exclusive overlap.
    let live = 0
    let exclusiveRunning = false
    const bodiesStarted = new Set<string>()
    let open = 0

    model.tools.forEach((tool, t) => {
      const concurrency = tool.concurrency
      h.ctx.tools.register(
        tracer.trace(
          defineTool({
            name: `t${t}`,
            description: `random tool ${t}`,
            parameters: parametersOf(tool.props),
            output: { schema: { type: 'object', properties: { id: { type: 'string', required: true } } }, render: (_a, v) => [{ type: 'text', text: `ok ${v.id}` }] },
            isConcurrencySafe: (() => {
              switch (concurrency) {
                case 'parallel':
                  return () => true
                case 'exclusive':
                  return () => false
                case 'truthy':
                  return () => 'yes' as unknown as boolean
                case 'throws':
                  return () => {
                    throw new Error('classifier crashed')
                  }
              }
            })(),
            async execute(_args, exec) {
              const id = exec.callId
              const parallel = concurrency === 'parallel'
              if (exclusiveRunning) violations.push(`${id} started while an exclusive body ran`)
              if (!parallel && live > 0) violations.push(`exclusive ${id} started while ${live} bodies ran`)
              live++
              open++
              bodiesStarted.add(id)
              if (live > model.maxParallel) violations.push(`${live} bodies ran at once (bound ${model.maxParallel})`)
              if (!parallel) exclusiveRunning = true
              try {
                await raceAbort(s.schedule(Promise.resolve(), `body ${id}`), exec.signal)
                switch (outcomeOf.get(id)) {
                  case 'throw':
                    throw new Error(`failure of ${id}`)
                  case 'throw-non-error':
                    throw `string thrown by ${id}` // eslint-disable-line @typescript-eslint/only-throw-error -- the point of the case
                  case 'invalid-output':
                    return { id: 42 } as unknown as { id: string }
                  default:
                    return { id }
                }
              } finally {
                live--
                open--
                if (!parallel) exclusiveRunning = false
              }
            },
          }),
        ),
      )
    })

    h.ctx.on('tools/pre-execute', async (exec, next) => {
      if (slow.has(exec.callId)) await s.schedule(Promise.resolve(), `pre ${exec.callId}`)
      switch (outcomeOf.get(exec.callId)) {
        case 'deny':
          return { type: 'deny', reason: `policy says no to ${exec.callId}` }
        case 'ask-approve':
        case 'ask-reject':
          return { type: 'ask', reason: 'random ask' }
        default:
          return next()
      }
    })
    h.ctx.tools.guard((exec) => (outcomeOf.get(exec.callId) === 'guard-deny' ? `guard says no to ${exec.callId}` : undefined))
    h.ctx.tools.approval(
      tracer.approval(
        new ScriptedApproval(async (request) => {
          await s.schedule(Promise.resolve(), `approval ${request.exec.callId}`)
          return outcomeOf.get(request.exec.callId) === 'ask-approve' ? { type: 'approve' } : { type: 'reject', reason: 'random reject' }
        }),
      ),
    )
    h.ctx.on('tools/post-execute', async (exec, _draft, next) => {
      if (slow.has(exec.callId)) await s.schedule(Promise.resolve(), `post ${exec.callId}`)
      return outcomeOf.get(exec.callId) === 'block' ? { type: 'block', feedback: `blocked ${exec.callId}` } : next()
    })

    // Abort plan.
    const plan = model.abort
    if (plan.at === 'before') controller.abort()
    if (plan.at === 'stage') {
      tracer.on((e) => {
        if (e.callId === callId(plan.call) && e.stage === plan.stage) controller.abort(new Error('stage abort'))
      })
    }
    if (plan.at === 'scheduled') void s.schedule(Promise.resolve(), 'abort').then(() => controller.abort(new Error('scheduled abort')))

    // Drive: release scheduled tasks one by one until the batch settles; a batch that is still
    // pending with nothing scheduled and nothing runnable is a hang.
    let settled = false
    let rejected: unknown
    let results: readonly ToolResult[] = []
    const running = h.execute(model.calls.map(rawEntry), { signal: controller.signal }).then(
      (r) => {
        settled = true
        results = r
      },
      (e: unknown) => {
        settled = true
        rejected = e
      },
    )
    let openAtSettle = -1
    void running.then(() => {
      openAtSettle = open
    })
    for (let idle = 0; !settled; ) {
      if (s.count() > 0) {
        idle = 0
        await s.waitNext(1)
      } else {
        await realImmediate()
        if (++idle > 5 && s.count() === 0 && !settled) throw new Error(`the batch hung: nothing scheduled, not settled (open bodies: ${open})`)
      }
    }
    await running
    if (rejected !== undefined) throw new Error(`execute rejected: ${String(rejected)}`)
    await s.waitIdle()
    await realImmediate()
    return { results, tracer, violations, bodiesStarted, bodiesOpenAtSettle: openAtSettle, aborted: controller.signal.aborted }
  } finally {
    await h.dispose()
  }
}

function codeOf(r: ToolResult): string {
  return r.isError ? (r.error.info?.code ?? 'missing code') : 'ok'
}

function deepFrozen(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true
  return Object.isFrozen(value) && Object.values(value).every(deepFrozen)
}

describe('property: random batches through the native pipeline', () => {
  test('never rejects; one frozen result per call in order; stages at most once; pool bound and barriers hold; codes follow the contract', async () => {
    await fc.assert(
      fc.asyncProperty(batchArb, fc.scheduler(), async (model, s) => {
        unhandled.length = 0
        const { results, tracer, violations, bodiesStarted, bodiesOpenAtSettle, aborted } = await runModel(model, s)
        const ids = model.calls.map(expectedId)

        // One frozen result per call, in call order, with the right id.
        expect(results.map((r) => r.callId)).toEqual(ids)
        expect(Object.isFrozen(results)).toBe(true)
        for (const r of results) {
          expect(deepFrozen(r)).toBe(true)
          if (r.isError) {
            expect('value' in r).toBe(false)
            // A block's feedback is its content verbatim; every other failure is `Error: <message>`.
            const blocked = r.error.info?.name === 'PolicyBlocked'
            expect(r.content).toEqual([{ type: 'text', text: blocked ? r.error.message : `Error: ${r.error.message}` }])
          } else {
            expect(r.value).toEqual({ id: r.callId })
            expect(r.content).toEqual([{ type: 'text', text: `ok ${r.callId}` }])
          }
        }

        // Stages: at most once each; result exactly once per call and in call order; finalize once per resolved tool.
        expect(tracer.repeated()).toEqual([])
        expect(tracer.orderOf('result')).toEqual(ids)
        model.calls.forEach((c, i) => {
          const resolved = c.argsKind !== 'unknown-tool' && c.argsKind !== 'malformed'
          expect(tracer.counts(ids[i]!).finalize ?? 0).toBe(resolved ? 1 : 0)
          const started = bodiesStarted.has(ids[i]!)
          expect(tracer.counts(ids[i]!).body ?? 0).toBe(started ? 1 : 0)
        })

        // Concurrency and quiescence.
        expect(violations).toEqual([])
        expect(bodiesOpenAtSettle).toBe(0)

        // Codes.
        model.calls.forEach((c, i) => {
          const r = results[i]!
          const code = codeOf(r)
          const expected = expectedCode(c)
          const started = bodiesStarted.has(ids[i]!)
          if (!aborted) {
            expect(code, `call ${ids[i]}`).toBe(expected)
          } else {
            expect(allowedUnderAbort(c, expected, model.abort.at === 'before'), `call ${ids[i]} got ${code}`).toContain(code)
            if (code === 'ABORTED') expect(started, `ABORTED ${ids[i]} must have started`).toBe(true)
            if (code === 'ABORTED_BEFORE_DISPATCH') expect(started, `ABORTED_BEFORE_DISPATCH ${ids[i]} must not have started`).toBe(false)
          }
          if (code === 'ok') expect(started).toBe(true)
          if (c.violation !== undefined) expect(r.isError && r.error.message).toBe(`Invalid arguments for tool "t${c.tool}": ${c.violation}`)
        })

        expect(unhandled).toEqual([])
      }),
      propertyParameters({ numRuns: 200, defaultSeed: SEED }),
    )
  })
})
