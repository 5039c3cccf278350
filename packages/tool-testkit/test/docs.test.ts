/**
 * The documentation stays true: docs/testing.md embeds the CI-run example verbatim, and the
 * README's export map names every runtime export of the package.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import * as testkit from '@deepseek-ai/dsh-tool-testkit'

const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8')

describe('docs', () => {
  test('docs/testing.md contains test/docs-example.test.ts verbatim, in a ts code block', () => {
    const example = read('./docs-example.test.ts')
    expect(read('../../../docs/testing.md')).toContain('```ts\n' + example + '```\n')
  })

  test('the README names every runtime export', () => {
    const readme = read('../README.md')
    // Named as code: `name`, `name(…)` or `name`, … in the export map.
    const missing = Object.keys(testkit).filter((name) => !new RegExp(`\`${name}[\`(]`).test(readme))
    expect(missing).toEqual([])
  })
})
