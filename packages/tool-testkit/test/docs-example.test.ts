// The complete example of docs/testing.md (copied there verbatim): testing a tool and a policy
// with @deepseek-ai/dsh-tool-testkit.
import { afterEach, describe, expect, test } from 'vitest'
import type { Context } from 'cordis'
import { defineTool } from '@deepseek-ai/dsh-tools'
import { TimeoutPolicy } from '@deepseek-ai/dsh-tool-call-timeout-policy'
import {
  call,
  createHarness,
  Gate,
  gatedTool,
  ManualClock,
  ScriptedApproval,
  StageTracer,
  type Harness,
} from '@deepseek-ai/dsh-tool-testkit'

// ---- The code under test: a tool and a policy plugin ---------------------------------------

const notes = new Map([['todo', 'buy milk']])

/** A tool: reads a note by name. */
const readNote = defineTool({
  name: 'read_note',
  description: 'Read a note by name.',
  parameters: { name: { type: 'string', required: true, minLength: 1 } },
  output: { schema: { type: 'string' }, render: (_args, text) => [{ type: 'text', text }] },
  isConcurrencySafe: () => true,
  timeoutMs: 2_000,
  async execute(args, exec) {
    if (exec.signal.aborted) throw exec.signal.reason
    const text = notes.get(args.name)
    if (text === undefined) throw new Error(`no note named "${args.name}"`)
    return text
  },
})

/** A policy: denies `write_*` tools outright and asks before any `delete_*` tool runs. */
const GuardedWrites = {
  name: 'guarded-writes',
  apply(ctx: Context) {
    ctx.on('tools/pre-execute', (exec, next) => {
      if (exec.name.startsWith('write_')) return { type: 'deny', reason: 'this deployment is read-only' }
      if (exec.name.startsWith('delete_')) return { type: 'ask', reason: `delete ${JSON.stringify(exec.arguments)}` }
      return next()
    })
  },
}

// ---- The tests ---------------------------------------------------------------------------------

const text = (r: { content: readonly { type: string; text?: string }[] }) => r.content.map((b) => b.text ?? '').join('')
const code = (r: { isError: boolean; error?: { info?: { code: string } } }) => (r.isError ? r.error?.info?.code : 'ok')

let h: Harness
afterEach(async () => {
  await h.dispose() // quiescent: waits for running batches, removes every listener
})

describe('read_note (a tool)', () => {
  test('answers, rejects bad arguments with a pointer, and reports its own failure', async () => {
    h = await createHarness()
    h.ctx.tools.register(readNote)
    const results = await h.execute([
      call('read_note', { name: 'todo' }, 'c1'),
      call('read_note', { name: '' }, 'c2'),
      call('read_note', { name: 'missing' }, 'c3'),
      call('read_notes', {}, 'c4'),
    ])
    expect(results.map((r) => [r.callId, code(r), text(r)])).toEqual([
      ['c1', 'ok', 'buy milk'],
      ['c2', 'INVALID_ARGS', 'Error: Invalid arguments for tool "read_note": /name: must NOT have fewer than 1 characters'],
      ['c3', 'TOOL_FAILED', 'Error: no note named "missing"'],
      ['c4', 'UNKNOWN_TOOL', 'Error: Unknown tool "read_notes". Available tools: read_note'],
    ])
  })

  test('a session log records what the model sent and saw, in model order', async () => {
    h = await createHarness()
    h.ctx.tools.register(readNote)
    const { agent, log } = h.agentWithLog('assistant')
    await h.execute([call('read_note', '{"name":"todo"}', 'c1'), call('read_note', '{"name":', 'c2')], { agent })
    expect(log.trace()).toEqual(['tool/call:c1', 'tool/call:c2', 'tool/result:c1', 'tool/result:c2'])
    expect(log.outcomes()).toEqual([['c1', 'ok'], ['c2', 'INVALID_ARGS']])
    expect(log.calls()[1]!.arguments).toBe('{"name":') // exactly as emitted
  })

  test('it runs next to other parallel-safe calls, and results stay in call order', async () => {
    h = await createHarness({ native: { maxParallelCalls: 2 } })
    const gate = new Gate()
    h.ctx.tools.register(readNote)
    h.ctx.tools.register(gatedTool(gate))
    const pending = h.execute([call('gated', { id: 'slow' }, 'g1'), call('read_note', { name: 'todo' }, 'r1')])
    await gate.started(1)
    gate.release('g1')
    const results = await pending
    expect(results.map((r) => r.callId)).toEqual(['g1', 'r1'])
    expect(gate.peak).toBe(1)
  })

  test('its 2 s budget is enforced by the timeout policy, on a manual clock', async () => {
    const clock = new ManualClock()
    const uninstall = clock.install()
    try {
      h = await createHarness({ plugins: [{ plugin: TimeoutPolicy, config: {} }] })
      // A variant whose body waits until its signal fires (a definition is a plain object).
      h.ctx.tools.register({ ...readNote, name: 'slow_note', execute: (_args, exec) => new Promise<string>((_ok, fail) => exec.signal.addEventListener('abort', () => fail(exec.signal.reason))) })
      const [r] = await clock.settle(h.execute([call('slow_note', { name: 'todo' }, 't1')]))
      expect([clock.now, text(r!)]).toEqual([2_000, 'Error: tool call timed out after 2000ms'])
      expect(clock.pending).toBe(0)
    } finally {
      uninstall()
    }
  })
})

