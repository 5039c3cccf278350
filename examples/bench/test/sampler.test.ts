import { describe, expect, test } from 'vitest'
import { hostDrift } from '../src/report/markdown'
import { roundOrder } from '../src/sampler'

describe('roundOrder', () => {
  const items = ['floor', 'dsh-bare', 'dsh', 'dsh-ctx-on', 'ai-sdk', 'agents-sdk']

  test('is a permutation, the same for the same round in every run, not the same in every round', () => {
    const orders = Array.from({ length: 15 }, (_, r) => roundOrder(items, r))
    for (const order of orders) expect([...order].sort()).toEqual([...items].sort())
    expect(roundOrder(items, 7)).toEqual(orders[7])
    expect(new Set(orders.map((o) => o.join())).size).toBeGreaterThan(10)
    expect(roundOrder([], 3)).toEqual([])
    expect(items).toEqual(['floor', 'dsh-bare', 'dsh', 'dsh-ctx-on', 'ai-sdk', 'agents-sdk'])
  })

  test('within 31 rounds every contender runs right after every other one (a rotation keeps one fixed predecessor)', () => {
    const pairs = new Set<string>()
    for (let r = 0; r < 31; r++) {
      const order = roundOrder(items, r)
      for (let i = 1; i < order.length; i++) pairs.add(`${order[i - 1]}>${order[i]}`)
    }
    expect(pairs.size).toBe(items.length * (items.length - 1))
  })
})

describe('hostDrift', () => {
  test('reports a probe that moved by more than 15 % either way, and nothing otherwise', () => {
    expect(hostDrift(128, 223)).toBeCloseTo(223 / 128, 10)
    expect(hostDrift(200, 120)).toBeCloseTo(0.6, 10)
    expect(hostDrift(125, 122)).toBeUndefined()
    expect(hostDrift(100, 115)).toBeUndefined()
    expect(hostDrift(undefined, 120)).toBeUndefined()
    expect(hostDrift(120, undefined)).toBeUndefined()
  })
})
