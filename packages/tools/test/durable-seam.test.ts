/**
 * The durable seam (src/durable.ts) against a journal kept in a Map: the protocol every adapter
 * relies on — two steps per call in order, replay without re-running, started-but-not-finished,
 * a changed tool, a bad journal, durable decisions, PTC-style inherited contexts. The real
 * engines are tested in their adapter packages (DBOS on PostgreSQL).
 */
import { afterEach, describe, expect, test } from 'vitest'
import { defineTool, TOOL_CHANGED, TOOL_OUTCOME_UNKNOWN, DURABLE_JOURNAL_INVALID, durableMessages, toolDefinitionHash, type DurableContext, type DurableDecisionRequest, type ToolExecution, type ToolResult } from '@deepseek-ai/dsh-tools'
import { call, createHarness, type Harness } from '@deepseek-ai/dsh-tool-testkit'

let h: Harness
afterEach(async () => {
  await h?.dispose()
})

/** A journal in a Map: what an engine records, by step name, with the order steps were asked in. */
class MapJournal implements DurableContext {
  readonly engine = 'map'
  readonly asked: string[] = []
  readonly ran: string[] = []
  awaitDecision?: DurableContext['awaitDecision']
  constructor(
    readonly key: string,
    readonly entries = new Map<string, unknown>(),
  ) {}
  async step(name: string, fn: (signal: AbortSignal) => Promise<unknown>): Promise<unknown> {
    this.asked.push(name)
    if (this.entries.has(name)) return structuredClone(this.entries.get(name))
    this.ran.push(name)
    const value = await fn(new AbortController().signal)
    this.entries.set(name, JSON.parse(JSON.stringify(value)))
    return value
  }
}

function counterTool(effects: string[], options: { idempotent?: boolean; description?: string } = {}) {
  return defineTool({
    name: 'charge',
    description: options.description ?? 'Charges an amount',
    parameters: { amount: { type: 'integer' } },
    output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
    ...(options.idempotent === true ? { idempotent: true } : {}),
    execute(args, exec: ToolExecution) {
      effects.push(`${exec.idempotencyKey}:${args.amount}`)
      exec.annotate('key', exec.idempotencyKey ?? null)
      return `charged ${args.amount}`
    },
  })
}

const texts = (results: readonly ToolResult[]) => results.map((r) => (r.content[0] as { text: string }).text)

