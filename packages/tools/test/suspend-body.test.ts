/**
 * Calls that suspend inside their body (`exec.suspension`, `RunnerOptions.suspendable` /
 * `decisions`, `CallRunner.submitOutcome`), engine-neutral: `fan_out` runs one `echo` sub-call
 * per text on a sub-call runner; a sub-call whose approval is deferred comes back pending, the
 * body suspends its call with a journal of what finished, and a resume runs it again with that
 * journal and the decisions for its sub-calls.
 */
import { afterEach, describe, expect, test } from 'vitest'
import { createSuspension, defineTool, SuspensionError, type BatchOutcome, type JsonValue, type SubCallRequest, type ToolResult } from '@deepseek-ai/dsh-tools'
import { createHarness, type Harness } from '@deepseek-ai/dsh-tool-testkit'
import { registerAskPolicy, registerSuspendTools, TEST_KEY } from './fixtures/suspend-tools'

let h: Harness
let runs: string[]
/** What each run of `fan_out`'s body saw in `exec.suspension`. */
let seen: JsonValue[]
afterEach(async () => {
  await h?.dispose()
})

function suspended(outcome: BatchOutcome): Extract<BatchOutcome, { status: 'suspended' }> {
  if (outcome.status !== 'suspended') throw new Error(`expected a suspended outcome, got ${JSON.stringify(outcome)}`)
  return outcome
}

async function setup(): Promise<void> {
  runs = []
  seen = []
  h = await createHarness()
  registerSuspendTools(h.ctx, runs)
  registerAskPolicy(h.ctx, () => ({ type: 'defer' }))
  const pipeline = h.ctx.tools.pipeline
  h.ctx.tools.register(
    defineTool({
      name: 'fan_out',
      description: 'Runs echo for each comma-separated text as a sub-call.',
      parameters: { texts: { type: 'string', required: true }, plain: { type: 'boolean' } },
      output: { schema: { type: 'json' }, render: (_a, v) => [{ type: 'text', text: JSON.stringify(v) }] },
      async execute(args, exec) {
        const resumed = exec.suspension?.resumed
        seen.push(exec.suspension === undefined ? 'no suspension' : resumed === undefined ? 'first run' : (JSON.parse(JSON.stringify(resumed)) as JsonValue))
        const done: Record<string, string> = { ...((resumed?.journal ?? {}) as Record<string, string>) }
        const runner = pipeline.createRunner({ scope: exec.scope, signal: exec.signal, parent: exec, suspendable: true, ...(resumed === undefined ? {} : { decisions: resumed.decisions }) })
        const texts = args.texts.split(',')
        const pending: SubCallRequest[] = []
        await Promise.all(
          texts.map(async (text, i) => {
            const callId = `${exec.callId}:code:${i + 1}`
            if (callId in done) return
            if (args.plain === true) {
              // `submit` has no pending answer: a deferral fails the sub-call closed.
              const result = await runner.submit({ callId, name: 'echo', arguments: { text } })
              done[callId] = result.isError ? `${result.error.info.code}: ${result.error.message}` : String(result.value)
              return
            }
            const outcome = await runner.submitOutcome!({ callId, name: 'echo', arguments: { text } })
            if (outcome.status === 'pending') pending.push(outcome.pending)
            else done[callId] = outcome.result.isError ? `error: ${outcome.result.error.message}` : String(outcome.result.value)
          }),
        )
        if (pending.length > 0) exec.suspension!.suspend({ journal: done, pending })
        return texts.map((_, i) => done[`${exec.callId}:code:${i + 1}`] as string)
      },
    }),
  )
}

const fanOut = (texts: string, callId = 'f') => ({ callId, name: 'fan_out', arguments: { texts } })
const suspension = () => createSuspension({ keys: { k1: TEST_KEY }, signWith: 'k1' })
const value = (r: ToolResult | undefined) => (r === undefined ? 'pending' : r.isError ? r.error.info.code : r.value)

