/**
 * `carryKeptSections`: a freshly rendered main report keeps every section other runs wrote
 * between markers, in its place, and the committed `docs/benchmarks.md` survives `bench:render`
 * with all its marked sections.
 */
import { readFileSync } from 'node:fs'
import { expect, test } from 'vitest'
import { carryKeptSections, keptRuns, spliceSection } from '../src/report/kept'
import { renderReport } from '../src/report/markdown'
import type { BenchResults } from '../src/run'

const block = (name: string, body: string): string => `<!-- ${name}:start -->\n${body}\n<!-- ${name}:end -->`

test('blocks go back before the heading that followed them; adjacent blocks stay together', () => {
  const old = ['# B', '## 5. PTC', 'old five', block('replay', '### Replay\nr'), '## 6. Scale', 'old six', block('a', '## 8. A'), block('b', '## 9. B'), '## Optimisations', 'old opt'].join('\n\n')
  expect(keptRuns(old).map((r) => [r.blocks.map((b) => b.name), r.before])).toEqual([
    [['replay'], '## 6. Scale'],
    [['a', 'b'], '## Optimisations'],
  ])
  const report = ['# B', '## 5. PTC', 'new five', '## 6. Scale', 'new six', '## Optimisations', 'new opt'].join('\n\n')
  expect(carryKeptSections(report, old)).toBe(['# B', '## 5. PTC', 'new five', block('replay', '### Replay\nr'), '## 6. Scale', 'new six', `${block('a', '## 8. A')}\n\n${block('b', '## 9. B')}`, '## Optimisations', 'new opt'].join('\n\n'))
})

test('a heading gone from the new report sends its block before ## Optimisations, else to the end; a block the report renders itself is not carried', () => {
  const old = `## 7. Gone\n\n${block('x', 'x')}\n\n## 8. Also gone\n`
  expect(carryKeptSections('# B\n\n## Optimisations\n', old)).toBe(`# B\n\n${block('x', 'x')}\n\n## Optimisations\n`)
  expect(carryKeptSections('# B\n', old)).toBe(`# B\n\n${block('x', 'x')}\n`)
  expect(carryKeptSections(`# B\n\n${block('x', 'fresh')}\n`, old)).toBe(`# B\n\n${block('x', 'fresh')}\n`)
  expect(carryKeptSections('# B\n', '# old, no markers\n')).toBe('# B\n')
  // An unterminated marker is not a block.
  expect(keptRuns('<!-- y:start -->\n## no end\n')).toEqual([])
})

test('bench:render of the committed results keeps every marked section of docs/benchmarks.md', () => {
  const doc = readFileSync(new URL('../../../docs/benchmarks.md', import.meta.url), 'utf8')
  const results = JSON.parse(readFileSync(new URL('../results/latest.json', import.meta.url), 'utf8')) as BenchResults
  const optimisations = readFileSync(new URL('../src/report/optimisations.md', import.meta.url), 'utf8')
  const rendered = carryKeptSections(renderReport(results, { chartFile: 'benchmarks-batch.svg', optimisations }), doc)
  const names = keptRuns(doc).flatMap((r) => r.blocks.map((b) => b.name))
  expect(names).toEqual(['ptc-replay', 'mcp-bridge', 'mcp-server', 'durable-dbos', 'durable-restate', 'eager-stream', 'result-budget'])
  for (const run of keptRuns(doc)) for (const b of run.blocks) expect(rendered).toContain(b.text)
  expect(keptRuns(rendered).flatMap((r) => r.blocks.map((b) => b.name))).toEqual(names)
  // In place: the PTC replay figures inside §5, the others before the optimisation notes.
  expect(rendered.indexOf('<!-- ptc-replay:start -->')).toBeLessThan(rendered.indexOf('## 6. '))
  expect(rendered.indexOf('<!-- durable-restate:end -->')).toBeLessThan(rendered.indexOf('## Optimisations'))
})

test('spliceSection puts a section measured now in place of its block, or before ## Optimisations; $ patterns stay literal', () => {
  const doc = `# B\n\n${block('x', 'old')}\n\n## Optimisations\n`
  expect(spliceSection(doc, { name: 'x', text: block('x', 'new $& $1') })).toBe(`# B\n\n${block('x', 'new $& $1')}\n\n## Optimisations\n`)
  expect(spliceSection(doc, { name: 'y', text: block('y', 'Y') })).toBe(`# B\n\n${block('x', 'old')}\n\n${block('y', 'Y')}\n\n## Optimisations\n`)
  expect(spliceSection('no heading', { name: 'z', text: block('z', 'Z') })).toBe(`no heading\n\n${block('z', 'Z')}\n`)
})
