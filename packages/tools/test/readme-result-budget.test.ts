/**
 * examples/result-budget.ts (the README's "Result budgets" block, all but its header comment and
 * the closing comments) runs to completion and prints exactly what its closing comments say.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { expect, test } from 'vitest'

const file = fileURLToPath(new URL('../examples/result-budget.ts', import.meta.url))
const tsx = fileURLToPath(new URL('../../../node_modules/.bin/tsx', import.meta.url))

test('the result-budget example prints what its comments say', { timeout: 60_000 }, () => {
  const source = readFileSync(file, 'utf8')
  const block = source.slice(source.indexOf("import { Context }"), source.indexOf('// model sees'))
  expect(readFileSync(new URL('../README.md', import.meta.url), 'utf8')).toContain(`\`\`\`ts\n${block}\`\`\``)
  const printed = execFileSync(tsx, ['--conditions=dsh-source', file], { encoding: 'utf8', timeout: 50_000, env: { ...process.env, NO_COLOR: '1' } })
  const expected = source
    .slice(source.indexOf('// model sees'))
    .trimEnd()
    .split('\n')
    .map((line) => line.slice(3))
  expect(printed.trim().split('\n').map((line) => line.replace(/res_[0-9a-f]{16}/g, '<handle>'))).toEqual(expected)
})
