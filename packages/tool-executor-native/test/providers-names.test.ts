/** Provider name rules and the reversible name map (emission E24). */
import { describe, expect, test } from 'vitest'
import fc from 'fast-check'
import {
  ANTHROPIC_NAME_RULE,
  GEMINI_NAME_RULE,
  OPENAI_NAME_RULE,
  assignWireNames,
  isValidToolName,
  nameMapFromEntries,
  toAnthropicTools,
  toGeminiTools,
  toOpenAIChatTools,
} from '../src/providers'
import { bfclFunctions } from './providers-fixtures'

const tool = (name: string) => ({ name, description: '', parameters: { type: 'object', properties: {} } })

describe('name rules', () => {
  test('OpenAI/Anthropic: letters, digits, _ and -, 1 to 64 characters', () => {
    for (const rule of [OPENAI_NAME_RULE, ANTHROPIC_NAME_RULE]) {
      expect(isValidToolName('get_weather-2', rule)).toBe(true)
      expect(isValidToolName('9lives', rule)).toBe(true)
      expect(isValidToolName('math.factorial', rule)).toBe(false)
      expect(isValidToolName('ns:tool', rule)).toBe(false)
      expect(isValidToolName('', rule)).toBe(false)
      expect(isValidToolName('a'.repeat(64), rule)).toBe(true)
      expect(isValidToolName('a'.repeat(65), rule)).toBe(false)
    }
  })

  test('Gemini: starts with a letter or _, then also allows . and :', () => {
    expect(isValidToolName('math.factorial', GEMINI_NAME_RULE)).toBe(true)
    expect(isValidToolName('ns:tool-1', GEMINI_NAME_RULE)).toBe(true)
    expect(isValidToolName('9lives', GEMINI_NAME_RULE)).toBe(false)
    expect(isValidToolName('-x', GEMINI_NAME_RULE)).toBe(false)
    expect(isValidToolName('a b', GEMINI_NAME_RULE)).toBe(false)
  })
})

describe('assignWireNames', () => {
  test('dotted BFCL names become underscored; valid names are untouched', () => {
    const map = assignWireNames(['math.factorial', 'get_weather', 'law.civil.get_case_details'], OPENAI_NAME_RULE)
    expect(map.entries).toEqual([
      { original: 'math.factorial', wire: 'math_factorial' },
      { original: 'get_weather', wire: 'get_weather' },
      { original: 'law.civil.get_case_details', wire: 'law_civil_get_case_details' },
    ])
    expect(map.toOriginal('math_factorial')).toBe('math.factorial')
    expect(map.toWire('math.factorial')).toBe('math_factorial')
  })

  test('collisions get a hash of the original name, not an order-dependent counter; a valid name keeps itself whatever its position', () => {
    const map = assignWireNames(['a.b', 'a:b', 'a_b'], OPENAI_NAME_RULE)
    const wires = map.entries.map((e) => e.wire)
    expect(wires[2]).toBe('a_b')
    expect(wires[0]).toMatch(/^a_b_[0-9a-f]{8}$/)
    expect(wires[1]).toMatch(/^a_b_[0-9a-f]{8}$/)
    expect(wires.map((w) => map.toOriginal(w))).toEqual(['a.b', 'a:b', 'a_b'])
    expect(assignWireNames(['a_b', 'a:b', 'a.b'], OPENAI_NAME_RULE).entries.map((e) => e.wire)).toEqual([wires[2], wires[1], wires[0]])
  })

  test('too long: shortened with a hash of the original, still within the limit and distinct', () => {
    const long1 = `${'x'.repeat(70)}.one`
    const long2 = `${'x'.repeat(70)}.two`
    const map = assignWireNames([long1, long2], OPENAI_NAME_RULE)
    const [w1, w2] = map.entries.map((e) => e.wire)
    expect(w1).toHaveLength(64)
    expect(w2).toHaveLength(64)
    expect(w1).not.toBe(w2)
    expect(w1).toMatch(/^x{55}_[0-9a-f]{8}$/)
    expect(assignWireNames([long1, long2], OPENAI_NAME_RULE).entries).toEqual(map.entries)
  })

  test('Gemini: a leading digit gets a _ prefix; dots are kept', () => {
    const map = assignWireNames(['3d.render', 'math.factorial'], GEMINI_NAME_RULE)
    expect(map.entries.map((e) => e.wire)).toEqual(['_3d.render', 'math.factorial'])
  })

  test('unknown provider names pass through toOriginal unchanged', () => {
    const map = assignWireNames(['a.b'], OPENAI_NAME_RULE)
    expect(map.toOriginal('hallucinated')).toBe('hallucinated')
    expect(map.hasWire('hallucinated')).toBe(false)
    expect(map.toWire('hallucinated')).toBeUndefined()
  })

  test('property: for any distinct names, the map is valid, one-to-one, reversible and deterministic', () => {
    const nameArb = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_.:-]{0,90}$/)
    fc.assert(
      fc.property(fc.uniqueArray(nameArb, { maxLength: 12 }), (names) => {
        for (const rule of [OPENAI_NAME_RULE, GEMINI_NAME_RULE]) {
          const map = assignWireNames(names, rule)
          const wires = map.entries.map((e) => e.wire)
          expect(new Set(wires).size).toBe(names.length)
          for (const { original, wire } of map.entries) {
            expect(isValidToolName(wire, rule)).toBe(true)
            expect(map.toOriginal(wire)).toBe(original)
            if (isValidToolName(original, rule)) expect(wire).toBe(original)
          }
          expect(assignWireNames(names, rule).entries).toEqual(map.entries)
        }
      }),
      { numRuns: 200 },
    )
  })
})

