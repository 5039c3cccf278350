/**
 * The in-memory session log and the scripted approval service, used as a test author would.
 */
import { afterEach, describe, expect, test } from 'vitest'
import type { ToolResult } from '@deepseek-ai/dsh-tools'
import { call, createHarness, echoTool, failingTool, MemorySessionLog, ScriptedApproval, type Harness } from '@deepseek-ai/dsh-tool-testkit'

let h: Harness
afterEach(async () => {
  await h?.dispose()
})

const code = (r: ToolResult | undefined) => (r?.isError ? r.error.info?.code : 'ok')
const text = (r: ToolResult | undefined) => r?.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
const tick = () => new Promise((r) => setImmediate(r))

describe('MemorySessionLog', () => {
  test('records tool/call with the raw arguments and tool/result with rendered content, in model order', async () => {
    h = await createHarness()
    h.ctx.tools.register(echoTool())
    h.ctx.tools.register(failingTool())
    const log = new MemorySessionLog()
    await h.execute([call('echo', '{"text":"a"}', 'c1'), call('fail', {}, 'c2'), call('ghost', '', 'c3')], { log })
    expect(log.trace()).toEqual(['tool/call:c1', 'tool/call:c2', 'tool/call:c3', 'tool/result:c1', 'tool/result:c2', 'tool/result:c3'])
    expect(log.calls().map((e) => e.arguments)).toEqual(['{"text":"a"}', '{}', ''])
    expect(log.resultFor('c1')).toEqual({ type: 'tool/result', callId: 'c1', name: 'echo', isError: false, content: [{ type: 'text', text: '{"text":"a"}' }] })
    expect(log.resultFor('c2')?.error).toEqual({ message: 'boom', info: { name: 'Error', code: 'TOOL_FAILED' } })
    expect(log.resultFor('nope')).toBeUndefined()
    expect(log.outcomes()).toEqual([['c1', 'ok'], ['c2', 'TOOL_FAILED'], ['c3', 'UNKNOWN_TOOL']])
    expect(log.forCall('c2').map((e) => e.type)).toEqual(['tool/call', 'tool/result'])
    expect(log.results()).toHaveLength(3)
    expect(Object.isFrozen(log.events[0])).toBe(true)
    log.clear()
    expect(log.events).toEqual([])
  })

  test('without a log (and an agent without one) nothing is recorded', async () => {
    h = await createHarness()
    h.ctx.tools.register(echoTool())
    const log = new MemorySessionLog()
    const { agent } = h.agent('quiet')
    await h.execute([call('echo', {}, 'c1')], { agent })
    expect(log.events).toEqual([])
  })
})

describe('ScriptedApproval', () => {
  const askFor = (h: Harness, reason?: string) =>
    h.ctx.on('tools/pre-execute', (exec, next) => (exec.name === 'echo' ? (reason === undefined ? { type: 'ask' } : { type: 'ask', reason }) : next()))

  test('approve runs the call; reject denies it with the reason; every request is recorded', async () => {
    h = await createHarness()
    h.ctx.tools.register(echoTool())
    askFor(h, 'writes a file')
    const approval = new ScriptedApproval({ type: 'approve' })
    h.ctx.tools.approval(approval)
    const [ok] = await h.execute([call('echo', {}, 'c1')])
    approval.script = { type: 'reject', reason: 'not today' }
    const [no] = await h.execute([call('echo', {}, 'c2')])
    expect(code(ok)).toBe('ok')
    expect(no).toMatchObject({ isError: true, error: { message: 'not today', info: { code: 'TOOL_DENIED', reason: 'not today', toolName: 'echo' } } })
    expect(text(no)).toBe('Error: not today')
    expect(approval.requests.map((r) => [r.exec.callId, r.reason])).toEqual([
      ['c1', 'writes a file'],
      ['c2', 'writes a file'],
    ])
  })

  test('a function script decides per request', async () => {
    h = await createHarness()
    h.ctx.tools.register(echoTool())
    askFor(h)
    h.ctx.tools.approval(new ScriptedApproval((r) => (r.exec.arguments.text === 'safe' ? { type: 'approve' } : { type: 'reject' })))
    const results = await h.execute([call('echo', { text: 'safe' }, 'a'), call('echo', { text: 'rm -rf' }, 'b')])
    expect(results.map(text)).toEqual(['{"text":"safe"}', 'Error: Tool "echo" was not approved'])
  })

  test('hold keeps requests pending until answered (oldest first, or all)', async () => {
    h = await createHarness()
    h.ctx.tools.register(echoTool())
    askFor(h)
    const approval = new ScriptedApproval('hold')
    h.ctx.tools.approval(approval)
    const first = h.execute([call('echo', {}, 'a')])
    const second = h.execute([call('echo', {}, 'b')])
    await tick()
    expect(approval.pending).toBe(2)
    expect(approval.answer({ type: 'reject', reason: 'first' })).toBe(1)
    expect(approval.answer({ type: 'approve' }, { all: true })).toBe(1)
    expect(approval.answer({ type: 'approve' })).toBe(0)
    expect([code((await first)[0]), code((await second)[0])]).toEqual(['TOOL_DENIED', 'ok'])
  })

  test('an abort while held withdraws the request: ABORTED_BEFORE_DISPATCH, nothing left pending', async () => {
    h = await createHarness()
    h.ctx.tools.register(echoTool())
    askFor(h)
    const approval = new ScriptedApproval('hold')
    h.ctx.tools.approval(approval)
    const controller = new AbortController()
    const pending = h.execute([call('echo', {}, 'a')], { signal: controller.signal })
    await tick()
    expect(approval.pending).toBe(1)
    controller.abort()
    expect(code((await pending)[0])).toBe('ABORTED_BEFORE_DISPATCH')
    expect(approval.pending).toBe(0)
  })
})
