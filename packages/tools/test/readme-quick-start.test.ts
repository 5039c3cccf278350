/**
 * The README's first example as a reader runs it: the code block is `examples/quick-start.ts`
 * verbatim, and running the file prints exactly what the block's comments show, one line per
 * call (the first call's text is this machine's `/etc/hostname`, read by the example).
 */
import { existsSync, readFileSync } from 'node:fs'
import { afterEach, expect, test, vi } from 'vitest'

afterEach(() => {
  vi.restoreAllMocks()
})

test('examples/quick-start.ts is the README block verbatim and prints what its comments say', async () => {
  const source = readFileSync(new URL('../examples/quick-start.ts', import.meta.url), 'utf8')
  expect(readFileSync(new URL('../README.md', import.meta.url), 'utf8')).toContain(`\`\`\`ts\n${source}\`\`\``)
  const printed: string[] = []
  vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void printed.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ')))
  await import(/* @vite-ignore */ new URL('../examples/quick-start.ts', import.meta.url).href)
  const commented = source.split('\n').filter((line) => line.startsWith('// call_')).map((line) => line.slice(3))
  const hostname = existsSync('/etc/hostname') ? `ok: ${readFileSync('/etc/hostname', 'utf8').split('\n')[0]}` : undefined
  expect(printed).toEqual([
    '["read_file"]',
    hostname === undefined ? expect.stringMatching(/^call_1 TOOL_FAILED: Error: ENOENT: /) : `call_1 ${hostname}`,
    commented[1],
    commented[2],
  ])
  expect(commented[0]).toBe('call_1 ok: <the first line of /etc/hostname>   (TOOL_FAILED: Error: ENOENT: … where there is none)')
})
