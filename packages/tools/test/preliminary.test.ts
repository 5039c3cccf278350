/**
 * Preliminary results: a body written as an async generator yields preliminary values to
 * `tools/preliminary` observers (in yield order, before the call's `tools/result`) and returns
 * the final value. Cancellation and timeouts close the generator (its `finally` runs); a retry
 * runs a fresh generator; a yield that is not JSON is INVALID_TOOL_OUTPUT; PTC programs see only
 * the final value; nothing is left listening on the caller's signal.
 */
import { afterEach, describe, expect, test } from 'vitest'
import { z } from 'zod'
import type { StandardSchemaV1 } from '@standard-schema/spec'
import { defineTool, type JsonValue, type ToolPreliminaryEvent, type ToolResult } from '@deepseek-ai/dsh-tools'
import { TimeoutPolicy } from '@deepseek-ai/dsh-tool-call-timeout-policy'
import { RetryPolicy } from '@deepseek-ai/dsh-tool-call-retry-policy'
import { createPtcExecutor } from '@deepseek-ai/dsh-tool-executor-ptc'
import { call, createHarness, type Harness } from '@deepseek-ai/dsh-tool-testkit'

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

const text = (r: ToolResult | undefined): string => (r?.content ?? []).map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n')
const outcome = (r: ToolResult | undefined): string => (r === undefined ? 'none' : r.isError ? `${r.error.info.code}: ${text(r)}` : `ok: ${text(r)}`)
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

const count = defineTool({
  name: 'count',
  description: 'Count up to n, reporting each step.',
  parameters: { n: { type: 'integer', required: true } },
  async *execute({ n }) {
    for (let i = 1; i <= n; i++) {
      await tick()
      yield { step: i }
    }
    return `counted to ${n}`
  },
})

/** Records every preliminary event and every result, in the order observers saw them. */
function record(harness: Harness): string[] {
  const seen: string[] = []
  harness.ctx.tools.on('tools/preliminary', (e: ToolPreliminaryEvent) => void seen.push(`${e.callId} #${e.sequence} ${JSON.stringify(e.value)}`))
  harness.ctx.tools.on('tools/result', (r) => void seen.push(`${r.callId} result`))
  return seen
}

