/**
 * Regression coverage of `fixtures/real/cases/bug_cases.json` (ARCHITECTURE §11: "The bug
 * cases … are regression tests"). Every case is owned by exactly one suite, which names a
 * test after the case id; this file checks that index against the fixture and the suites, so
 * a new case or a renamed test fails here instead of going unnoticed.
 *
 * At the time of writing all 15 cases are covered by the packages that own their behaviour,
 * and none remains for the testkit itself.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { loadBugCases } from '@deepseek-ai/dsh-tool-testkit'

/** The suite that owns each case (paths from the repository root). */
const OWNERS: Readonly<Record<string, string>> = {
  B01: 'packages/tools/test/bug-cases.test.ts',
  B02: 'packages/tools/test/bug-cases.test.ts',
  B03: 'packages/tools/test/bug-cases.test.ts',
  B04: 'packages/tools/test/bug-cases.test.ts',
  B06: 'packages/tool-call-timeout-policy/test/b06.test.ts',
  B07: 'packages/tools/test/bug-cases.test.ts',
  B11: 'packages/tools/test/bug-cases.test.ts',
  B12: 'packages/tools/test/bug-cases.test.ts',
  B14: 'packages/tools/test/bug-cases.test.ts',
  B16: 'packages/tools/test/bug-cases.test.ts',
  B17: 'packages/tools/test/bug-cases.test.ts',
  B18: 'packages/tools/test/bug-cases.test.ts',
  B19: 'packages/tool-executor-ptc/test/hostile.test.ts',
  B20: 'packages/tool-executor-ptc/test/hostile.test.ts',
  B22: 'packages/tools/test/bug-cases.test.ts',
}

const root = new URL('../../../', import.meta.url)
const cases = loadBugCases()

describe('bug cases', () => {
  test('every case in the fixture has an owning suite, and every owner names a real case', () => {
    expect(cases.map((c) => c.id).sort()).toEqual(Object.keys(OWNERS).sort())
    expect(cases.every((c) => c.source.url.startsWith('https://github.com/') && c.expected.length > 0)).toBe(true)
  })

  test.each(Object.entries(OWNERS))('%s is a named regression test in %s', (id, file) => {
    const text = readFileSync(new URL(file, root), 'utf8')
    // A describe/test/it title containing the id as a word (describe('B06 timeout-timer-leak', …)),
    // or the `name` of a row of a table-driven test ({ name: 'B19 Array.constructor', … }).
    const titled = new RegExp(`(\\b(describe|test|it)(\\.\\w+)*\\(|\\bname:)\\s*['"\`][^'"\`]*\\b${id}\\b`)
    expect(titled.test(text), `${file} has no test titled with ${id}`).toBe(true)
  })
})
