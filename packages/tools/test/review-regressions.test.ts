/**
 * Regressions found by a fresh-eyes review of the core (each was a failing test first):
 * contained async listeners, fail-closed async guards, contexts kept and dropped correctly,
 * images kept by the content cap, throwing restriction predicates, lossless repair, malformed
 * post-execute contexts, and a body that tries to replace its signal.
 */
import { afterEach, expect, test } from 'vitest'
import { defineTool, defineRawTool } from '@deepseek-ai/dsh-tools'
import { call, createHarness, type Harness } from '@deepseek-ai/dsh-tool-testkit'

const code = (r: { isError: boolean; error?: { info?: { code: string } } }) => (r.isError ? r.error?.info?.code : 'ok')
let h: Harness
afterEach(async () => { await h?.dispose() })

const echo = defineTool({
  name: 'echo', description: 'e', parameters: { t: { type: 'string' } },
  output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
  execute: (args) => args.t ?? '',
})

test('R1 an async tools/result listener that rejects is contained (no unhandled rejection)', async () => {
  h = await createHarness()
  h.ctx.tools.register(echo)
  const unhandled: unknown[] = []
  const on = (e: unknown) => unhandled.push(e)
  process.on('unhandledRejection', on)
  h.ctx.on('tools/result', async () => { throw new Error('listener failed') })
  await h.execute([call('echo', { t: 'x' }, 'c1')])
  await new Promise((r) => setTimeout(r, 20))
  process.off('unhandledRejection', on)
  expect(unhandled).toEqual([])
})

test('R2 an async guard that denies must not fail open', async () => {
  h = await createHarness()
  h.ctx.tools.register(echo)
  h.ctx.tools.guard((async () => 'nope') as never)
  const [r] = await h.execute([call('echo', { t: 'x' }, 'c1')])
  expect(code(r!)).toBe('TOOL_DENIED')
})

test('R3 a post-execute value replacement keeps the contexts the body attached', async () => {
  h = await createHarness()
  h.ctx.tools.register({ ...echo, execute: (_a, exec) => { exec.attachContext({ source: 'body', content: [{ type: 'text', text: 'ctx' }] }); return 'v' } })
  h.ctx.on('tools/post-execute', async (_e, _d, next) => { await next(); return { type: 'accept', value: 'replaced' } })
  const [r] = await h.execute([call('echo', {}, 'c1')])
  expect(code(r!)).toBe('ok')
  expect(r!.contexts?.map((c) => c.source)).toEqual(['body'])
})

test('R4 nothing a body produced reaches an ABORTED result (contexts included)', async () => {
  h = await createHarness()
  const ac = new AbortController()
  h.ctx.tools.register({ ...echo, execute: async (_a, exec) => { exec.attachContext({ source: 'body', content: [{ type: 'text', text: 'late' }] }); ac.abort(); return 'v' } })
  const [r] = await h.execute([call('echo', {}, 'c1')], { signal: ac.signal })
  expect(code(r!)).toBe('ABORTED')
  expect(r!.contexts).toBeUndefined()
})

test('R5 content cap keeps image blocks ("Image blocks pass unchanged")', async () => {
  h = await createHarness({ registry: { contentLimits: { maxChars: 10 } } })
  h.ctx.tools.register(defineTool({
    name: 'pic', description: 'p', parameters: {},
    output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }] },
    execute: () => 'x'.repeat(100),
  }))
  const [r] = await h.execute([call('pic', {}, 'c1')])
  expect(r!.content.map((b) => b.type)).toEqual(['text', 'image'])
})

test('R6 a throwing restrict() predicate does not reject execute()', async () => {
  h = await createHarness()
  h.ctx.tools.register(echo)
  const a = h.agent('a1')
  a.ctx.tools.restrict((name) => { if (name === 'echo') throw new Error('mask bug'); return true })
  const results = await h.execute([call('echo', { t: 'x' }, 'c1')], { agent: a.agent }).catch((e: Error) => `rejected: ${e.message}`)
  expect(Array.isArray(results)).toBe(true)
})

test('R7 jsonStrings repair never lets invalid arguments reach the body', async () => {
  h = await createHarness({ registry: { repair: { jsonStrings: true } } })
  const seen: unknown[] = []
  h.ctx.tools.register(defineRawTool({
    name: 'cfg', description: 'c',
    inputSchema: { type: 'object', properties: { opts: { type: 'object' } }, required: ['opts'] },
    execute: (args) => { seen.push(args.opts); return 'ok' },
  }))
  const [r] = await h.execute([call('cfg', JSON.stringify({ opts: '{"x":1e999}' }), 'c1')])
  expect(seen).toEqual([])
  expect(code(r!)).toBe('INVALID_ARGS')
})

test('R8 a schema that registers but fails to compile gives a result, not a rejection', async () => {
  h = await createHarness()
  const bad = [
    { type: 'object', properties: { a: { $ref: '#/$defs/nope' } } },
    { type: 'object', properties: { a: { type: 'string', pattern: '(' } } },
    { type: 'object', properties: { a: { $ref: 'https://example.com/x.json' } } },
  ]
  const out: string[] = []
  for (const [i, inputSchema] of bad.entries()) {
    try {
      h.ctx.tools.register(defineRawTool({ name: `t${i}`, description: 'd', inputSchema: inputSchema as never, execute: () => 'ok' }))
    } catch (e) { out.push(`t${i} register threw: ${(e as Error).message}`); continue }
    const r = await h.execute([call(`t${i}`, { a: 'x' }, 'c1'), call('nope', {}, 'c2')]).then((rs) => rs.map((x) => code(x)).join(','), (e: Error) => `REJECTED ${e.message}`)
    out.push(`t${i}: ${r}`)
  }
  expect(out.filter((l) => l.includes('REJECTED'))).toEqual([])
})

test('R9 a malformed post-execute context is contained: tools/result and the session log still see the call', async () => {
  h = await createHarness()
  h.ctx.tools.register(echo)
  const seen: string[] = []
  h.ctx.on('tools/post-execute', async (_e, _d, next) => ({ ...(await next()), contexts: [{ source: 'audit', content: 'plain text' as never }] }))
  h.ctx.on('tools/result', (r) => { seen.push(r.callId) })
  const { agent, log } = h.agentWithLog('a')
  const [r] = await h.execute([call('echo', { t: 'x' }, 'c1')], { agent })
  expect(seen).toEqual(['c1'])
  expect(log.trace()).toEqual(['tool/call:c1', 'tool/result:c1'])
})

test('R10 a body cannot replace exec.signal (only tools/execute wrappers may)', async () => {
  h = await createHarness()
  const other = new AbortController().signal
  let threw = false
  h.ctx.tools.register({ ...echo, execute: (_a, exec) => { try { (exec as { signal: AbortSignal }).signal = other } catch { threw = true } return 'v' } })
  let postSignal: AbortSignal | undefined
  h.ctx.on('tools/post-execute', (exec, _d, next) => { postSignal = exec.signal; return next() })
  await h.execute([call('echo', {}, 'c1')])
  expect([threw, postSignal === other]).toEqual([true, false])
})
