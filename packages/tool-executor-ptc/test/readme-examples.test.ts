/**
 * The README's example ("Use this package") as a reader runs it: the code block is
 * `examples/quick-start.ts` verbatim, and running the file prints what the block's comments
 * say: the one tool `run_code`, the SDK section, and the program's output as one text block.
 */
import { readFileSync } from 'node:fs'
import { afterEach, expect, test, vi } from 'vitest'

afterEach(() => {
  vi.restoreAllMocks()
})

test('examples/quick-start.ts is the README block verbatim and prints run_code, the SDK and the documented output', async () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
  expect(readme).toContain(`\`\`\`ts\n${readFileSync(new URL('../examples/quick-start.ts', import.meta.url), 'utf8')}\`\`\``)
  const printed: unknown[][] = []
  vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void printed.push(args))
  await import(/* @vite-ignore */ new URL('../examples/quick-start.ts', import.meta.url).href)
  expect(printed).toHaveLength(2)
  const [names, sdk] = printed[0]!
  expect(names).toEqual(['run_code'])
  expect(sdk).toContain('declare const tools: {\n  /** Look up one order record by id (ORD-nnnn). */\n  lookup_order(args: { id: string; [key: string]: unknown }): Promise<{ id: string; total: number; [key: string]: unknown }>\n}')
  expect(printed[1]).toEqual([
    [{ type: 'text', text: 'skipped: Invalid arguments for tool "lookup_order": /id: must match pattern "^ORD-[0-9]{4}$"\n{\n  "count": 3,\n  "total": 300.6\n}' }],
  ])
})

test('examples/suspend.ts is the README block verbatim and prints what its comments say', async () => {
  const source = readFileSync(new URL('../examples/suspend.ts', import.meta.url), 'utf8')
  expect(readFileSync(new URL('../README.md', import.meta.url), 'utf8')).toContain(`\`\`\`ts\n${source}\`\`\``)
  const printed: string[] = []
  vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void printed.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ')))
  await import(/* @vite-ignore */ new URL('../examples/suspend.ts', import.meta.url).href)
  const commented = source.split('\n').filter((line, i, lines) => line.startsWith('// ') && i > 0 && lines[i - 1]!.includes('console.log')).map((line) => line.slice(3))
  expect(commented).toEqual(['call_1:code:2 deploy {"version":"v2"}: deploys need a human', 'complete [{"type":"text","text":"deployed v2"}]'])
  expect(printed).toEqual(commented)
}, 60_000)
