/** In a durable batch the budget runs from the call's journaled start (`exec.durableStartedAt`): a replay after a restart gets what is left, not a fresh budget. */
import { afterEach, expect, test } from 'vitest'
import { setTimeout as sleep } from 'node:timers/promises'
import { defineTool, toolDefinitionHash, type DurableContext } from '@deepseek-ai/dsh-tools'
import { call, createHarness, type Harness } from '@deepseek-ai/dsh-tool-testkit'
import { TimeoutPolicy } from '@deepseek-ai/dsh-tool-call-timeout-policy'

let h: Harness
afterEach(async () => {
  await h?.dispose()
})

test('a call journaled as started 900 ms ago with a 1,000 ms budget times out after what is left', async () => {
  h = await createHarness()
  await h.ctx.plugin(TimeoutPolicy, {})
  const tool = defineTool({
    name: 'slow',
    description: 'Waits 400 ms',
    parameters: {},
    timeoutMs: 1000,
    idempotent: true,
    output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
    async execute(_a, exec) {
      await sleep(400, undefined, { signal: exec.signal })
      return 'done'
    },
  })
  h.ctx.tools.register(tool)
  const journal = new Map<string, unknown>([['dsh:start:wf:1/c1', { startedAt: Date.now() - 900, tool: toolDefinitionHash(tool) }]])
  const durable: DurableContext = {
    engine: 'map',
    key: 'wf:1',
    step: async (name, fn) => (journal.has(name) ? journal.get(name) : fn(new AbortController().signal)),
  }
  const [replayed] = await h.execute([call('slow', {}, 'c1')], { durable })
  expect(replayed).toMatchObject({ isError: true, error: { message: 'tool call timed out after 1000ms', info: { code: 'TOOL_TIMEOUT' } } })
  const [fresh] = await h.execute([call('slow', {}, 'c2')], { durable })
  expect(fresh).toMatchObject({ isError: false, value: 'done' })
})
