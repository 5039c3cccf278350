/**
 * Runs the benchmark in smoke mode in-process (tiny sizes, few iterations) and checks that
 * every workload produced a result for every system. No time is asserted.
 */
import { describe, expect, test } from 'vitest'
import { runBench, type BenchResults } from '../src/run'
import { BATCH_SYSTEMS } from '../src/workloads/batch'
import { SCHEDULING_SYSTEMS } from '../src/workloads/scheduling'
import { SCALE_SYSTEMS } from '../src/workloads/scale'
import { checkTargets, renderBatchChart, renderReport } from '../src/report/markdown'

describe('pnpm bench:smoke', () => {
  let results: BenchResults

  test('runs every workload', { timeout: 60_000 }, async () => {
    const lines: string[] = []
    results = await runBench({ smoke: true, build: 'source', log: (line) => lines.push(line) })
    expect(results.meta.mode).toBe('smoke')
    expect(Object.keys(results.durations).sort()).toEqual(['batch', 'floor', 'ptc', 'scale', 'scheduling'])
    expect(lines.some((l) => l.startsWith('ptc: skipped'))).toBe(false)
  })

  test('batch: every system at every N and variant, with ratios and fits', () => {
    const cells = results.batch.rows.map((r) => `${r.variant}/${r.n}/${r.system}`).sort()
    const expected = ['sequential', 'parallel'].flatMap((v) => [3, 6].flatMap((n) => BATCH_SYSTEMS.map((s) => `${v}/${n}/${s}`))).sort()
    expect(cells).toEqual(expected)
    for (const row of results.batch.rows) {
      expect(row.stepMs.n).toBe(2)
      expect(row.perCallUs.median).toBeGreaterThan(0)
    }
    expect(results.batch.peerRatios).toHaveLength(2 * 2 * 2)
    expect(results.batch.floorRatios).toHaveLength(2 * 2)
    expect(results.batch.linearity.map((l) => `${l.variant}/${l.system}`).sort()).toEqual(['sequential', 'parallel'].flatMap((v) => BATCH_SYSTEMS.map((s) => `${v}/${s}`)).sort())
  })

  test('floor: four parts', () => {
    expect(results.floor.map((p) => p.id)).toEqual(['parse', 'parse+validate', 'parse+validate(allErrors)', 'floor'])
  })

  test('scheduling: both scenarios for every system; ours keeps the pool bound and the barriers', () => {
    expect(results.scheduling.rows.map((r) => `${r.scenario}/${r.system}`)).toEqual(['pool', 'barriers'].flatMap((s) => SCHEDULING_SYSTEMS.map((id) => `${s}/${id}`)))
    const ours = results.scheduling.rows.filter((r) => r.system === 'dsh')
    expect(ours.map((r) => [r.scenario, r.peakConcurrency, r.barrierViolations])).toEqual([
      ['pool', 5, 0],
      ['barriers', 1, 0],
    ])
  })

  test('scale: registration, heap and steps for every system; validation ran through the pipeline', () => {
    const s = results.scale
    expect(s.tools).toBeGreaterThan(150)
    expect(s.rejected).toEqual([])
    expect(s.registration.map((r) => r.system)).toEqual([...SCALE_SYSTEMS])
    expect(s.heap.map((r) => r.system)).toEqual([...SCALE_SYSTEMS])
    expect(s.steps.map((r) => [r.system, r.toolsShown])).toEqual(SCALE_SYSTEMS.map((id) => [id, s.tools]))
    expect(s.validation.calls).toBe(10)
    expect(s.validation.ok + s.validation.invalidArgs + s.validation.otherErrors).toBe(10)
    expect(s.validation.compilesAtRegistration).toBe(0)
    expect(s.validation.compilesAtSteadyCalls).toBe(0)
  })

  test('ptc: runs, sub-calls and the bytes task', () => {
    const p = results.ptc
    if ('skipped' in p) throw new Error(`ptc skipped: ${p.skipped}`)
    expect(p.subCalls).toBe(5)
    expect(p.task.native.calls).toBe(5)
    expect(p.task.ptc.calls).toBe(1)
    expect(p.task.native.resultBytes).toBeGreaterThan(p.task.ptc.resultBytes)
  })

  test('the report renders every section and the chart', () => {
    const md = renderReport(results, { chartFile: 'benchmarks-batch.svg', optimisations: 'none' })
    for (const heading of ['## Machine and versions', '## Targets', '## 1. Batch overhead', '## 2. Floor', '## 3. Scheduling', '## 4. Scale', '## 5. Programmatic tool calling (PTC)', '## Optimisations']) {
      expect(md).toContain(heading)
    }
    expect(checkTargets(results).length).toBeGreaterThanOrEqual(7)
    const svg = renderBatchChart(results)
    expect(svg.startsWith('<svg')).toBe(true)
    expect(svg.match(/<\/title><\/rect>/g)).toHaveLength(2 * 2 * BATCH_SYSTEMS.length)
  })
})
