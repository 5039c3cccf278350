/**
 * The README's two examples as a reader runs them: each code block is its `examples/*.ts` file
 * verbatim, and running the file prints what the block's comments say (the attempt line, the
 * content and `meta.annotations.retry`; for `Retry-After`, the server's 1,000 ms wait).
 */
import { readFileSync } from 'node:fs'
import { afterEach, describe, expect, test, vi } from 'vitest'

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')

/** What the example printed with `console.log`, one entry per call, arguments as given. */
async function run(file: string): Promise<unknown[][]> {
  const printed: unknown[][] = []
  vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void printed.push(args))
  await import(/* @vite-ignore */ new URL(`../examples/${file}`, import.meta.url).href)
  return printed
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('README examples', () => {
  test('examples/basic.ts is the first block verbatim and prints the documented retry', async () => {
    expect(readme).toContain(`\`\`\`ts\n${readFileSync(new URL('../examples/basic.ts', import.meta.url), 'utf8')}\`\`\``)
    const printed = await run('basic.ts')
    expect(printed).toHaveLength(3)
    const [line, content, annotation] = printed
    expect(line).toHaveLength(1)
    expect(String(line![0])).toMatch(/^c1: attempt 1 failed \(ECONNRESET\); retrying in (\d+)ms$/)
    const waited = Number(/in (\d+)ms$/.exec(String(line![0]))![1])
    expect(waited).toBeGreaterThanOrEqual(0)
    expect(waited).toBeLessThanOrEqual(50)
    expect(content).toEqual([[{ type: 'text', text: 'Lisbon: 21°C, clear' }]])
    expect(annotation).toEqual([{ attempts: 2, delaysMs: [waited], errors: ['ECONNRESET'] }])
  })

  test('examples/retry-after.ts is the second block verbatim and waits exactly as long as Retry-After asked', async () => {
    expect(readme).toContain(`\`\`\`ts\n${readFileSync(new URL('../examples/retry-after.ts', import.meta.url), 'utf8')}\`\`\``)
    expect(await run('retry-after.ts')).toEqual([
      ['attempt 1 was rate-limited; the server asked for 1000ms, waiting 1000ms'],
      [[{ type: 'text', text: '3 issues match "timeout"' }]],
      [{ attempts: 2, delaysMs: [1000], errors: ['TOOL_FAILED'] }],
    ])
  })
})
