import { afterEach, describe, expect, test } from 'vitest'
import { ToolRegistrationError, type ToolExecution, type ToolResult } from '@deepseek-ai/dsh-tools'
import { call, createHarness, echoTool, type Harness } from '@deepseek-ai/dsh-tool-testkit'

// `ctx.tools.on(name, listener)`: a pipeline listener with `ctx.on`'s semantics (one list, order,
// scope filter, fiber disposal) but without cordis' per-call argument tracing.

let h: Harness
afterEach(async () => {
  await h?.dispose()
})

describe('ctx.tools.on', () => {
  test('joins the same ordered list as ctx.on, prepend included', async () => {
    h = await createHarness()
    h.ctx.tools.register(echoTool())
    const order: string[] = []
    const listener = (label: string) => (_exec: ToolExecution, next: () => Promise<import('@deepseek-ai/dsh-tools').PolicyDecision>) => {
      order.push(label)
      return next()
    }
    h.ctx.on('tools/pre-execute', listener('on-1'))
    h.ctx.tools.on('tools/pre-execute', listener('tools-1'))
    h.ctx.on('tools/pre-execute', listener('on-2'))
    h.ctx.tools.on('tools/pre-execute', listener('tools-first'), { prepend: true })
    h.ctx.tools.on('tools/pre-execute', listener('tools-very-first'), true)
    const [r] = await h.ctx.tools.execute({ calls: [call('echo', { text: 'x' })] })
    expect(r!.isError).toBe(false)
    expect(order).toEqual(['tools-very-first', 'tools-first', 'on-1', 'tools-1', 'on-2'])
  })

  test('a wrapper sees the pipeline objects themselves and may replace the value', async () => {
    h = await createHarness()
    h.ctx.tools.register(echoTool())
    const seen: ToolExecution[] = []
    h.ctx.tools.on('tools/execute', async (exec, next) => {
      seen.push(exec)
      const value = await next()
      return { wrapped: value }
    })
    const results: ToolResult[] = []
    h.ctx.tools.on('tools/result', (result) => void results.push(result))
    const [r] = await h.ctx.tools.execute({ calls: [call('echo', { text: 'hi' }, 'c1')] })
    expect(r!.isError ? r!.error.message : r!.value).toEqual({ wrapped: { text: 'hi' } })
    expect(seen.map((e) => [e.callId, e.name, e.arguments])).toEqual([['c1', 'echo', { text: 'hi' }]])
    expect(results).toEqual([r])
  })

  test('is scope-filtered by the registering context', async () => {
    h = await createHarness()
    h.ctx.tools.register(echoTool())
    const a1 = h.agent('a1')
    const a2 = h.agent('a2')
    const calls: string[] = []
    a1.ctx.tools.on('tools/pre-execute', (exec, next) => {
      calls.push(`${exec.agent?.id ?? 'none'}:${exec.callId}`)
      return next()
    })
    await h.ctx.tools.execute({ calls: [call('echo', {}, 'global')] })
    await h.ctx.tools.execute({ calls: [call('echo', {}, 'in-a1')], agent: a1.agent })
    await h.ctx.tools.execute({ calls: [call('echo', {}, 'in-a2')], agent: a2.agent })
    expect(calls).toEqual(['a1:in-a1'])
  })

  test('is removed by its disposer and with the plugin that registered it', async () => {
    h = await createHarness()
    h.ctx.tools.register(echoTool())
    const seen: string[] = []
    const dispose = h.ctx.tools.on('tools/result', (result) => void seen.push(`direct:${result.callId}`))
    const fiber = await h.ctx.plugin({
      name: 'observer',
      inject: ['tools'],
      apply: (ctx) => void ctx.tools.on('tools/result', (result) => void seen.push(`plugin:${result.callId}`)),
    })
    await h.ctx.tools.execute({ calls: [call('echo', {}, 'c1')] })
    await dispose()
    await h.ctx.tools.execute({ calls: [call('echo', {}, 'c2')] })
    await fiber.dispose()
    await h.ctx.tools.execute({ calls: [call('echo', {}, 'c3')] })
    expect(seen).toEqual(['direct:c1', 'plugin:c1', 'plugin:c2'])
    expect((h.ctx.root.events._hooks as Record<string, unknown>)['tools/result']).toBeUndefined()
  })

  test('rejects an unknown event or a listener that is not a function', async () => {
    h = await createHarness()
    const on = h.ctx.tools.on.bind(h.ctx.tools) as (name: string, listener: unknown) => unknown
    expect(() => on('tools/finished', () => undefined)).toThrow(ToolRegistrationError)
    expect(() => on('tools/finished', () => undefined)).toThrow(
      'tools.on() takes one of "tools/pre-execute", "tools/execute", "tools/post-execute", "tools/result", "tools/progress", "tools/preliminary", "tools/batch-start", "tools/batch-end", "tools/change", got "tools/finished"',
    )
    expect(() => on('tools/execute', 'next')).toThrow('tools.on("tools/execute") takes a function, got string')
  })
})