describe('delivery', () => {
  test('each yield reaches observers in order, before the call result; the return value is final', async () => {
    h = await createHarness()
    h.ctx.tools.register(count)
    const seen = record(h)
    const results = await h.execute([call('count', { n: 3 }, 'a'), call('count', { n: 0 }, 'b')])
    expect(results.map(outcome)).toEqual(['ok: counted to 3', 'ok: counted to 0'])
    expect(results.map((r) => (r.isError ? undefined : r.value))).toEqual(['counted to 3', 'counted to 0'])
    expect(seen).toEqual(['a #1 {"step":1}', 'a #2 {"step":2}', 'a #3 {"step":3}', 'a result', 'b result'])
  })

  test('the event is frozen and carries tool, scope and the execution view', async () => {
    h = await createHarness()
    h.ctx.tools.register(count)
    const events: ToolPreliminaryEvent[] = []
    h.ctx.tools.on('tools/preliminary', (e) => void events.push(e))
    await h.execute([call('count', { n: 1 }, 'c1')])
    expect(events).toHaveLength(1)
    const [e] = events
    expect(Object.isFrozen(e)).toBe(true)
    expect(Object.isFrozen(e!.value)).toBe(true)
    expect([e!.callId, e!.tool, e!.sequence, e!.exec.callId]).toEqual(['c1', 'count', 1, 'c1'])
  })

  test('a throwing observer is contained and reported; the call goes on', async () => {
    h = await createHarness()
    h.ctx.tools.register(count)
    h.ctx.tools.on('tools/preliminary', () => {
      throw new Error('observer broke')
    })
    const [r] = await h.execute([call('count', { n: 2 }, 'c1')])
    expect(outcome(r)).toBe('ok: counted to 2')
  })

  test('a yield that is not JSON fails the call as INVALID_TOOL_OUTPUT and closes the generator', async () => {
    let closed = false
    h = await createHarness()
    h.ctx.tools.register(
      defineTool({
        name: 'bad_yield',
        description: 'Yields a function.',
        parameters: {},
        async *execute() {
          try {
            yield { ok: 1 } as JsonValue
            yield { f: (() => 1) as unknown as JsonValue }
            return 'never'
          } finally {
            closed = true
          }
        },
      }),
    )
    const seen = record(h)
    const [r] = await h.execute([call('bad_yield', {}, 'c1')])
    expect(outcome(r)).toBe('INVALID_TOOL_OUTPUT: Error: Tool "bad_yield" yielded an invalid preliminary value (yield 2): /f is a function')
    expect(seen).toEqual(['c1 #1 {"ok":1}', 'c1 result'])
    await tick()
    expect(closed).toBe(true)
  })

  test('a Standard Schema tool streams too; its final value is checked by the output schema', async () => {
    h = await createHarness()
    const tool = (final: number) =>
      defineTool({
        name: `std_${final}`,
        description: 'd',
        parameters: z.object({}),
        output: { schema: z.number().max(10), render: (_a, v) => [{ type: 'text', text: String(v) }] },
        async *execute() {
          yield 'half'
          return final
        },
      })
    h.ctx.tools.register(tool(5))
    h.ctx.tools.register(tool(50))
    const seen = record(h)
    const results = await h.execute([call('std_5', {}, 'ok'), call('std_50', {}, 'big')])
    expect(results.map((r) => (r.isError ? r.error.info.code : text(r)))).toEqual(['5', 'INVALID_TOOL_OUTPUT'])
    expect(seen).toEqual(['ok #1 "half"', 'ok result', 'big #1 "half"', 'big result'])
  })
  test('a Standard Schema tool with an asynchronous validator still delivers its yields; bad arguments fail before any yield', async () => {
    h = await createHarness()
    // A Standard Schema whose validate answers with a promise (as a schema with async refinements does).
    const asyncWords: StandardSchemaV1<unknown, { words: string[] }> = {
      '~standard': {
        version: 1,
        vendor: 'test',
        validate: async (value: unknown) => {
          await tick()
          const words = (value as { words?: unknown }).words
          return Array.isArray(words) && words.every((w) => typeof w === 'string') ? { value: { words } } : { issues: [{ message: 'must be an array of strings', path: ['words'] }] }
        },
        jsonSchema: { input: () => ({ type: 'object', properties: { words: { type: 'array', items: { type: 'string' } } }, required: ['words'] }), output: () => ({}) },
      },
    } as StandardSchemaV1<unknown, { words: string[] }>
    h.ctx.tools.register(
      defineTool({
        name: 'spell',
        description: 'Spells each word.',
        parameters: asyncWords,
        async *execute({ words }) {
          for (const w of words) yield w.toUpperCase()
          return words.length
        },
      }),
    )
    const seen = record(h)
    const results = await h.execute([call('spell', { words: ['a', 'b'] }, 'ok'), call('spell', { words: [1] }, 'bad')])
    expect(results.map(outcome)).toEqual(['ok: 2', 'INVALID_ARGS: Error: Invalid arguments for tool "spell": /words: must be an array of strings'])
    expect(seen).toEqual(['ok #1 "A"', 'ok #2 "B"', 'ok result', 'bad result'])
  })
})

