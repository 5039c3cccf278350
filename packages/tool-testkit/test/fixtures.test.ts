/**
 * Each tool fixture, run through the real pipeline: what it returns, how it fails, what the
 * model sees.
 */
import { afterEach, describe, expect, test } from 'vitest'
import type { ToolResult } from '@deepseek-ai/dsh-tools'
import {
  call,
  createHarness,
  echoTool,
  failingTool,
  Gate,
  gatedTool,
  hangTool,
  imageTool,
  invalidOutputTool,
  largeOutputTool,
  ManualClock,
  nonLosslessTool,
  signalIgnoringTool,
  sleep,
  slowTool,
  throwingTool,
  TINY_PNG_BASE64,
  type Harness,
} from '@deepseek-ai/dsh-tool-testkit'

let h: Harness
afterEach(async () => {
  await h?.dispose()
})

const code = (r: ToolResult | undefined) => (r?.isError ? r.error.info?.code : 'ok')
const text = (r: ToolResult | undefined) => r?.content.map((b) => (b.type === 'text' ? b.text : `[image ${b.mimeType}]`)).join('|')
const tick = () => new Promise((r) => setImmediate(r))

describe('echo', () => {
  test('returns its arguments and renders them as JSON; parallel-safe by default, exclusive on request', async () => {
    h = await createHarness()
    h.ctx.tools.register(echoTool())
    h.ctx.tools.register(echoTool({ name: 'echo_x', parallel: false }))
    const [r] = await h.execute([call('echo', { text: 'hi', value: [1, { a: null }] }, 'c1')])
    expect(r).toMatchObject({ isError: false, value: { text: 'hi', value: [1, { a: null }] } })
    expect(text(r)).toBe('{"text":"hi","value":[1,{"a":null}]}')
    expect(h.tools.get('echo')!.isConcurrencySafe!({})).toBe(true)
    expect(h.tools.get('echo_x')!.isConcurrencySafe!({})).toBe(false)
  })
})

describe('Gate and gatedTool', () => {
  test('records live/peak concurrency and start/end order; release(id, "fail") throws', async () => {
    h = await createHarness()
    const gate = new Gate()
    h.ctx.tools.register(gatedTool(gate))
    const pending = h.execute([call('gated', { id: 'A' }, 'a'), call('gated', {}, 'b'), call('gated', { id: 'C' }, 'c')])
    await gate.started(3)
    expect([gate.live, gate.peak, gate.waiting]).toEqual([3, 3, ['a', 'b', 'c']])
    expect(gate.release('b', 'fail')).toBe(true)
    expect(gate.release('b')).toBe(false)
    gate.release('c')
    await tick()
    expect(gate.live).toBe(1)
    expect(gate.releaseAll()).toBe(1)
    const results = await pending
    expect(gate.starts).toEqual(['a', 'b', 'c'])
    expect(gate.ends).toEqual(['b', 'c', 'a'])
    expect(results.map(text)).toEqual(['done A', 'Error: gated b failed', 'done C'])
    expect(gate.aborted).toEqual([])
  })

  test('an exclusive gated call (exclusive: true or parallel: false) runs alone', async () => {
    h = await createHarness()
    const gate = new Gate()
    h.ctx.tools.register(gatedTool(gate))
    const pending = h.execute([call('gated', {}, 'p1'), call('gated', { exclusive: true }, 'x'), call('gated', {}, 'p2')])
    await gate.started(1)
    await tick()
    expect(gate.waiting).toEqual(['p1'])
    gate.releaseAll()
    await gate.started(2)
    await tick()
    expect(gate.waiting).toEqual(['x'])
    gate.releaseAll()
    await gate.started(3)
    gate.releaseAll()
    await pending
    expect(gate.peak).toBe(1)
  })

  test('an abort releases held bodies with the signal reason and records them as aborted', async () => {
    h = await createHarness()
    const gate = new Gate()
    h.ctx.tools.register(gatedTool(gate))
    const controller = new AbortController()
    const pending = h.execute([call('gated', {}, 'a'), call('gated', {}, 'b')], { signal: controller.signal })
    await gate.started(2)
    controller.abort()
    const results = await pending
    expect(results.map(code)).toEqual(['ABORTED', 'ABORTED'])
    expect(gate.aborted).toEqual(['a', 'b'])
    expect([gate.live, gate.waiting]).toEqual([0, []])
  })
})

