/**
 * The timeline picture: lanes are pool slots, exclusive calls are barriers, calls that never
 * reached dispatch are markers — from a real batch through the pipeline, traced with a
 * deterministic clock, and from the demo's own run.
 */
import { afterEach, describe, expect, test } from 'vitest'
import { call, createHarness, Gate, gatedTool, StageTracer, type Harness } from '@deepseek-ai/dsh-tool-testkit'
import { layoutBatch, renderTimelineSvg, type TimelineBatch, type TimelineCall } from '../src/timeline'

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

/** p1 p2 p3 (parallel, pool of 2), s (exclusive), p4 (parallel), bad (invalid JSON), ghost (unknown). */
async function tracedBatch(): Promise<TimelineBatch> {
  h = await createHarness({ native: { maxParallelCalls: 2 } })
  let tick = 0
  const tracer = new StageTracer({ now: () => (tick += 10) })
  tracer.install(h.ctx)
  const gate = new Gate()
  h.ctx.tools.register(gatedTool(gate, { name: 'par' }))
  h.ctx.tools.register(gatedTool(gate, { name: 'solo', parallel: false }))
  const batch = [call('par', {}, 'p1'), call('par', {}, 'p2'), call('par', {}, 'p3'), call('solo', {}, 's'), call('par', {}, 'p4'), call('par', '{', 'bad'), call('ghost', {}, 'ghost')]
  const running = h.execute(batch)
  await gate.started(2)
  gate.release('p1')
  await gate.started(3) // p3 takes the slot p1 left
  gate.release('p2')
  gate.release('p3')
  await gate.started(4) // s starts only once p2 and p3 are done
  gate.release('s')
  await gate.started(5)
  gate.release('p4')
  const results = await running
  const calls: TimelineCall[] = batch.map((c, i) => {
    const r = results[i]!
    return { id: c.callId, name: c.name, outcome: r.isError ? (r.error.info?.code ?? 'ERROR') : 'ok', exclusive: c.name === 'solo' }
  })
  return { title: 'a traced batch', calls, events: tracer.events }
}

describe('layoutBatch', () => {
  test('slots are reused as calls finish; the exclusive call is a barrier; undispatched calls are markers', async () => {
    const layout = layoutBatch(await tracedBatch())
    expect(layout.lanes).toBe(2)
    expect(layout.bars.map((b) => [b.call.id, b.lane])).toEqual([
      ['p1', 0],
      ['p2', 1],
      ['p3', 0],
      ['s', 0],
      ['p4', 0],
    ])
    expect(layout.markers.map((m) => [m.call.id, m.call.outcome])).toEqual([
      ['bad', 'INVALID_ARGS'],
      ['ghost', 'UNKNOWN_TOOL'],
    ])
    expect(layout.barriers.map((b) => b.call.id)).toEqual(['s'])
    // Nothing else is dispatched inside the barrier.
    const barrier = layout.barriers[0]!
    const others = layout.bars.filter((b) => b.call.id !== 's').flatMap((b) => b.spans.filter((s) => s.segment === 'dispatch'))
    expect(others.filter((s) => s.to > barrier.from && s.from < barrier.to)).toEqual([])
    // Every dispatched call went through policy, dispatch and completion, in that order.
    for (const bar of layout.bars) {
      const segments = bar.spans.map((s) => s.segment).filter((s) => s !== 'queued' && s !== 'in-order')
      expect(segments).toEqual(['policy', 'dispatch', 'complete'])
      expect(bar.spans.every((s, i) => s.from < s.to && (i === 0 || bar.spans[i - 1]!.to <= s.from))).toBe(true)
    }
    // p3 queued for a slot until p1 left it.
    const p1 = layout.bars[0]!.spans.find((s) => s.segment === 'dispatch')!
    const p3 = layout.bars[2]!.spans.find((s) => s.segment === 'queued')!
    expect(p3.to).toBeGreaterThan(p1.to)
  })

  test('an empty batch has no lanes in use and no duration', () => {
    expect(layoutBatch({ title: 'cut', calls: [{ id: 'c', name: 'x', outcome: 'TRUNCATED_RESPONSE', exclusive: false }], events: [] })).toEqual({
      title: 'cut',
      duration: 0,
      lanes: 1,
      bars: [],
      markers: [],
      barriers: [],
    })
  })
})

describe('renderTimelineSvg', () => {
  test('one panel per batch with its lanes, a group per dispatched call, barrier rectangles and markers', async () => {
    const batch = await tracedBatch()
    const svg = renderTimelineSvg([batch, { title: 'Step 5 <cut> & "quoted"', calls: [], events: [] }])
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true)
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true)
    const attrs = (re: RegExp): string[][] => [...svg.matchAll(re)].map((m) => m.slice(1))
    expect(attrs(/<g class="batch" data-title="([^"]*)" data-lanes="(\d+)">/g)).toEqual([
      ['a traced batch', '2'],
      ['Step 5 &lt;cut&gt; &amp; &quot;quoted&quot;', '0'],
    ])
    expect(attrs(/<rect class="lane" data-lane="(\d+)"/g)).toEqual([['0'], ['1']])
    expect(attrs(/<g class="call" data-call="([^"]+)" data-lane="(\d+)" data-outcome="([^"]+)">/g)).toEqual([
      ['p1', '0', 'ok'],
      ['p2', '1', 'ok'],
      ['p3', '0', 'ok'],
      ['s', '0', 'ok'],
      ['p4', '0', 'ok'],
    ])
    expect(attrs(/<rect class="barrier" data-call="([^"]+)"/g)).toEqual([['s']])
    expect(attrs(/<path class="marker" data-call="([^"]+)" data-outcome="([^"]+)"/g)).toEqual([
      ['bad', 'INVALID_ARGS'],
      ['ghost', 'UNKNOWN_TOOL'],
    ])
    // Each call group holds its stage rectangles, the dispatch one among them.
    const groups = svg.split('<g class="call"').slice(1).map((g) => g.slice(0, g.indexOf('</g>')))
    expect(groups.map((g) => g.includes('class="stage dispatch"'))).toEqual([true, true, true, true, true])
    // Tags balance (a cheap well-formedness check on the elements used).
    for (const tag of ['g', 'svg', 'text', 'title']) {
      expect((svg.match(new RegExp(`<${tag}[ >]`, 'g')) ?? []).length).toBe((svg.match(new RegExp(`</${tag}>`, 'g')) ?? []).length)
    }
  })
})