test('nameMapFromEntries restores a persisted map and rejects a non-injective one', () => {
  const map = nameMapFromEntries([{ original: 'uber.ride', wire: 'uber_ride' }])
  expect(map.toOriginal('uber_ride')).toBe('uber.ride')
  expect(() => nameMapFromEntries([{ original: 'a.b', wire: 'a_b' }, { original: 'a:b', wire: 'a_b' }])).toThrow(
    new RangeError('name map: the provider name "a_b" is used by "a.b" and "a:b"'),
  )
  expect(() => nameMapFromEntries([{ original: 'a', wire: 'a' }, { original: 'a', wire: 'b' }])).toThrow(new RangeError('name map: the tool name "a" appears twice'))
})

test('BFCL: every function gets exactly the OpenAI-safe name BFCL itself sends (real data, 246 functions)', () => {
  const functions = bfclFunctions()
  expect(functions.length).toBeGreaterThan(200)
  const byEntry = new Map<string, typeof functions>()
  for (const f of functions) byEntry.set(f.entry, [...(byEntry.get(f.entry) ?? []), f])
  let mapped = 0
  for (const group of byEntry.values()) {
    const declared = toOpenAIChatTools({ tools: group.map((f) => f.tool) })
    expect(declared.errors).toEqual([])
    expect(declared.tools.map((t) => t.function.name)).toEqual(group.map((f) => f.openaiSafeName))
    for (const f of group) {
      expect(declared.nameMap.toOriginal(f.openaiSafeName)).toBe(f.name)
      if (f.name !== f.openaiSafeName) mapped++
    }
  }
  expect(mapped).toBe(87)
})

test('declaration errors: an empty or duplicate name excludes only that tool', () => {
  for (const declare of [toOpenAIChatTools, toAnthropicTools, toGeminiTools]) {
    const result = declare({ tools: [tool('ok'), tool(''), tool('ok'), tool('fine')] })
    expect(result.tools.map((t) => ('function' in t ? t.function.name : t.name))).toEqual(['ok', 'fine'])
    expect(result.errors).toEqual([
      { tool: '', pointer: '/name', code: 'NAME_INVALID', message: 'tool name must be a non-empty string, got ""' },
      { tool: 'ok', pointer: '/name', code: 'NAME_DUPLICATE', message: 'tool "ok" appears more than once; only the first is declared' },
    ])
  }
})
