/**
 * The README's first example as a reader runs it (issue 34 item 8: it used to keep running
 * until killed): the block is `examples/basic.ts` verbatim, and the file, run as its own program
 * from the repository root with a bounded wait, prints the lines its comments show and exits 0 by
 * itself, leaving no stdio server behind.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { expect, test, vi } from 'vitest'
import { ToolRegistry } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'
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

test('the plugin example (examples/plugin.ts, the second README block): awaiting mounts the tools, disposing the fiber removes them and stops the server', async () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
  expect(readme).toContain(`\`\`\`ts\n${readFileSync(new URL('../examples/plugin.ts', import.meta.url), 'utf8')}\`\`\``)
  const { mountMemory } = await import('../examples/plugin')
  const printed: string[] = []
  const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void printed.push(args.join(' ')))
  const dir = mkdtempSync(join(tmpdir(), 'dsh-mcp-readme-'))
  const ctx = new Context()
  try {
    await ctx.plugin(ToolRegistry)
    await ctx.plugin(NativeExecutor, {})
    const fiber = mountMemory(ctx, join(dir, 'memory.jsonl'))
    await fiber
    expect(ctx.tools.schemas().map((s) => s.name)).toContain('memory__read_graph')
    await fiber.dispose()
    expect(ctx.tools.schemas()).toEqual([])
    expect(printed).toEqual(['MCP server memory: connecting', 'MCP server memory: ready', 'MCP server memory: closed'])
  } finally {
    log.mockRestore()
    await ctx.fiber.dispose()
    rmSync(dir, { recursive: true, force: true })
  }
}, 60_000)