describe('timed fixtures on a manual clock', () => {
  test('slow sleeps its ms on the clock; an abort cuts it short and clears its timer', async () => {
    const clock = new ManualClock()
    const uninstall = clock.install()
    try {
      h = await createHarness()
      h.ctx.tools.register(slowTool({ defaultMs: 1_000 }))
      const [r] = await clock.settle(h.execute([call('slow', {}, 's1')]))
      expect(text(r)).toBe('slept 1000ms')
      expect(clock.now).toBe(1_000)
      const controller = new AbortController()
      const pending = h.execute([call('slow', { ms: 60_000 }, 's2')], { signal: controller.signal })
      await clock.flush()
      expect(clock.pendingDelays()).toEqual([60_000])
      controller.abort()
      expect(code((await pending)[0])).toBe('ABORTED')
      expect(clock.pending).toBe(0)
    } finally {
      uninstall()
    }
  })

  test('stubborn ignores the abort: the batch waits for it, records it finished, and drops its value', async () => {
    const clock = new ManualClock()
    const uninstall = clock.install()
    try {
      h = await createHarness()
      const { tool, finished } = signalIgnoringTool({ ms: 500 })
      h.ctx.tools.register(tool)
      const controller = new AbortController()
      const pending = h.execute([call('stubborn', {}, 'x')], { signal: controller.signal })
      await clock.flush()
      controller.abort()
      await clock.flush()
      expect(finished).toEqual([])
      const [r] = await clock.settle(pending)
      expect(finished).toEqual(['x'])
      expect(code(r)).toBe('ABORTED')
      expect(JSON.stringify(r)).not.toContain('finished anyway')
    } finally {
      uninstall()
    }
  })

  test('hang waits for its signal only', async () => {
    h = await createHarness()
    h.ctx.tools.register(hangTool())
    const controller = new AbortController()
    const pending = h.execute([call('hang', {}, 'h1')], { signal: controller.signal })
    await tick()
    controller.abort(new Error('user pressed stop'))
    expect(text((await pending)[0])).toBe('Error: Tool call was cancelled')
    expect(hangTool({ timeoutMs: 50 }).timeoutMs).toBe(50)
  })
})

