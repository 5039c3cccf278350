/**
 * `keepSections`: rewriting `docs/benchmarks.md` keeps every marked section other runs wrote,
 * in order, before `## Optimisations`, and replaces a section this run measured.
 */
import { describe, expect, test } from 'vitest'
import { keepSections, markedSections, spliceSection } from '../src/report/kept-sections'

const section = (id: string, body: string): string => `<!-- ${id}:start -->\n## ${body}\n<!-- ${id}:end -->`
const previous = ['# Report', '## 7. old', section('mcp-bridge', '8. MCP'), '', section('durable-dbos', '10. DBOS'), '', '## Optimisations', 'old text'].join('\n')
const report = ['# Report', '## 7. new', '', '## Optimisations', 'new text'].join('\n')

describe('kept sections of docs/benchmarks.md', () => {
  test('markedSections lists each section with its markers, in order; a start without its end is ignored', () => {
    expect(markedSections(`${previous}\n<!-- broken:start -->`)).toEqual([
      { id: 'mcp-bridge', text: section('mcp-bridge', '8. MCP') },
      { id: 'durable-dbos', text: section('durable-dbos', '10. DBOS') },
    ])
  })

  test('the new report keeps every section of the previous file, in order, before ## Optimisations', () => {
    expect(keepSections(report, previous)).toBe(['# Report', '## 7. new', '', section('mcp-bridge', '8. MCP'), '', section('durable-dbos', '10. DBOS'), '', '## Optimisations', 'new text'].join('\n'))
  })

  test('a section this run measured replaces the kept one; a new one goes before ## Optimisations', () => {
    const fresh = [{ id: 'mcp-bridge', text: section('mcp-bridge', '8. MCP, $& new') }, { id: 'eager-stream', text: section('eager-stream', '12. Eager') }]
    const doc = keepSections(report, previous, fresh)
    expect(markedSections(doc).map((s) => s.text)).toEqual([section('mcp-bridge', '8. MCP, $& new'), section('durable-dbos', '10. DBOS'), section('eager-stream', '12. Eager')])
    expect(doc.indexOf('## 12. Eager')).toBeLessThan(doc.indexOf('## Optimisations'))
    expect(spliceSection('no heading', { id: 'x', text: section('x', 'X') })).toBe(`no heading\n\n${section('x', 'X')}\n`)
  })
})
