/**
 * Policy-authored texts reach the model verbatim (the contract: "Any thrown or denied call
 * becomes exactly Error: <message>"), block feedback is content, and an observing
 * `finalizeContent` keeps the content. Each test is named after the kind of fault it pins.
 */
import { afterEach, describe, expect, test } from 'vitest'
import { defineRawTool, defineTool, type ContentBlock, type ToolResult } from '@deepseek-ai/dsh-tools'
import { call, createHarness, ScriptedApproval, type Harness } from '@deepseek-ai/dsh-tool-testkit'

let h: Harness
afterEach(async () => {
  await h?.dispose()
})

let bodies = 0
function rm() {
  return defineRawTool({
    name: 'rm',
    description: 'Remove a file.',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
    execute: () => {
      bodies++
      return 'removed'
    },
  })
}

async function one(setup: (h: Harness) => void, signal?: AbortSignal): Promise<ToolResult> {
  h = await createHarness()
  bodies = 0
  h.ctx.tools.register(rm())
  setup(h)
  const [r] = await h.tools.execute({ calls: [call('rm', { path: '/tmp/x' }, 'c1')], ...(signal === undefined ? {} : { signal }) })
  return r!
}

const text = (t: string): ContentBlock[] => [{ type: 'text', text: t }]

describe('policy-authored text is the whole model-facing message (tool name and code in error.info)', () => {
  test('pre-execute deny: Error: <reason>', async () => {
    const r = await one((h) => h.ctx.on('tools/pre-execute', () => ({ type: 'deny', reason: 'not in this workspace' })))
    expect(r).toEqual({
      callId: 'c1',
      isError: true,
      error: { message: 'not in this workspace', info: { name: 'PolicyDenied', code: 'TOOL_DENIED', toolName: 'rm' } },
      content: text('Error: not in this workspace'),
      meta: { toolName: 'rm' },
    })
    expect(bodies).toBe(0)
  })

  test('pre-execute deny with its own info: the author info wins, toolName is added', async () => {
    const r = await one((h) => h.ctx.on('tools/pre-execute', () => ({ type: 'deny', reason: 'outside /work', info: { name: 'Sandbox', code: 'SANDBOX' } })))
    expect(r.isError && r.error).toEqual({ message: 'outside /work', info: { name: 'Sandbox', code: 'SANDBOX', toolName: 'rm' } })
    expect(r.content).toEqual(text('Error: outside /work'))
  })

  test('guard deny: Error: <verdict>', async () => {
    const r = await one((h) => h.ctx.tools.guard(() => 'system files are protected'))
    expect(r.isError && r.error).toEqual({ message: 'system files are protected', info: { name: 'GuardDenied', code: 'TOOL_DENIED', toolName: 'rm' } })
    expect(r.content).toEqual(text('Error: system files are protected'))
  })

  test('a denial kept after an abort: still the author text', async () => {
    const controller = new AbortController()
    const r = await one((h) =>
      h.ctx.on('tools/pre-execute', () => {
        controller.abort()
        return { type: 'deny', reason: 'not in this workspace' }
      }),
    controller.signal)
    expect(r.isError && r.error).toEqual({ message: 'not in this workspace', info: { name: 'PolicyDenied', code: 'TOOL_DENIED', toolName: 'rm' } })
    expect(r.content).toEqual(text('Error: not in this workspace'))
    const c2 = new AbortController()
    const g = await one((h) =>
      h.ctx.tools.guard(() => {
        c2.abort()
        return 'protected path'
      }),
    c2.signal)
    expect(g.content).toEqual(text('Error: protected path'))
  })

  test('approval rejection reason: Error: <reason>, kept as info.reason too', async () => {
    const r = await one((h) => {
      h.ctx.on('tools/pre-execute', () => ({ type: 'ask', reason: 'deletes need a human' }))
      h.ctx.tools.approval(new ScriptedApproval({ type: 'reject', reason: 'keep that file' }))
    })
    expect(r.isError && r.error).toEqual({ message: 'keep that file', info: { name: 'ApprovalRejected', code: 'TOOL_DENIED', reason: 'keep that file', toolName: 'rm' } })
    expect(r.content).toEqual(text('Error: keep that file'))
  })

  test('ask without an approval service: Error: <ask reason>; the library fact goes to info.reason', async () => {
    const r = await one((h) => h.ctx.on('tools/pre-execute', () => ({ type: 'ask', reason: 'deletes need a human' })))
    expect(r.isError && r.error).toEqual({ message: 'deletes need a human', info: { name: 'PolicyDenied', code: 'TOOL_DENIED', reason: 'no approval service is available', toolName: 'rm' } })
    expect(r.content).toEqual(text('Error: deletes need a human'))
  })

  test('library text only where there is no author text', async () => {
    const deny = await one((h) => h.ctx.on('tools/pre-execute', () => ({ type: 'deny', reason: '  ' })))
    expect(deny.content).toEqual(text('Error: Tool "rm" was denied'))
    const guard = await one((h) => h.ctx.tools.guard(() => ''))
    expect(guard.content).toEqual(text('Error: Tool "rm" was denied'))
    const ask = await one((h) => h.ctx.on('tools/pre-execute', () => ({ type: 'ask' })))
    expect(ask.isError && ask.error).toEqual({ message: 'Tool "rm" needs approval and no approval service is available', info: { name: 'PolicyDenied', code: 'TOOL_DENIED', toolName: 'rm' } })
    const reject = await one((h) => {
      h.ctx.on('tools/pre-execute', () => ({ type: 'ask' }))
      h.ctx.tools.approval(new ScriptedApproval({ type: 'reject' }))
    })
    expect(reject.content).toEqual(text('Error: Tool "rm" was not approved'))
  })

  test('block feedback string: the content is the feedback itself', async () => {
    const r = await one((h) => h.ctx.on('tools/post-execute', () => ({ type: 'block', feedback: 'too large, narrow the query' })))
    expect(r).toEqual({
      callId: 'c1',
      isError: true,
      error: { message: 'too large, narrow the query', info: { name: 'PolicyBlocked', code: 'TOOL_BLOCKED', toolName: 'rm' } },
      content: text('too large, narrow the query'),
      meta: { toolName: 'rm' },
    })
  })
})