describe('cancellation, timeouts and retries', () => {
  /** A generator that yields once, then waits for ever unless its signal aborts; counts finally runs. */
  function stuck(counter: { finally: number; started: number }) {
    return defineTool({
      name: 'stuck',
      description: 'Yields once, then hangs.',
      parameters: {},
      idempotent: true,
      async *execute(_args, exec) {
        counter.started++
        try {
          yield 'started'
          await new Promise<never>((_, reject) => exec.signal.addEventListener('abort', () => reject(exec.signal.reason), { once: true }))
          return 'never'
        } finally {
          counter.finally++
        }
      },
    })
  }

  test('aborting the batch settles the call ABORTED and runs the generator finally', async () => {
    const counter = { finally: 0, started: 0 }
    h = await createHarness()
    h.ctx.tools.register(stuck(counter))
    const controller = new AbortController()
    h.ctx.tools.on('tools/preliminary', () => controller.abort(new Error('user stopped')))
    const [r] = await h.execute([call('stuck', {}, 'c1')], { signal: controller.signal })
    expect(r?.isError === true ? r.error.info.code : 'ok').toBe('ABORTED')
    await tick()
    expect(counter).toEqual({ finally: 1, started: 1 })
  })

  test('a generator that ignores the signal is still closed on abort, as soon as it reaches its next yield', async () => {
    let closed = 0
    let yields = 0
    h = await createHarness()
    h.ctx.tools.register(
      defineTool({
        name: 'deaf',
        description: 'Ignores its signal.',
        parameters: {},
        async *execute() {
          try {
            for (;;) {
              await tick()
              yields++
              yield yields
            }
          } finally {
            closed++
          }
        },
      }),
    )
    const controller = new AbortController()
    h.ctx.tools.on('tools/preliminary', (e) => {
      if (e.sequence === 2) controller.abort()
    })
    const [r] = await h.execute([call('deaf', {}, 'c1')], { signal: controller.signal })
    expect(r?.isError === true ? r.error.info.code : 'ok').toBe('ABORTED')
    await tick()
    await tick()
    expect(closed).toBe(1)
    expect(yields).toBe(2)
  })

  test('the timeout policy times the call out and closes the generator', async () => {
    const counter = { finally: 0, started: 0 }
    h = await createHarness({ plugins: [{ plugin: TimeoutPolicy, config: { defaultTimeoutMs: 30 } }] })
    h.ctx.tools.register(stuck(counter))
    const [r] = await h.execute([call('stuck', {}, 'c1')])
    expect(r?.isError === true ? r.error.info.code : 'ok').toBe('TOOL_TIMEOUT')
    await tick()
    expect(counter).toEqual({ finally: 1, started: 1 })
  })

  test('the retry policy runs a fresh generator; sequences restart at 1 and only the last return counts', async () => {
    let attempt = 0
    h = await createHarness({ plugins: [{ plugin: RetryPolicy, config: { maxAttempts: 2, initialDelayMs: 1, jitter: 'none' } }] })
    h.ctx.tools.register(
      defineTool({
        name: 'flaky',
        description: 'Fails once after a yield.',
        parameters: {},
        idempotent: true,
        async *execute() {
          attempt++
          yield `attempt ${attempt}`
          if (attempt === 1) throw Object.assign(new Error('ECONNRESET'), { code: 'ECONNRESET' })
          return `done on ${attempt}`
        },
      }),
    )
    const seen = record(h)
    const [r] = await h.execute([call('flaky', {}, 'c1')])
    expect(outcome(r)).toBe('ok: done on 2')
    expect(seen).toEqual(['c1 #1 "attempt 1"', 'c1 #1 "attempt 2"', 'c1 result'])
  })
})

describe('PTC', () => {
  test('a program receives only the final value; observers still see the sub-call yields', async () => {
    h = await createHarness({ executor: createPtcExecutor() })
    h.ctx.tools.register(count)
    const seen: string[] = []
    h.ctx.tools.on('tools/preliminary', (e) => void seen.push(`${e.tool} #${e.sequence} parent=${e.parentCallId}`))
    const [r] = await h.execute([call('run_code', { code: 'const out = await tools.count({ n: 2 }); return out', description: 'count' }, 'p1')])
    expect(r?.isError).toBe(false)
    expect(text(r)).toContain('counted to 2')
    expect(seen).toEqual(['count #1 parent=p1', 'count #2 parent=p1'])
  })
})
