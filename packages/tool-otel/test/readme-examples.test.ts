/**
 * The README's two examples as a reader runs them: each code block is its `examples/*.ts` file
 * verbatim, and running the file prints what the block's comments say (the spans of a batch
 * with one success and one invalid call; the duration histogram's points per outcome).
 */
import { readFileSync } from 'node:fs'
import { afterEach, expect, test, vi } from 'vitest'

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')

async function run(file: string): Promise<unknown[][]> {
  expect(readme).toContain(`\`\`\`ts\n${readFileSync(new URL(`../examples/${file}`, import.meta.url), 'utf8')}\`\`\``)
  const printed: unknown[][] = []
  vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void printed.push(args))
  await import(/* @vite-ignore */ new URL(`../examples/${file}`, import.meta.url).href)
  return printed
}

afterEach(() => {
  vi.restoreAllMocks()
})

test('examples/basic.ts: one call span per call, error.type on the invalid one, then the batch span', async () => {
  expect(await run('basic.ts')).toEqual([
    ['execute_tool add', 'c1', ''],
    ['execute_tool add', 'c2', 'INVALID_ARGS'],
    ['execute_tools', '', ''],
  ])
})

test('examples/metrics.ts: one histogram point per tool and outcome', async () => {
  expect(await run('metrics.ts')).toEqual([
    ['gen_ai.execute_tool.duration', 'add', 'ok', 1],
    ['gen_ai.execute_tool.duration', 'add', 'INVALID_ARGS', 1],
  ])
})
