/**
 * Property: a batch run through `runBatch` (`submitAll`, whose calls with JSON-text arguments
 * prepare when they reach policy) gives exactly what the same batch gives when every call is
 * prepared at submission (`submit` one by one, which prepares at once): the same results (code,
 * text, value, `meta.repairs`, order), the same session log, and the same listener sequence
 * (pre-execute, approval, guard, tools/execute, body, post-execute, tools/result) — apart from
 * when the arguments are checked (`checkArguments` of a Standard Schema tool) and classified
 * (`isConcurrencySafe`), which only move, never appear or disappear.
 *
 * Random: tools (raw JSON Schema with repair, or zod; parallel, exclusive, argument-dependent or
 * throwing `isConcurrencySafe`), calls (JSON text, an object the caller changes after
 * submission, a numeric string repaired, a byte-order mark, invalid, a throwing Standard Schema
 * validator, bad JSON, unknown tool,
 * malformed entry), outcomes (success, throw, deny, ask → approve / reject, guard deny, block),
 * how many microtasks each policy and body waits, the pool bound, and where the caller aborts
 * (never, before submission, right after submission, while the batch is being submitted — in a
 * session log append —, or at a given stage of a given call). Everything is deterministic
 * (microtask waits only), so both runs of a model must agree exactly.
 *
 * Seeded: FC_SEED / FC_NUM_RUNS / FC_PATH (see propertyParameters).
 */
import { describe, expect, test } from 'vitest'
import fc from 'fast-check'
import { z } from 'zod'
import { defineRawTool, defineTool, type JsonObject, type JsonValue, type RawToolCall, type SessionEvent, type ToolExecutor, type ToolResult } from '@deepseek-ai/dsh-tools'
import { createHarness, propertyParameters, type Harness } from '@deepseek-ai/dsh-tool-testkit'

type Concurrency = 'parallel' | 'exclusive' | 'by-args' | 'throws'
type ArgsKind = 'text' | 'object' | 'numeric-string' | 'bom' | 'negative' | 'check-throws' | 'bad-json' | 'not-object' | 'unknown-tool' | 'malformed'
type Outcome = 'success' | 'throw' | 'deny' | 'ask-approve' | 'ask-reject' | 'guard-deny' | 'block'
type Stage = 'log-call' | 'pre' | 'approval' | 'guard' | 'wrap' | 'body' | 'body-end' | 'post' | 'result'
type AbortPlan = { readonly at: 'none' | 'before' | 'after-submit' } | { readonly at: 'stage'; readonly call: number; readonly stage: Stage }

interface ToolModel {
  readonly kind: 'raw' | 'zod'
  readonly concurrency: Concurrency
}
interface CallModel {
  readonly tool: number
  readonly argsKind: ArgsKind
  readonly n: number
  readonly par: boolean
  readonly outcome: Outcome
  /** Microtasks the pre-execute listener and the body wait. */
  readonly policyTicks: number
  readonly bodyTicks: number
}
interface BatchModel {
  readonly tools: readonly ToolModel[]
  readonly calls: readonly CallModel[]
  readonly maxParallel: number
  readonly abort: AbortPlan
  /** The call whose pre-execute changes every object-argument call's arguments (the caller still holds them). */
  readonly mutateAt: number | undefined
}

/** The `n` a zod tool's refinement throws on (a raw tool accepts it). */
const BOOM = 1000

const STAGES: readonly Stage[] = ['log-call', 'pre', 'approval', 'guard', 'wrap', 'body', 'body-end', 'post', 'result']

const batchArb: fc.Arbitrary<BatchModel> = fc
  .record({
    tools: fc.array(fc.record({ kind: fc.constantFrom<'raw' | 'zod'>('raw', 'zod'), concurrency: fc.constantFrom<Concurrency>('parallel', 'parallel', 'exclusive', 'by-args', 'throws') }), { minLength: 1, maxLength: 3 }),
    calls: fc.array(
      fc.record({
        tool: fc.nat(2),
        argsKind: fc.oneof(
          { weight: 6, arbitrary: fc.constantFrom<ArgsKind>('text', 'object') },
          { weight: 3, arbitrary: fc.constantFrom<ArgsKind>('numeric-string', 'bom', 'negative', 'check-throws', 'bad-json', 'not-object', 'unknown-tool', 'malformed') },
        ),
        n: fc.nat(99),
        par: fc.boolean(),
        outcome: fc.oneof({ weight: 4, arbitrary: fc.constant<Outcome>('success') }, { weight: 3, arbitrary: fc.constantFrom<Outcome>('throw', 'deny', 'ask-approve', 'ask-reject', 'guard-deny', 'block') }),
        policyTicks: fc.nat(2),
        bodyTicks: fc.nat(3),
      }),
      { minLength: 1, maxLength: 8 },
    ),
    maxParallel: fc.integer({ min: 1, max: 3 }),
  })
  .chain((b) =>
    fc.record({
      tools: fc.constant(b.tools),
      calls: fc.constant(b.calls.map((c) => ({ ...c, tool: c.tool % b.tools.length }))),
      maxParallel: fc.constant(b.maxParallel),
      abort: fc.oneof(
        { weight: 3, arbitrary: fc.constant<AbortPlan>({ at: 'none' }) },
        { weight: 1, arbitrary: fc.constantFrom<AbortPlan>({ at: 'before' }, { at: 'after-submit' }) },
        { weight: 4, arbitrary: fc.record({ at: fc.constant('stage' as const), call: fc.nat(b.calls.length - 1), stage: fc.constantFrom(...STAGES) }) },
      ),
      mutateAt: fc.option(fc.nat(b.calls.length - 1), { nil: undefined }),
    }),
  )