describe('block feedback is content', () => {
  test('content blocks are the blocked result content; error.message is derived; no value', async () => {
    const feedback: ContentBlock[] = [
      { type: 'text', text: 'too large, narrow the query' },
      { type: 'image', data: 'aGk=', mimeType: 'image/png' },
      { type: 'text', text: 'e.g. add a date range' },
    ]
    const r = await one((h) => h.ctx.on('tools/post-execute', () => ({ type: 'block', feedback })))
    expect(r).toEqual({
      callId: 'c1',
      isError: true,
      error: { message: 'too large, narrow the query\n[image content]\ne.g. add a date range', info: { name: 'PolicyBlocked', code: 'TOOL_BLOCKED', toolName: 'rm' } },
      content: feedback,
      meta: { toolName: 'rm' },
    })
    expect('value' in r).toBe(false)
    expect(Object.isFrozen(r.content[1])).toBe(true)
  })

  test('feedback is capped like rendered content; its message like every policy text', async () => {
    const long = `narrow it ${'z'.repeat(30_000)} please`
    const r = await one((h) => h.ctx.on('tools/post-execute', () => ({ type: 'block', feedback: long })))
    const shown = r.content[0]?.type === 'text' ? r.content[0].text : ''
    expect(shown.startsWith('narrow it zzz')).toBe(true)
    expect(shown.length).toBeLessThan(25_200)
    expect(r.isError && r.error.message.length).toBeLessThanOrEqual(2_000)
  })

  test('empty feedback gives the fixed default message', async () => {
    for (const feedback of [[], '', [{ type: 'text', text: '' }]] as const) {
      const r = await one((h) => h.ctx.on('tools/post-execute', () => ({ type: 'block', feedback })))
      expect(r.isError && r.error).toEqual({ message: 'Tool "rm" result was blocked', info: { name: 'PolicyBlocked', code: 'TOOL_BLOCKED', toolName: 'rm' } })
      expect(r.content).toEqual(text('Error: Tool "rm" result was blocked'))
    }
  })

  test('feedback that is neither a string nor content blocks still fails closed', async () => {
    const r = await one((h) => h.ctx.on('tools/post-execute', () => ({ type: 'block', feedback: [{ type: 'audio' }] }) as never))
    expect(r.isError && r.error).toEqual({
      message: 'Tool "rm" could not be checked by policy (tools/post-execute): a tools/post-execute listener returned { type: "block" } instead of accept or block (with feedback: a string or content blocks)',
      info: { name: 'PolicyError', code: 'TOOL_BLOCKED' },
    })
  })
})

describe('finalizeContent returning undefined keeps the content', () => {
  function observed(seen: string[], result: () => unknown) {
    return defineRawTool({
      name: 'rm',
      description: 'Remove a file.',
      inputSchema: { type: 'object' },
      execute: () => 'removed',
      finalizeContent: ((content: readonly ContentBlock[]) => {
        seen.push(content.map((b) => (b.type === 'text' ? b.text : b.type)).join())
        return result()
      }) as never,
    })
  }

  test('both defineTool forms type an observing finalizer (returning undefined) without a cast', async () => {
    h = await createHarness()
    const seen: string[] = []
    const observe = (content: readonly ContentBlock[]): undefined => void seen.push(String(content.length))
    h.ctx.tools.register(defineRawTool({ name: 'raw_obs', description: 'Raw.', inputSchema: { type: 'object' }, execute: () => 'raw', finalizeContent: observe }))
    h.ctx.tools.register(
      defineTool({ name: 'dsl_obs', description: 'DSL.', parameters: {}, output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] }, execute: () => 'dsl', finalizeContent: observe }),
    )
    const results = await h.execute([call('raw_obs', {}), call('dsl_obs', {})])
    expect(seen).toEqual(['1', '1'])
    expect(results.map((r) => r.content)).toEqual([text('raw'), text('dsl')])
  })

  test('an observing finalizer leaves success and failure content unchanged', async () => {
    h = await createHarness()
    const seen: string[] = []
    h.ctx.tools.register(observed(seen, () => undefined))
    h.ctx.tools.guard((exec) => (exec.callId === 'c2' ? 'no' : undefined))
    const results = await h.execute([call('rm', {}, 'c1'), call('rm', {}, 'c2')])
    expect(seen).toEqual(['removed', 'Error: no'])
    expect(results.map((r) => [r.isError, r.content])).toEqual([
      [false, text('removed')],
      [true, text('Error: no')],
    ])
  })

  test('anything else that is not content is still TOOL_FAILED', async () => {
    h = await createHarness()
    h.ctx.tools.register(observed([], () => 'oops'))
    const [r] = await h.execute([call('rm', {}, 'c1')])
    expect(r!.isError && r!.error).toEqual({
      message: 'Tool "rm" failed to render its result: finalizeContent threw: finalizeContent must return an array of text or image blocks, or undefined to keep the content (got string)',
      info: { name: 'ToolError', code: 'TOOL_FAILED' },
    })
  })
})
