/** The adapter's JSON check of a step value: the first non-JSON place as a JSON pointer. */
import { describe, expect, test } from 'vitest'
import { jsonProblem } from '../src/json-check'

describe('jsonProblem', () => {
  test('JSON values pass', () => {
    for (const value of [null, 0, -1.5, 'x', true, [], {}, { a: [1, { b: null }] }]) expect(jsonProblem(value)).toBeUndefined()
  })
  test('each non-JSON value is named at its pointer', () => {
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    expect([
      jsonProblem(undefined),
      jsonProblem({ a: [1, 2n] }),
      jsonProblem({ 'x/y': NaN }),
      jsonProblem([() => 1]),
      jsonProblem({ d: new Date(0) }),
      jsonProblem(cyclic),
      jsonProblem({ s: Symbol('s') }),
      jsonProblem({ n: Infinity }),
    ]).toEqual([
      '(root): undefined is not JSON',
      '/a/1: a BigInt (2n) is not JSON',
      '/x~1y: NaN is not a JSON number',
      '/0: a function is not JSON',
      '/d: a Date object is not JSON',
      '/self: a cycle (the value contains itself)',
      '/s: a symbol is not JSON',
      '/n: Infinity is not a JSON number',
    ])
  })
  test('a shared (non-cyclic) object twice is fine', () => {
    const shared = { k: 1 }
    expect(jsonProblem({ a: shared, b: shared })).toBeUndefined()
  })
})
