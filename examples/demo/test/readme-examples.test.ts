/**
 * README examples must compile: every ```ts block in a package README, in every docs/*.md and in
 * the root README must be the verbatim content of a file that the root `tsc` typechecks (a
 * package's `examples/` or `test/` folder; for the root README also `examples/scripts/`), so an
 * example cannot drift from the API.
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'

const root = fileURLToPath(new URL('../../../', import.meta.url))

function tsBlocks(markdown: string): string[] {
  const blocks: string[] = []
  const re = /```ts\n([\s\S]*?)```/g
  for (let m = re.exec(markdown); m !== null; m = re.exec(markdown)) blocks.push(m[1]!)
  return blocks
}

function sources(dirs: string[]): string[] {
  const out: string[] = []
  const walk = (dir: string): void => {
    if (!existsSync(dir)) return
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name)
      if (e.isDirectory() && e.name !== 'node_modules' && e.name !== 'fixtures') walk(p)
      else if (e.name.endsWith('.ts')) out.push(readFileSync(p, 'utf8'))
    }
  }
  dirs.forEach(walk)
  return out
}

const normalize = (s: string): string => s.replace(/\r\n/g, '\n').trim()

const documents = [
  ...readdirSync(join(root, 'packages')).map((p) => ({ doc: join('packages', p, 'README.md'), dirs: [join(root, 'packages', p, 'examples'), join(root, 'packages', p, 'test')] })),
  // Every guide in docs/ (testing.md, cookbook-adding-a-tool.md, …): its examples may come from any package.
  ...readdirSync(join(root, 'docs'))
    .filter((d) => d.endsWith('.md'))
    .map((d) => ({ doc: join('docs', d), dirs: readdirSync(join(root, 'packages')).flatMap((p) => [join(root, 'packages', p, 'examples'), join(root, 'packages', p, 'test')]) })),
  // The root README's first program is examples/scripts/hello.ts (run by examples/scripts/test).
  { doc: 'README.md', dirs: [join(root, 'examples', 'scripts'), ...readdirSync(join(root, 'packages')).flatMap((p) => [join(root, 'packages', p, 'examples'), join(root, 'packages', p, 'test')])] },
].filter((d) => existsSync(join(root, d.doc)))

describe('README and doc examples are typechecked sources', () => {
  test.each(documents)('$doc', ({ doc, dirs }) => {
    const files = sources(dirs).map(normalize)
    const missing = tsBlocks(readFileSync(join(root, doc), 'utf8'))
      .map(normalize)
      .filter((block) => !files.some((f) => f.includes(block)))
      .map((block) => block.split('\n').slice(0, 3).join('\n'))
    expect(missing).toEqual([])
  })
})
