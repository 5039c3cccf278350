/**
 * The README's suspension example as a reader runs it: the block is `examples/suspend.ts`
 * verbatim, and running it prints what its comments say (the state id varies: `<id>`).
 */
import { readFileSync } from 'node:fs'
import { afterEach, expect, test, vi } from 'vitest'

afterEach(() => {
  vi.restoreAllMocks()
})

test('examples/suspend.ts is the README block verbatim and prints what its comments say', async () => {
  const source = readFileSync(new URL('../examples/suspend.ts', import.meta.url), 'utf8')
  expect(readFileSync(new URL('../README.md', import.meta.url), 'utf8')).toContain(`\`\`\`ts\n${source}\`\`\``)
  const printed: string[] = []
  vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void printed.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ')))
  await import(/* @vite-ignore */ new URL('../examples/suspend.ts', import.meta.url).href)
  const commented = source.split('\n').filter((line, i, lines) => line.startsWith('// ') && i > 0 && lines[i - 1]!.includes('console.log')).map((line) => line.slice(3))
  expect(commented).toHaveLength(3)
  expect(printed).toHaveLength(3)
  expect(printed[0]).toBe(commented[0])
  expect(printed[1]).toBe(commented[1])
  expect(printed[2]!.replace(/state [0-9a-f-]{36} /, 'state <id> ')).toBe(commented[2])
})
