/**
 * The README's example as a reader runs it: the code block is `examples/basic.ts` (after its
 * header comment) verbatim, and running the file prints what the block's comments say.
 */
import { readFileSync } from 'node:fs'
import { afterEach, expect, test, vi } from 'vitest'

afterEach(() => {
  vi.restoreAllMocks()
})

test('examples/basic.ts is the README block verbatim and prints what its comments say', async () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
  const source = readFileSync(new URL('../examples/basic.ts', import.meta.url), 'utf8')
  const body = source.replace(/^\/\*\*[\s\S]*?\*\/\n/, '')
  expect(body).not.toBe(source)
  expect(readme).toContain(`\`\`\`ts\n${body}\`\`\``)
  const printed: unknown[][] = []
  vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void printed.push(args))
  await import(/* @vite-ignore */ new URL('../examples/basic.ts', import.meta.url).href)
  expect(printed).toEqual([
    ['a', '{"words":6}'],
    ['b', `Tool "delete_file" was not approved by the MCP client's user`],
  ])
})