describe('durable seam', () => {
  test('a durable batch journals two steps per call in call order and returns what a plain batch returns', async () => {
    h = await createHarness()
    const effects: string[] = []
    h.ctx.tools.register(counterTool(effects))
    const calls = [call('charge', { amount: 1 }, 'c1'), call('charge', { amount: 2 }, 'c2')]
    const plain = await h.execute(calls)
    const journal = new MapJournal('wf-1:1')
    const durable = await h.execute(calls, { durable: journal })
    expect(texts(durable)).toEqual(texts(plain))
    expect(journal.asked).toEqual(['dsh:start:wf-1:1/c1', 'dsh:call:wf-1:1/c1', 'dsh:start:wf-1:1/c2', 'dsh:call:wf-1:1/c2'])
    expect(effects).toEqual(['undefined:1', 'undefined:2', 'wf-1:1/c1:1', 'wf-1:1/c2:2'])
    expect(durable[0]!.meta?.annotations).toEqual({ key: 'wf-1:1/c1' })
    expect(journal.entries.get('dsh:call:wf-1:1/c1')).toEqual({ ok: true, value: 'charged 1', annotations: { key: 'wf-1:1/c1' } })
    const marker = journal.entries.get('dsh:start:wf-1:1/c1') as { startedAt: number; tool: string }
    expect(marker.tool).toMatch(/^[0-9a-f]{16}$/)
  })

  test('a replay returns the journaled outcomes without running a body again', async () => {
    h = await createHarness()
    const effects: string[] = []
    h.ctx.tools.register(counterTool(effects))
    const calls = [call('charge', { amount: 1 }, 'c1'), call('charge', { amount: 2 }, 'c2')]
    const first = new MapJournal('wf-2:1')
    const original = await h.execute(calls, { durable: first })
    const replay = new MapJournal('wf-2:1', first.entries)
    const replayed = await h.execute(calls, { durable: replay })
    expect(effects).toEqual(['wf-2:1/c1:1', 'wf-2:1/c2:2'])
    expect(replay.ran).toEqual([])
    expect(replayed).toEqual(original)
  })

  test('started but not finished: a tool that is not idempotent fails with TOOL_OUTCOME_UNKNOWN; an idempotent one runs again', async () => {
    h = await createHarness()
    const effects: string[] = []
    const tool = counterTool(effects)
    h.ctx.tools.register(tool)
    const entries = new Map<string, unknown>([['dsh:start:wf-3:1/c1', { startedAt: 1, tool: toolDefinitionHash(tool) }]])
    const journal = new MapJournal('wf-3:1', entries)
    const [result] = await h.execute([call('charge', { amount: 5 }, 'c1')], { durable: journal })
    expect(effects).toEqual([])
    expect(result).toMatchObject({
      isError: true,
      error: { message: durableMessages.outcomeUnknown('charge'), info: { name: 'DurableInterrupted', code: TOOL_OUTCOME_UNKNOWN, toolName: 'charge' } },
      content: [{ type: 'text', text: 'Error: Tool "charge" was interrupted: the worker running it stopped before it finished, so it may or may not have taken effect. Check its effect before calling it again.' }],
    })
    // The failure is journaled: the next replay gives the same answer.
    expect((journal.entries.get('dsh:call:wf-3:1/c1') as { info: { code: string } }).info.code).toBe(TOOL_OUTCOME_UNKNOWN)

    await h.dispose()
    h = await createHarness()
    const again: string[] = []
    const idempotent = counterTool(again, { idempotent: true })
    h.ctx.tools.register(idempotent)
    const retried = new MapJournal('wf-4:1', new Map([['dsh:start:wf-4:1/c1', { startedAt: 1, tool: toolDefinitionHash(idempotent) }]]))
    const [ok] = await h.execute([call('charge', { amount: 5 }, 'c1')], { durable: retried })
    expect(again).toEqual(['wf-4:1/c1:5'])
    expect(ok).toMatchObject({ isError: false, value: 'charged 5' })
    expect(ok!.content).toEqual([{ type: 'text', text: 'charged 5' }])
  })

  test('a journal written under another definition of the tool fails the call with TOOL_CHANGED and runs nothing', async () => {
    h = await createHarness()
    const effects: string[] = []
    const old = counterTool([], { description: 'Charges an amount (v1)' })
    h.ctx.tools.register(counterTool(effects))
    const entries = new Map<string, unknown>([
      ['dsh:start:wf-5:1/c1', { startedAt: 1, tool: toolDefinitionHash(old) }],
      ['dsh:call:wf-5:1/c1', { ok: true, value: 'charged 1' }],
      ['dsh:start:wf-5:1/c2', { startedAt: 1, tool: toolDefinitionHash(old) }],
    ])
    const results = await h.execute([call('charge', { amount: 1 }, 'c1'), call('charge', { amount: 2 }, 'c2')], { durable: new MapJournal('wf-5:1', entries) })
    expect(effects).toEqual([])
    for (const r of results) {
      expect(r).toMatchObject({ isError: true, error: { message: 'Tool "charge" changed since this call was journaled; it was not run again.', info: { code: TOOL_CHANGED, toolName: 'charge' } } })
    }
  })

  test('a journaled value that is not an outcome fails the call with DURABLE_JOURNAL_INVALID naming the tool and the step', async () => {
    h = await createHarness()
    const tool = counterTool([])
    h.ctx.tools.register(tool)
    const entries = new Map<string, unknown>([
      ['dsh:start:wf-6:1/c1', { startedAt: 1, tool: toolDefinitionHash(tool) }],
      ['dsh:call:wf-6:1/c1', 'charged 1'],
      ['dsh:start:wf-6:1/c2', 42],
    ])
    const [a, b] = await h.execute([call('charge', { amount: 1 }, 'c1'), call('charge', { amount: 2 }, 'c2')], { durable: new MapJournal('wf-6:1', entries) })
    expect(a).toMatchObject({ isError: true, error: { message: 'Tool "charge": the durable journal\'s step dsh:call:wf-6:1/c1 holds the string "charged 1", not what this library records; the call was not run again.', info: { code: DURABLE_JOURNAL_INVALID } } })
    expect(b).toMatchObject({ isError: true, error: { message: 'Tool "charge": the durable journal\'s step dsh:start:wf-6:1/c2 holds number 42, not what this library records; the call was not run again.', info: { code: DURABLE_JOURNAL_INVALID } } })
  })

  test('an engine that fails to journal fails the call with DURABLE_ENGINE_FAILED naming the engine', async () => {
    h = await createHarness()
    h.ctx.tools.register(counterTool([]))
    const broken: DurableContext = { engine: 'map', key: 'k', step: () => Promise.reject(new Error('connection refused')) }
    const [r] = await h.execute([call('charge', { amount: 1 }, 'c1')], { durable: broken })
    expect(r).toMatchObject({ isError: true, error: { message: 'Tool "charge" could not be journaled by the durable engine (map): connection refused', info: { code: 'DURABLE_ENGINE_FAILED' } } })
  })

  test('an ask in a durable batch waits on the engine, keyed by the call key, and its decision is checked like an approval', async () => {
    h = await createHarness()
    const effects: string[] = []
    h.ctx.tools.register(counterTool(effects))
    h.ctx.on('tools/pre-execute', () => ({ type: 'ask', reason: 'money moves' }))
    const journal = new MapJournal('wf-7:1')
    const asked: unknown[] = []
    const answers: Record<string, unknown> = { 'wf-7:1/c1': { type: 'approve' }, 'wf-7:1/c2': { type: 'reject', reason: 'too much' }, 'wf-7:1/c3': { type: 'maybe' } }
    journal.awaitDecision = async (name: string, request: DurableDecisionRequest) => {
      asked.push([name, request.toolName, request.arguments, request.reason])
      return answers[name]
    }
    const results = await h.execute([call('charge', { amount: 1 }, 'c1'), call('charge', { amount: 2 }, 'c2'), call('charge', { amount: 3 }, 'c3')], { durable: journal })
    expect(asked).toEqual([
      ['wf-7:1/c1', 'charge', { amount: 1 }, 'money moves'],
      ['wf-7:1/c2', 'charge', { amount: 2 }, 'money moves'],
      ['wf-7:1/c3', 'charge', { amount: 3 }, 'money moves'],
    ])
    expect(effects).toEqual(['wf-7:1/c1:1'])
    expect(results.map((r) => (r.isError ? r.error.info.code : 'ok'))).toEqual(['ok', 'TOOL_DENIED', 'TOOL_DENIED'])
    expect(results[1]).toMatchObject({ error: { message: 'too much' } })
  })

  test('a runner created with a durable parent journals its calls under the parent call key (PTC sub-calls)', async () => {
    h = await createHarness()
    const effects: string[] = []
    h.ctx.tools.register(counterTool(effects))
    h.ctx.tools.register(
      defineTool({
        name: 'orchestrate',
        description: 'Runs two charges',
        parameters: {},
        durability: 'workflow',
        output: { schema: { type: 'array', items: { type: 'string' } }, render: (_a, v) => [{ type: 'text', text: v.join(',') }] },
        async execute(_args, exec) {
          const runner = h.tools.pipeline.createRunner({ scope: exec.scope, signal: exec.signal, parent: exec })
          const [a, b] = await Promise.all([runner.submit(call('charge', { amount: 7 }, `${exec.callId}:code:1`)), runner.submit(call('charge', { amount: 8 }, `${exec.callId}:code:2`))])
          return [a, b].map((r) => (r!.isError ? 'error' : String(r!.value)))
        },
      }),
    )
    const journal = new MapJournal('wf-8:1')
    const [r] = await h.execute([call('orchestrate', {}, 'c1')], { durable: journal })
    expect(r).toMatchObject({ isError: false, value: ['charged 7', 'charged 8'] })
    expect(journal.asked).toEqual(['dsh:start:wf-8:1/c1/c1:code:1', 'dsh:call:wf-8:1/c1/c1:code:1', 'dsh:start:wf-8:1/c1/c1:code:2', 'dsh:call:wf-8:1/c1/c1:code:2'])
    expect(effects).toEqual(['wf-8:1/c1/c1:code:1:7', 'wf-8:1/c1/c1:code:2:8'])
  })

  test('outside a durable batch the seam is absent: no key, no start time', async () => {
    h = await createHarness()
    const seen: unknown[] = []
    h.ctx.tools.register(
      defineTool({
        name: 'look',
        description: 'd',
        parameters: {},
        output: { schema: { type: 'null' }, render: () => [{ type: 'text', text: 'ok' }] },
        execute(_a, exec) {
          seen.push(exec.idempotencyKey, exec.durableStartedAt)
          return null
        },
      }),
    )
    await h.execute([call('look', {}, 'c1')])
    expect(seen).toEqual([undefined, undefined])
    await expect(h.execute([call('look', {}, 'c1')], { durable: { key: 'k' } as unknown as DurableContext })).rejects.toThrow('ctx.tools.execute(): durable must be a DurableContext { engine, key: string, step(name, fn) }, got object')
  })
})
