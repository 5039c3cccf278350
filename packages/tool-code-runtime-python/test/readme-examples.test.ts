/**
 * The README's example ("Use this package") as a reader runs it: the code block is
 * `examples/quick-start.ts` verbatim, and running the file prints what the block's comments
 * say: `run_code`'s Python description, the Python SDK section, and the program's output as one
 * text block (the same text as the TypeScript quick start's).
 */
import { readFileSync } from 'node:fs'
import { afterEach, expect, test, vi } from 'vitest'

afterEach(() => {
  vi.restoreAllMocks()
})

test('examples/quick-start.ts is the README block verbatim and prints the Python run_code, its SDK and the documented output', async () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
  expect(readme).toContain(`\`\`\`ts\n${readFileSync(new URL('../examples/quick-start.ts', import.meta.url), 'utf8')}\`\`\``)
  const printed: unknown[][] = []
  vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void printed.push(args))
  await import(/* @vite-ignore */ new URL('../examples/quick-start.ts', import.meta.url).href)
  expect(printed).toHaveLength(2)
  const [description, sdk] = printed[0]!
  expect(String(description)).toMatch(/^Execute a Python program /)
  // "Model Experience" quotes it in full (wrapped over lines).
  expect(readme.replace(/\n/g, ' ')).toContain(`"${String(description)}"`)
  // The README's "Model Experience" shows this SDK section as its exact text.
  const shown = readme.split('```python\n')[1]!.split('```')[0]!
  expect(`${String(sdk)}\n`).toBe(shown)
  expect(printed[1]).toEqual([
    [{ type: 'text', text: 'skipped: Invalid arguments for tool "lookup_order": /id: must match pattern "^ORD-[0-9]{4}$"\n{\n  "count": 3,\n  "total": 300.6\n}' }],
  ])
}, 60_000)
