/**
 * The README's example as a reader runs it: the code block is `examples/basic.ts` (after its
 * header comment) verbatim, and running the file prints what the block's comments say: the
 * timed-out call's content and code, and `timeoutStats.snapshot()`.
 */
import { readFileSync } from 'node:fs'
import { afterEach, expect, test, vi } from 'vitest'

afterEach(() => {
  vi.restoreAllMocks()
})

test('examples/basic.ts is the README block verbatim and prints the documented timeout', async () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
  const source = readFileSync(new URL('../examples/basic.ts', import.meta.url), 'utf8')
  const body = source.replace(/^\/\*\*[\s\S]*?\*\/\n/, '')
  expect(body).not.toBe(source)
  expect(readme).toContain(`\`\`\`ts\n${body}\`\`\``)
  const printed: unknown[][] = []
  vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void printed.push(args))
  const warned = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
  await import(/* @vite-ignore */ new URL('../examples/basic.ts', import.meta.url).href)
  expect(printed).toEqual([
    [[{ type: 'text', text: 'Error: tool call timed out after 200ms' }], 'TOOL_TIMEOUT'],
    [{ timedOut: 1, abandoned: 0, abandonedRunning: 0 }],
  ])
  // The cooperative body stopped: nothing was abandoned.
  expect(warned).not.toHaveBeenCalled()
})
