/**
 * examples/preliminary.ts (its middle is the README's "Preliminary results" block) runs to
 * completion and prints exactly what its closing comments say.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { expect, test } from 'vitest'

const file = fileURLToPath(new URL('../examples/preliminary.ts', import.meta.url))
const tsx = fileURLToPath(new URL('../../../node_modules/.bin/tsx', import.meta.url))

test('the preliminary-results example prints what its comments say', { timeout: 60_000 }, () => {
  const printed = execFileSync(tsx, ['--conditions=dsh-source', file], { encoding: 'utf8', timeout: 50_000, env: { ...process.env, NO_COLOR: '1' } })
  const expected = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('// '))
    .map((line) => line.slice(3))
  expect(printed.trim().split('\n')).toEqual(expected)
})
