/**
 * The README's first example as a reader runs it (issue 34 item 8: it used to keep running
 * until killed): the block is `examples/basic.ts` verbatim, and the file, run as its own program
 * from the repository root with a bounded wait, prints the lines its comments show and exits 0 by
 * itself, leaving no stdio server behind.
 */
import { readFileSync } from 'node:fs'
import { expect, test } from 'vitest'
import { runExample } from '../../../scripts/run-example'

const source = readFileSync(new URL('../examples/basic.ts', import.meta.url), 'utf8')

test('examples/basic.ts is the first README block verbatim', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
  expect(readme.indexOf('```ts\n')).toBe(readme.indexOf(`\`\`\`ts\n${source}\`\`\``))
  expect(source.trimEnd().endsWith('await ctx.fiber.dispose()')).toBe(true)
})

test('examples/basic.ts prints what its comments say and exits by itself', async () => {
  const run = await runExample('packages/tool-mcp/examples/basic.ts', { timeoutMs: 60_000 })
  const expected = [
    'fs: ready, 14 tools',
    'search: reconnecting, 0 tools (could not connect: Version negotiation probe failed: fetch failed (bad port))',
    '[{"type":"text","text":"{\\n  \\"name\\": \\"dsh-tools-monorepo\\","}]',
  ]
  expect({ timedOut: run.timedOut, code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({ timedOut: false, code: 0, stdout: expected.map((line) => `${line}\n`).join(''), stderr: '' })
  for (const line of expected) expect(source).toContain(`\n// ${line}\n`)
}, 90_000) // tsx start-up and a stdio server: seconds on an idle machine, more on a loaded one