describe('a body that suspends (exec.suspension)', () => {
  test('deferred sub-calls come back pending; the call is pending with their requests and its journal', async () => {
    await setup()
    const s = suspension()
    const out = suspended(await h.tools.executeSuspendable({ calls: [fanOut('x,ask-1,ask-2')], suspension: s }))
    const request = (n: number, text: string) => ({ callId: `f:code:${n}`, toolName: 'echo', arguments: { text }, reason: `check f:code:${n}` })
    expect(out.pending).toEqual([{ callId: 'f', index: 0, toolName: 'fan_out', arguments: { texts: 'x,ask-1,ask-2' }, status: 'awaiting-approval', subCalls: [request(2, 'ask-1'), request(3, 'ask-2')] }])
    expect(out.state.payload.calls[0]).toMatchObject({ status: 'awaiting-approval', journal: { 'f:code:1': 'echo(x)' }, subCalls: [request(2, 'ask-1'), request(3, 'ask-2')] })
    expect([runs, seen]).toEqual([['echo:x'], ['first run']])
  })

  test('resume hands the body its journal, the decisions and the pending requests; partial decisions suspend again; each body runs once', async () => {
    await setup()
    const s = suspension()
    const out = suspended(await h.tools.executeSuspendable({ calls: [fanOut('x,ask-1,ask-2')], suspension: s }))
    const state = JSON.parse(JSON.stringify(out.state)) as typeof out.state
    const again = suspended(await h.tools.resume({ state, decisions: { 'f:code:2': { type: 'approve' } }, suspension: s }))
    expect(again.pending[0]?.subCalls?.map((r) => r.callId)).toEqual(['f:code:3'])
    expect(seen[1]).toEqual({
      journal: { 'f:code:1': 'echo(x)' },
      decisions: { 'f:code:2': { type: 'approve' } },
      pending: [
        { callId: 'f:code:2', toolName: 'echo', arguments: { text: 'ask-1' }, reason: 'check f:code:2' },
        { callId: 'f:code:3', toolName: 'echo', arguments: { text: 'ask-2' }, reason: 'check f:code:3' },
      ],
    })
    const done = await h.tools.resume({ state: again.state, decisions: { 'f:code:3': { type: 'reject', reason: 'no' } }, suspension: s })
    expect(done.status).toBe('complete')
    expect(done.results.map(value)).toEqual([['echo(x)', 'echo(ask-1)', 'error: no']])
    expect(runs).toEqual(['echo:x', 'echo:ask-1'])
    await expect(h.tools.resume({ state, decisions: { 'f:code:2': { type: 'approve' } }, suspension: s })).rejects.toMatchObject({ code: 'STATE_REPLAYED' })
  })

  test('a decision for the suspended call itself is refused, naming its sub-calls', async () => {
    await setup()
    const s = suspension()
    const out = suspended(await h.tools.executeSuspendable({ calls: [fanOut('ask-1')], suspension: s }))
    const refused = await h.tools.resume({ state: out.state, decisions: { f: { type: 'approve' } }, suspension: s }).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(SuspensionError)
    expect([(refused as SuspensionError).code, (refused as SuspensionError).message]).toEqual(['DECISION_INVALID', 'DECISION_INVALID: no pending call of this state has id "f" (pending: f:code:1) (at /decisions/f)'])
  })

  test('a sub-call claimed by another resume fails ALREADY_EXECUTED and does not run', async () => {
    await setup()
    const s = suspension()
    const out = suspended(await h.tools.executeSuspendable({ calls: [fanOut('ask-1')], suspension: s }))
    await s.ledger.claimCall(out.state.payload.suspensionId, 'f:code:1', out.state.payload.expiresAt)
    const done = await h.tools.resume({ state: out.state, decisions: { 'f:code:1': { type: 'approve' } }, suspension: s })
    expect(done.results.map(value)).toEqual([['error: Tool "echo" was already run by another resume of this batch; it was not run again and its outcome is not known here']])
    expect(runs).toEqual([])
  })

  test('outside a suspendable batch: no exec.suspension; a deferred sub-call of submit() fails closed', async () => {
    await setup()
    const [r] = await h.tools.execute({ calls: [fanOut('x')] })
    expect([value(r), seen]).toEqual([['echo(x)'], ['no suspension']])
    const out = await h.tools.executeSuspendable({ calls: [{ callId: 'p', name: 'fan_out', arguments: { texts: 'ask-1', plain: true } }], suspension: suspension() })
    expect([out.status, out.results.map(value)]).toEqual(['complete', [['TOOL_DENIED: Tool "echo" needs approval and its approval was deferred, but this batch cannot suspend']]])
    expect(runs).toEqual(['echo:x'])
  })

  test('suspend() refuses a journal that is not JSON and an empty pending list, naming the field', async () => {
    await setup()
    const problems: string[] = []
    h.ctx.tools.register(
      defineTool({
        name: 'bad_suspend',
        description: 'Suspends wrongly.',
        parameters: {},
        output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
        execute(_args, exec) {
          const pending = [{ callId: 'b:code:1', toolName: 'echo', arguments: {} }]
          for (const input of [{ journal: { n: Number.NaN }, pending }, { journal: 1, pending: [] }, { journal: 1, pending: [{ callId: '', toolName: 'echo', arguments: {} }] }]) {
            try {
              exec.suspension!.suspend(input as never)
            } catch (error) {
              problems.push((error as Error).message)
            }
          }
          return 'done'
        },
      }),
    )
    const out = await h.tools.executeSuspendable({ calls: [{ callId: 'b', name: 'bad_suspend', arguments: {} }], suspension: suspension() })
    expect(out.status).toBe('complete')
    expect(problems).toEqual([
      'exec.suspension.suspend() of "bad_suspend": /journal must be lossless JSON (/n: NaN is not a JSON number)',
      'exec.suspension.suspend() of "bad_suspend": /pending must be a non-empty array of { callId, toolName, arguments, reason? }',
      'exec.suspension.suspend() of "bad_suspend": /pending/0/callId must be a non-empty string',
    ])
  })
})