/** What one run of a model produced. */
interface Run {
  readonly results: readonly JsonValue[]
  /** Every listener, body and log event, in order, without the argument checks. */
  readonly trace: readonly string[]
  /** The argument checks and classifications (`check:<id>`, `safe:<id>`), sorted: they may move, never change. */
  readonly checks: readonly string[]
}

/** A result as plain JSON (the error's message and info, not its class). */
function plain(r: ToolResult): JsonValue {
  const meta = (r.meta ?? null) as JsonValue
  return r.isError
    ? { callId: r.callId, isError: true, message: r.error.message, info: r.error.info as unknown as JsonValue, content: r.content as unknown as JsonValue, meta }
    : { callId: r.callId, isError: false, value: r.value, content: r.content as unknown as JsonValue, meta }
}

/** Deploys the model's tools and listeners once; `run` executes the batch in either mode. */
async function deploy(model: BatchModel): Promise<{ h: Harness; run: (mode: 'deferred' | 'eager') => Promise<Run> }> {
  let mode: 'deferred' | 'eager' = 'deferred'
  const executor: ToolExecutor = {
    name: 'equivalence',
    describe: (input) => ({ tools: input.schemas, sections: [] }),
    execute(batch) {
      if (mode === 'deferred') return batch.pipeline.runBatch(batch, { maxParallel: model.maxParallel })
      // Each call prepared as it is submitted: what `submitAll` did before it deferred arguments.
      const runner = batch.pipeline.createRunner({
        scope: batch.scope,
        signal: batch.signal,
        maxParallel: model.maxParallel,
        ...(batch.log === undefined ? {} : { log: batch.log }),
        ...(batch.batchId === undefined ? {} : { batchId: batch.batchId }),
      })
      return Promise.all(batch.calls.map((c) => runner.submit(c)))
    },
  }
  const h = await createHarness({ executor, registry: { repair: { numericStrings: true } } })

  let trace: string[] = []
  let checks: string[] = []
  let controller = new AbortController()
  let objects: { n: number; par: boolean; id: string }[] = []
  const byId = new Map<string, CallModel>()
  model.calls.forEach((c, i) => byId.set(`c${i}`, c))
  const plan = model.abort
  const record = (stage: Stage, id: string, extra = ''): void => {
    trace.push(`${stage}:${id}${extra}`)
    if (plan.at === 'stage' && stage === plan.stage && id === `c${plan.call}`) controller.abort(new Error('stage abort'))
  }
  const safe = (concurrency: Concurrency) => (args: Readonly<JsonObject>) => {
    checks.push(`safe:${String(args.id)}`)
    switch (concurrency) {
      case 'parallel':
        return true
      case 'exclusive':
        return false
      case 'by-args':
        return args.par === true
      case 'throws':
        throw new Error('classifier crashed')
    }
  }
  const body = async (exec: { readonly callId: string; readonly signal: AbortSignal }, value: JsonValue): Promise<JsonValue> => {
    const id = exec.callId
    record('body', id)
    for (let i = 0; i < byId.get(id)!.bodyTicks; i++) {
      await null
      if (exec.signal.aborted) {
        record('body-end', id, ':aborted')
        throw exec.signal.reason as Error
      }
    }
    record('body-end', id)
    if (byId.get(id)!.outcome === 'throw') throw new Error(`failure of ${id}`)
    return value
  }
  model.tools.forEach((tool, t) => {
    if (tool.kind === 'raw') {
      h.ctx.tools.register(
        defineRawTool({
          name: `t${t}`,
          description: `raw tool ${t}`,
          inputSchema: { type: 'object', properties: { id: { type: 'string' }, n: { type: 'integer', minimum: 0 }, par: { type: 'boolean' } }, required: ['id', 'n'], additionalProperties: false },
          isConcurrencySafe: safe(tool.concurrency),
          execute: (args, exec) => body(exec, { tool: t, n: args.n as number }),
        }),
      )
    } else {
      h.ctx.tools.register(
        defineTool({
          name: `t${t}`,
          description: `zod tool ${t}`,
          parameters: z.object({ id: z.string(), n: z.number().int(), par: z.boolean() }).refine((args) => {
            checks.push(`check:${args.id}`)
            if (args.n === BOOM) throw new Error('validator crashed')
            return args.n >= 0
          }, 'n must not be negative'),
          output: { schema: z.object({ tool: z.number(), n: z.number() }), render: (_args, value) => [{ type: 'text', text: `tool ${value.tool}: ${value.n}` }] },
          isConcurrencySafe: safe(tool.concurrency),
          execute: (args, exec) => body(exec, { tool: t, n: args.n }) as Promise<{ tool: number; n: number }>,
        }),
      )
    }
  })
  h.ctx.tools.on('tools/pre-execute', async (exec, next) => {
    const id = exec.callId
    record('pre', id)
    if (model.mutateAt !== undefined && id === `c${model.mutateAt}`) {
      for (const o of objects) {
        o.n = -1 - o.n
        o.par = !o.par
      }
    }
    const c = byId.get(id)!
    for (let i = 0; i < c.policyTicks; i++) await null
    if (c.outcome === 'deny') return { type: 'deny', reason: `no to ${id}` }
    if (c.outcome === 'ask-approve' || c.outcome === 'ask-reject') return { type: 'ask', reason: `ask about ${id}` }
    return next()
  })
  h.ctx.tools.approval({
    request: async (request) => {
      record('approval', request.exec.callId)
      await null
      return byId.get(request.exec.callId)!.outcome === 'ask-approve' ? { type: 'approve' } : { type: 'reject', reason: 'rejected' }
    },
  })
  h.ctx.tools.guard((exec) => {
    record('guard', exec.callId)
    return byId.get(exec.callId)!.outcome === 'guard-deny' ? `guard says no to ${exec.callId}` : undefined
  })
  h.ctx.tools.on('tools/execute', (exec, next) => {
    record('wrap', exec.callId)
    return next()
  })
  h.ctx.tools.on('tools/post-execute', (exec, draft, next) => {
    record('post', exec.callId, `:${draft.isError ? (draft.error.info?.code ?? '?') : 'ok'}`)
    return byId.get(exec.callId)?.outcome === 'block' ? { type: 'block', feedback: `blocked ${exec.callId}` } : next()
  })
  h.ctx.tools.on('tools/result', (result) => {
    record('result', result.callId)
  })
  const log = {
    append(event: SessionEvent): void {
      if (event.type === 'tool/call') record('log-call', event.callId)
      else trace.push(`log:${event.type}:${'callId' in event ? event.callId : '?'}`)
    },
  }

  const entry = (c: CallModel, i: number): RawToolCall | Record<string, unknown> => {
    const id = `c${i}`
    const name = `t${c.tool}`
    const args = { id, n: c.n, par: c.par }
    switch (c.argsKind) {
      case 'text':
        return { callId: id, name, arguments: JSON.stringify(args) }
      case 'object': {
        const held = { ...args }
        objects.push(held)
        return { callId: id, name, arguments: held }
      }
      case 'numeric-string':
        return { callId: id, name, arguments: JSON.stringify({ ...args, n: String(c.n) }) }
      case 'bom':
        return { callId: id, name, arguments: `\uFEFF${JSON.stringify(args)}` }
      case 'negative':
        return { callId: id, name, arguments: JSON.stringify({ ...args, n: -1 - c.n }) }
      case 'check-throws':
        return { callId: id, name, arguments: JSON.stringify({ ...args, n: BOOM }) }
      case 'bad-json':
        return { callId: id, name, arguments: `{"id": "${id}", "n": ` }
      case 'not-object':
        return { callId: id, name, arguments: '[1, 2]' }
      case 'unknown-tool':
        return { callId: id, name: `ghost${i}`, arguments: '{}' }
      case 'malformed':
        return { name, arguments: JSON.stringify(args) }
    }
  }

  const run = async (which: 'deferred' | 'eager'): Promise<Run> => {
    mode = which
    trace = []
    checks = []
    objects = []
    controller = new AbortController()
    if (plan.at === 'before') controller.abort(new Error('before'))
    const pending = h.execute(model.calls.map(entry), { signal: controller.signal, log })
    if (plan.at === 'after-submit') controller.abort(new Error('after submission'))
    const results = await pending
    return { results: results.map(plain), trace, checks: [...checks].sort() }
  }
  return { h, run }
}

describe('property: deferring argument preparation changes nothing but when arguments are checked', () => {
  test('runBatch (deferred) and submit one by one (prepared at submission) give the same results, log and listener sequence', async () => {
    await fc.assert(
      fc.asyncProperty(batchArb, async (model) => {
        const { h, run } = await deploy(model)
        try {
          const deferred = await run('deferred')
          const eager = await run('eager')
          expect(deferred.results).toEqual(eager.results)
          expect(deferred.trace).toEqual(eager.trace)
          expect(deferred.checks).toEqual(eager.checks)
          // The run is not vacuous: one result per call, in call order.
          expect(deferred.results.map((r) => (r as { callId: string }).callId)).toEqual(model.calls.map((c, i) => (c.argsKind === 'malformed' ? `invalid-call-${i}` : `c${i}`)))
        } finally {
          await h.dispose()
        }
      }),
      propertyParameters({ numRuns: 150, defaultSeed: 20_261_201 }),
    )
  })
})
