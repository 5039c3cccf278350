/**
 * The package exports what its docs describe; the pipeline's internal helpers stay internal
 * (`index.ts` re-exports whole modules such as `json.ts`, so a helper added there is public).
 */
import { expect, test } from 'vitest'
import * as tools from '@deepseek-ai/dsh-tools'

test('the pipeline’s argument-freezing helpers are not exported; the documented JSON helpers are', () => {
  const names = Object.keys(tools)
  expect(names.filter((name) => ['freezeParsedArguments', 'freezeParsed', 'substituteDigits', 'findUnsafeIntegers', 'FoundTool', 'isUnconstrained'].includes(name))).toEqual([])
  expect(['snapshotJson', 'deepFreeze', 'escapePointer', 'capContent'].filter((name) => !names.includes(name))).toEqual([])
})
