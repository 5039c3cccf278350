/**
 * The repository root is a place where a new script runs with one documented command: the root
 * README's first example is `examples/scripts/hello.ts` verbatim, and `npm run tsx -- <file>`
 * (bootstrap, then tsx with the `dsh-source` condition) runs it from the root, resolving `cordis`
 * and the workspace packages from the root's dev dependencies.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const hello = readFileSync(new URL('../hello.ts', import.meta.url), 'utf8')

describe('examples/scripts: scripts run from the repository root', () => {
  test('the root README shows hello.ts verbatim', () => {
    const readme = readFileSync(new URL('README.md', `file://${root}`), 'utf8')
    expect(readme).toContain(`\`\`\`ts\n${hello}\`\`\``)
    expect(readme).toContain('npm run tsx -- examples/scripts/hello.ts')
  })

  test('npm run tsx -- examples/scripts/hello.ts prints the batch results in call order', () => {
    const r = spawnSync('npm', ['run', '--silent', 'tsx', '--', 'examples/scripts/hello.ts'], { cwd: root, encoding: 'utf8' })
    // The bootstrap may print an install first (after a dependency change); the script's own
    // output is the end of stdout.
    expect(r.status).toBe(0)
    expect(r.stdout).toMatch(/(^|\n)c1 5\nc2 INVALID_ARGS\n$/)
    expect(r.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('[bootstrap]'))).toEqual([])
  }, 120_000) // npm, the bootstrap check and tsx start-up: seconds on an idle machine, more on a loaded one
})
