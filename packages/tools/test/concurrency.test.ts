import { afterEach, describe, expect, test } from 'vitest'
import { call, createHarness, failingTool, Gate, gatedTool, MemorySessionLog, type Harness } from '@deepseek-ai/dsh-tool-testkit'

let h: Harness
afterEach(async () => {
  await h?.dispose()
})

const tick = () => new Promise((r) => setImmediate(r))

describe('ordered results and the rolling pool', () => {
  test('results come back in call order under out-of-order completion (B03)', async () => {
    h = await createHarness()
    const gate = new Gate()
    h.ctx.tools.register(gatedTool(gate))
    const order: string[] = []
    h.ctx.on('tools/result', (r) => {
      order.push(r.callId)
    })
    const log = new MemorySessionLog()
    const pending = h.execute([call('gated', { id: 'a' }, 'c1'), call('gated', { id: 'b' }, 'c2'), call('gated', { id: 'c' }, 'c3')], { log })
    await gate.started(3)
    gate.release('c3')
    gate.release('c2')
    await tick()
    expect(order).toEqual([]) // c1 still running: nothing after dispatch may run out of order
    gate.release('c1')
    const results = await pending
    expect(results.map((r) => r.callId)).toEqual(['c1', 'c2', 'c3'])
    expect(results.map((r) => r.isError ? null : r.value)).toEqual([{ id: 'a' }, { id: 'b' }, { id: 'c' }])
    expect(gate.ends).toEqual(['c3', 'c2', 'c1'])
    expect(order).toEqual(['c1', 'c2', 'c3'])
    expect(log.ofType('tool/result').map((e) => e.callId)).toEqual(['c1', 'c2', 'c3'])
  })

  test('the pool bound holds and starts are in call order', async () => {
    h = await createHarness({ native: { maxParallelCalls: 3 } })
    const gate = new Gate()
    h.ctx.tools.register(gatedTool(gate))
    const ids = Array.from({ length: 8 }, (_, i) => `c${i}`)
    const pending = h.execute(ids.map((id) => call('gated', {}, id)))
    await gate.started(3)
    await tick()
    expect(gate.live).toBe(3)
    // Release in reverse to shuffle completion; the pool keeps rolling.
    while (gate.starts.length < 8 || gate.live > 0) {
      const waiting = gate.waiting
      if (waiting.length === 0) {
        await tick()
        continue
      }
      gate.release(waiting[waiting.length - 1]!)
      await tick()
    }
    await pending
    expect(gate.peak).toBe(3)
    expect(gate.starts).toEqual(ids)
  })

  test('maxParallelCalls 1 is serial', async () => {
    h = await createHarness({ native: { maxParallelCalls: 1 } })
    const gate = new Gate()
    h.ctx.tools.register(gatedTool(gate))
    const pending = h.execute([call('gated', {}, 'a'), call('gated', {}, 'b'), call('gated', {}, 'c')])
    for (let i = 0; i < 3; i++) {
      await gate.started(i + 1)
      await tick()
      expect(gate.live).toBe(1)
      gate.releaseAll()
    }
    await pending
    expect(gate.peak).toBe(1)
  })

  test('an exclusive call is a barrier: it waits for earlier bodies and runs alone', async () => {
    h = await createHarness()
    const gate = new Gate()
    h.ctx.tools.register(gatedTool(gate))
    const pending = h.execute([
      call('gated', {}, 'p1'),
      call('gated', {}, 'p2'),
      call('gated', { exclusive: true }, 'x'),
      call('gated', {}, 'p3'),
      call('gated', {}, 'p4'),
    ])
    await gate.started(2)
    await tick()
    expect(gate.starts).toEqual(['p1', 'p2'])
    gate.release('p2')
    await tick()
    expect(gate.starts).toEqual(['p1', 'p2']) // x waits for p1 too
    gate.release('p1')
    await gate.started(3)
    await tick()
    expect(gate.starts).toEqual(['p1', 'p2', 'x'])
    expect(gate.live).toBe(1) // p3, p4 wait for the barrier
    gate.release('x')
    await gate.started(5)
    expect(gate.live).toBe(2)
    gate.releaseAll()
    await pending
    expect(gate.starts).toEqual(['p1', 'p2', 'x', 'p3', 'p4'])
  })

  test('isConcurrencySafe that throws or returns a truthy non-true value means exclusive', async () => {
    h = await createHarness()
    const gate = new Gate()
    const tool = gatedTool(gate)
    h.ctx.tools.register({ ...tool, name: 'throws_cls', isConcurrencySafe: () => { throw new Error('x') } })
    h.ctx.tools.register({ ...tool, name: 'truthy', isConcurrencySafe: () => 1 as unknown as boolean })
    const pending = h.execute([call('throws_cls', {}, 'a'), call('truthy', {}, 'b')])
    await gate.started(1)
    await tick()
    expect(gate.live).toBe(1)
    gate.releaseAll()
    await gate.started(2)
    gate.releaseAll()
    await pending
    expect(gate.peak).toBe(1)
  })

  test('policy runs in model order even while earlier bodies run', async () => {
    h = await createHarness()
    const gate = new Gate()
    h.ctx.tools.register(gatedTool(gate))
    const seen: string[] = []
    h.ctx.on('tools/pre-execute', async (exec, next) => {
      seen.push(`pre:${exec.callId}`)
      return next()
    })
    h.ctx.on('tools/post-execute', async (exec, _d, next) => {
      seen.push(`post:${exec.callId}`)
      return next()
    })
    const pending = h.execute([call('gated', {}, 'a'), call('gated', {}, 'b')])
    await gate.started(2)
    gate.release('b')
    await tick()
    gate.release('a')
    await pending
    expect(seen).toEqual(['pre:a', 'pre:b', 'post:a', 'post:b'])
  })
})

describe('error isolation (B04)', () => {
  test('one failing parallel call leaves its siblings intact', async () => {
    h = await createHarness()
    const gate = new Gate()
    h.ctx.tools.register(gatedTool(gate))
    h.ctx.tools.register(failingTool({ message: 'ConnectionError: refused' }))
    const pending = h.execute([call('gated', { id: 's' }, 'c1'), call('fail', {}, 'c2'), call('gated', { id: 'r' }, 'c3')])
    await gate.started(2)
    gate.releaseAll()
    const results = await pending
    expect(results.map((r) => [r.callId, r.isError ? r.error.message : r.value])).toEqual([
      ['c1', { id: 's' }],
      ['c2', 'ConnectionError: refused'],
      ['c3', { id: 'r' }],
    ])
    expect(gate.aborted).toEqual([])
  })
})