describe('failing fixtures', () => {
  test('fail throws an Error: TOOL_FAILED with exactly "Error: <message>"', async () => {
    h = await createHarness()
    h.ctx.tools.register(failingTool({ message: 'disk full' }))
    const [a, b] = await h.execute([call('fail', {}, 'a'), call('fail', { message: 'quota' }, 'b')])
    expect(a).toMatchObject({ isError: true, error: { message: 'disk full', info: { name: 'Error', code: 'TOOL_FAILED' } } })
    expect([text(a), text(b)]).toEqual(['Error: disk full', 'Error: quota'])
  })

  test('throws (non-Error values) gives a readable message for every kind of value', async () => {
    h = await createHarness()
    const cycle: Record<string, unknown> = { message: undefined }
    cycle.self = cycle
    const values: [string, unknown][] = [
      ['str', 'plain string'],
      ['undef', undefined],
      ['nul', null],
      ['num', 42],
      ['obj', { code: 'E_QUOTA', message: 'over quota' }],
      ['cyc', cycle],
    ]
    for (const [name, v] of values) h.ctx.tools.register(throwingTool(() => v, { name }))
    const results = await h.execute(values.map(([name]) => call(name, {}, name)))
    expect(results.map(text)).toEqual([
      'Error: plain string',
      'Error: threw undefined',
      'Error: threw null',
      'Error: threw 42',
      'Error: over quota (E_QUOTA)',
      'Error: threw {"self":"[Circular]"}',
    ])
    expect(results.map(code)).toEqual(['TOOL_FAILED', 'TOOL_FAILED', 'TOOL_FAILED', 'TOOL_FAILED', 'E_QUOTA', 'TOOL_FAILED'])
  })

  test('badOutput breaks its output schema: INVALID_TOOL_OUTPUT naming the pointer', async () => {
    h = await createHarness()
    h.ctx.tools.register(invalidOutputTool())
    const [a, b] = await h.execute([call('badOutput', {}, 'a'), call('badOutput', { kind: 'missing' }, 'b')])
    expect(text(a)).toBe('Error: Tool "badOutput" returned an invalid value: /count: must be integer (got string)')
    expect(text(b)).toBe('Error: Tool "badOutput" returned an invalid value: /count: is required')
    expect([code(a), code(b)]).toEqual(['INVALID_TOOL_OUTPUT', 'INVALID_TOOL_OUTPUT'])
  })

  test('lossy returns values JSON cannot carry: each is INVALID_TOOL_OUTPUT with the reason', async () => {
    h = await createHarness()
    h.ctx.tools.register(nonLosslessTool())
    const kinds = ['symbol', 'bigint', 'cycle', 'function', 'nan', 'date'] as const
    const results = await h.execute(kinds.map((kind) => call('lossy', { kind }, kind)))
    expect(results.map(text)).toEqual([
      'Error: Tool "lossy" returned an invalid value: (root) is a symbol',
      'Error: Tool "lossy" returned an invalid value: (root) is a BigInt',
      'Error: Tool "lossy" returned an invalid value: /self is a circular reference',
      'Error: Tool "lossy" returned an invalid value: (root) is a function',
      'Error: Tool "lossy" returned an invalid value: /n NaN is not a JSON number',
      'Error: Tool "lossy" returned an invalid value: (root) is a Date object, not plain JSON',
    ])
  })
})

describe('content fixtures', () => {
  test('image renders an image block then its caption', async () => {
    h = await createHarness()
    h.ctx.tools.register(imageTool())
    const [r] = await h.execute([call('image', { caption: 'a dot' }, 'i1')])
    expect(r!.content).toEqual([
      { type: 'image', data: TINY_PNG_BASE64, mimeType: 'image/png' },
      { type: 'text', text: 'a dot' },
    ])
    expect(Buffer.from(TINY_PNG_BASE64, 'base64').subarray(1, 4).toString()).toBe('PNG')
  })

  test('large returns exactly `chars` characters over `lines` lines; the model sees the capped content, the value stays whole', async () => {
    h = await createHarness({ registry: { contentLimits: { maxChars: 1_000, maxLines: 0 } } })
    h.ctx.tools.register(largeOutputTool())
    const [small, big] = await h.execute([call('large', { chars: 50, lines: 5 }, 's'), call('large', { chars: 5_000, lines: 1 }, 'b')])
    const v = small!.isError ? '' : (small!.value as string)
    expect([v.length, v.split('\n').length]).toEqual([50, 5])
    expect(big!.isError ? 0 : (big!.value as string).length).toBe(5_000)
    expect(text(big)!.length).toBeLessThan(1_200)
    expect(text(big)).toContain('[output truncated: ')
  })
})

describe('sleep', () => {
  test('rejects with the reason of an already-aborted signal, without a timer', async () => {
    const clock = new ManualClock()
    const uninstall = clock.install()
    try {
      const reason = new Error('stop')
      await expect(sleep(10, AbortSignal.abort(reason))).rejects.toBe(reason)
      expect(clock.pending).toBe(0)
    } finally {
      uninstall()
    }
  })
})
