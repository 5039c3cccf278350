import { expect, test } from 'vitest'
import { call, createHarness, echoTool } from '@deepseek-ai/dsh-tool-testkit'

const h = await createHarness() // registry + native executor (+ plugins)
h.ctx.tools.register(echoTool())
const [result] = await h.execute([call('echo', { text: 'hi' }, 'c1')])
// result → { callId: 'c1', isError: false, value: { text: 'hi' }, content: [{ type: 'text', text: '{"text":"hi"}' }], meta: { toolName: 'echo' } }
await h.dispose() // waits for running batches; removes every listener

// The README's quick start (above, verbatim) does what its comments say.
test('README quick start', () => {
  expect(result).toEqual({ callId: 'c1', isError: false, value: { text: 'hi' }, content: [{ type: 'text', text: '{"text":"hi"}' }], meta: { toolName: 'echo' } })
  expect([h.disposed, h.listeners()]).toEqual([true, {}])
})
