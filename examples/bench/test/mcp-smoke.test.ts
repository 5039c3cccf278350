/**
 * Runs the MCP bridge workload (`bench:mcp`) at smoke size in-process: both variants produce
 * bare, bridge and local-pipeline figures from CPU time and per-round ratios, every answer is checked by the workload
 * itself, and the report renders them. No time is asserted.
 */
import { expect, test } from 'vitest'
import { runMcp } from '../src/workloads/mcp'
import { MCP_END, MCP_START, renderMcpSection, spliceMcpSection } from '../src/report/mcp'

test('bench:mcp smoke: both variants, every system measured, the section renders and splices', { timeout: 60_000 }, async () => {
  const lines: string[] = []
  const result = await runMcp({ n: 20, batches: 2, rounds: 3, warmup: 1, log: (line) => lines.push(line) })
  expect(result.batches).toBe(2)
  expect(result.rows.map((r) => r.variant)).toEqual(['sequential', 'parallel'])
  for (const row of result.rows) {
    for (const s of [row.bare, row.bridge, row.body, row.local]) {
      expect(s.n).toBe(3)
      expect(s.median).toBeGreaterThan(0)
    }
    // Per-round ratios: each lies between the extreme ratios of the two sides' samples.
    for (const s of [row.ratio, row.bodyRatio]) {
      expect(s.n).toBe(3)
      expect(s.min).toBeLessThanOrEqual(s.median)
      expect(s.median).toBeLessThanOrEqual(s.max)
    }
    expect(row.pipelineOnMcp.n).toBe(3)
    expect(row.ratio.min).toBeGreaterThanOrEqual(row.bridge.min / row.bare.max - 1e-9)
    expect(row.ratio.max).toBeLessThanOrEqual(row.bridge.max / row.bare.min + 1e-9)
    if (process.platform === 'linux') expect(row.threadShare).toBeGreaterThan(0)
  }
  expect(lines.map((l) => l.split(':')[0])).toEqual(['mcp sequential', 'mcp parallel'])
  expect(result.bundled).toBe(false)
  const section = renderMcpSection(result)
  expect(section.startsWith(`${MCP_START}\n## 8. MCP bridge overhead`)).toBe(true)
  expect(section.endsWith(MCP_END)).toBe(true)
  expect(section.split('\n').filter((l) => /^\| (sequential|parallel) \|/.test(l))).toHaveLength(2)
  const dated = renderMcpSection(result, { date: '2026-12-02T03:58:12.345Z', commit: 'abc1234' })
  expect(dated.split('\n')[3]).toBe('Measured by `bench:mcp` on 2026-12-02 03:58 UTC at commit abc1234 (this section is written by its own run; the header of this report describes the main run).')
  expect(section.split('\n')[3]).toMatch(/^Per-call cost of /)
  const doc = `# Benchmarks\n\n${MCP_START}\nold\n${MCP_END}\n\n## Optimisations\n`
  expect(spliceMcpSection(doc, section)).toBe(`# Benchmarks\n\n${section}\n\n## Optimisations\n`)
})