describe('GuardedWrites (a policy)', () => {
  const writeNote = defineTool({
    name: 'write_note',
    description: 'Write a note.',
    parameters: { name: { type: 'string', required: true }, text: { type: 'string', required: true } },
    output: { schema: { type: 'null' }, render: () => [{ type: 'text', text: 'written' }] },
    execute: () => null,
  })
  const deleteNote = defineTool({
    name: 'delete_note',
    description: 'Delete a note.',
    parameters: { name: { type: 'string', required: true } },
    output: { schema: { type: 'null' }, render: () => [{ type: 'text', text: 'deleted' }] },
    execute: () => null,
  })

  test('denies writes, asks before deletes, leaves reads alone — and never runs a denied body', async () => {
    h = await createHarness({ plugins: [{ plugin: GuardedWrites }] })
    const tracer = new StageTracer()
    tracer.install(h.ctx)
    for (const tool of [readNote, writeNote, deleteNote]) h.ctx.tools.register(tracer.trace(tool))
    const approval = new ScriptedApproval((request) => (request.exec.arguments.name === 'todo' ? { type: 'reject', reason: 'keep the todo list' } : { type: 'approve' }))
    h.ctx.tools.approval(approval)

    const results = await h.execute([
      call('read_note', { name: 'todo' }, 'r'),
      call('write_note', { name: 'x', text: 'y' }, 'w'),
      call('delete_note', { name: 'todo' }, 'd1'),
      call('delete_note', { name: 'old' }, 'd2'),
    ])
    expect(results.map((r) => [r.callId, code(r), text(r)])).toEqual([
      ['r', 'ok', 'buy milk'],
      ['w', 'TOOL_DENIED', 'Error: this deployment is read-only'],
      ['d1', 'TOOL_DENIED', 'Error: keep the todo list'],
      ['d2', 'ok', 'deleted'],
    ])
    expect(approval.requests.map((r) => [r.exec.callId, r.reason])).toEqual([
      ['d1', 'delete {"name":"todo"}'],
      ['d2', 'delete {"name":"old"}'],
    ])
    // No body ran. (No 'pre' either: the policy, loaded first, answered without calling next(),
    // so the tracer's own pre-execute listener further down the waterfall never ran.)
    expect(tracer.stagesOf('w')).toEqual(['post', 'finalize', 'result'])
    expect(tracer.stagesOf('d2')).toContain('body')
  })

  test('applies only where it is loaded: another agent’s preset without it is unaffected', async () => {
    h = await createHarness()
    const locked = h.preset('locked')
    await locked.plugin(GuardedWrites)
    h.ctx.tools.register(writeNote)
    const inLocked = h.agent('a1', { parent: locked })
    const elsewhere = h.agent('a2')
    const [denied] = await h.execute([call('write_note', { name: 'x', text: 'y' }, 'w1')], { agent: inLocked.agent })
    const [allowed] = await h.execute([call('write_note', { name: 'x', text: 'y' }, 'w2')], { agent: elsewhere.agent })
    expect([code(denied!), code(allowed!)]).toEqual(['TOOL_DENIED', 'ok'])
  })
})
