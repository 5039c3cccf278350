/**
 * Names once given in a conversation stay (issue: `a.b` was declared `a_b` while alone and
 * `a_b_<hash>` once a tool named `a_b` appeared, so earlier turns pointed at the other tool).
 */
import { describe, expect, test } from 'vitest'
import fc from 'fast-check'
import {
  OPENAI_NAME_RULE,
  assignWireNames,
  nameMapFromEntries,
  parseOpenAIChatCompletion,
  toAnthropicTools,
  toDeepSeekTools,
  toGeminiTools,
  toOpenAIChatTools,
  toOpenAICompatibleTools,
  toOpenAIResponsesTools,
  type NameMapEntry,
} from '../src/providers'

const tool = (name: string) => ({ name, description: '', parameters: { type: 'object', properties: {} } })
const hashed = (name: string): string => assignWireNames([name, 'a_b'], OPENAI_NAME_RULE).toWire(name) as string

describe('a conversation-scoped name map', () => {
  test('without it the name changes when a clashing tool appears; with it the earlier name stays and the newcomer is rewritten', () => {
    const first = toOpenAIChatTools({ tools: [tool('a.b')] })
    expect(first.nameMap.entries).toEqual([{ original: 'a.b', wire: 'a_b' }])
    // The fault: declared again without the conversation's names, `a.b` moves.
    expect(toOpenAIChatTools({ tools: [tool('a.b'), tool('a_b')] }).nameMap.toWire('a.b')).toBe(hashed('a.b'))

    const second = toOpenAIChatTools({ tools: [tool('a.b'), tool('a_b')] }, { names: first.nameMap })
    const newcomer = assignWireNames(['a_b'], OPENAI_NAME_RULE, [{ original: 'a.b', wire: 'a_b' }]).toWire('a_b') as string
    expect(newcomer).toMatch(/^a_b_[0-9a-f]{8}$/)
    expect(second.nameMap.entries).toEqual([
      { original: 'a.b', wire: 'a_b' },
      { original: 'a_b', wire: newcomer },
    ])
    expect(second.tools.map((t) => t.function.name)).toEqual(['a_b', newcomer])
    expect(second.warnings.filter((w) => w.code === 'NAME_MAPPED')).toEqual([
      { tool: 'a.b', pointer: '/name', code: 'NAME_MAPPED', message: 'name "a.b" breaks the provider rule ^[a-zA-Z0-9_-]{1,64}$; sent as "a_b"' },
      { tool: 'a_b', pointer: '/name', code: 'NAME_MAPPED', message: `name "a_b" was given to "a.b" earlier in this conversation; sent as "${newcomer}"` },
    ])
    // An earlier turn's call to `a_b` still means `a.b`.
    const parsed = parseOpenAIChatCompletion(
      { choices: [{ finish_reason: 'tool_calls', message: { tool_calls: [{ id: 'c1', function: { name: 'a_b', arguments: '{}' } }, { id: 'c2', function: { name: newcomer, arguments: '{}' } }] } }] },
      { nameMap: second.nameMap },
    )
    expect(parsed.calls.map((c) => c.name)).toEqual(['a.b', 'a_b'])
  })

  test('a tool that leaves keeps its name reserved: a later newcomer cannot take it, and the history still maps back', () => {
    const first = toAnthropicTools({ tools: [tool('a.b')] })
    const without = toAnthropicTools({ tools: [tool('x')] }, { names: first.nameMap })
    expect(without.tools.map((t) => t.name)).toEqual(['x'])
    expect(without.nameMap.entries).toEqual([
      { original: 'a.b', wire: 'a_b' },
      { original: 'x', wire: 'x' },
    ])
    expect(without.nameMap.toOriginal('a_b')).toBe('a.b')
    const later = toAnthropicTools({ tools: [tool('x'), tool('a_b')] }, { names: without.nameMap })
    expect(later.nameMap.toWire('a_b')).toMatch(/^a_b_[0-9a-f]{8}$/)
    expect(later.nameMap.toWire('a.b')).toBe('a_b')
  })

  test('persisted entries (plain JSON) restore the same names, for every builder', () => {
    const saved: NameMapEntry[] = JSON.parse(JSON.stringify(toOpenAIChatTools({ tools: [tool('a.b'), tool('get')] }).nameMap.entries))
    const tools = [tool('a_b'), tool('get'), tool('a.b')]
    for (const declare of [toOpenAIChatTools, toOpenAICompatibleTools, toDeepSeekTools, toOpenAIResponsesTools, toAnthropicTools]) {
      const declared = declare({ tools }, { names: saved })
      expect(declared.nameMap.toWire('a.b')).toBe('a_b')
      expect(declared.nameMap.toWire('get')).toBe('get')
      expect(declared.nameMap.toWire('a_b')).toMatch(/^a_b_[0-9a-f]{8}$/)
      expect(declared.nameMap.entries.map((e) => e.original)).toEqual(['a.b', 'get', 'a_b'])
    }
    expect(nameMapFromEntries(toOpenAIChatTools({ tools }, { names: saved }).nameMap.entries).toOriginal('a_b')).toBe('a.b')
  })

  test('Gemini: a name kept under its own rule stays; a name from another provider that breaks the rule is re-assigned', () => {
    const first = toGeminiTools({ tools: [tool('a.b')] })
    expect(first.nameMap.toWire('a.b')).toBe('a.b')
    const second = toGeminiTools({ tools: [tool('a.b'), tool('9x')] }, { names: first.nameMap })
    expect(second.nameMap.entries).toEqual([
      { original: 'a.b', wire: 'a.b' },
      { original: '9x', wire: '_9x' },
    ])
    const foreign = toGeminiTools({ tools: [tool('9x')] }, { names: [{ original: '9x', wire: '9x' }] })
    expect(foreign.nameMap.entries).toEqual([{ original: '9x', wire: '_9x' }])
  })

  test('the names of a declaration do not depend on registration order, with or without the conversation map', () => {
    const names = [{ original: 'a.b', wire: 'a_b' }]
    const one = toOpenAIChatTools({ tools: [tool('a_b'), tool('a:b'), tool('a.b')] }, { names })
    const two = toOpenAIChatTools({ tools: [tool('a.b'), tool('a:b'), tool('a_b')] }, { names })
    for (const name of ['a.b', 'a:b', 'a_b']) expect(one.nameMap.toWire(name)).toBe(two.nameMap.toWire(name))
    expect(one.nameMap.toWire('a.b')).toBe('a_b')
  })

  test('names that are not a map or entries are refused, naming what was wrong', () => {
    const tools = [tool('a.b')]
    expect(() => toOpenAIChatTools({ tools }, { names: {} as never })).toThrow(new TypeError('names must be a NameMap (a declaration\'s nameMap) or its entries array, got {}'))
    expect(() => toAnthropicTools({ tools }, { names: [{ original: 'a.b' }] as never })).toThrow(new TypeError('names: entry 0 must be { original, wire } with non-empty strings, got {"original":"a.b"}'))
    expect(() => toGeminiTools({ tools }, { names: [{ original: 'a', wire: 'x' }, { original: 'b', wire: 'x' }] })).toThrow(new RangeError('name map: the provider name "x" is used by "a" and "b"'))
  })

  test('property: over any sequence of tool sets, a name once given never changes and the map stays one-to-one', () => {
    const name = fc.constantFrom('a.b', 'a_b', 'a:b', 'a-b', 'x', 'x.y', 'x_y', '搜索', 'b')
    fc.assert(
      fc.property(fc.array(fc.uniqueArray(name, { maxLength: 6 }), { minLength: 1, maxLength: 6 }), (turns) => {
        let names: NameMapEntry[] = []
        const given = new Map<string, string>()
        for (const set of turns) {
          const declared = toOpenAIChatTools({ tools: set.map(tool) }, { names })
          for (const [original, wire] of given) expect(declared.nameMap.toWire(original)).toBe(wire)
          expect(new Set(declared.nameMap.entries.map((e) => e.wire)).size).toBe(declared.nameMap.entries.length)
          expect(declared.tools.map((t) => declared.nameMap.toOriginal(t.function.name))).toEqual(set)
          for (const e of declared.nameMap.entries) given.set(e.original, e.wire)
          names = [...declared.nameMap.entries]
        }
      }),
      { numRuns: 200 },
    )
  })
})
