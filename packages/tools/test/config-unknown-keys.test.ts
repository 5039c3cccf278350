import { describe, expect, test } from 'vitest'
import { checkConfigObject, showConfigValue, ToolRegistry, unknownOption, unknownOptions, type ToolRegistryConfig } from '@deepseek-ai/dsh-tools'
import { Context } from 'cordis'

describe('checkConfigObject and showConfigValue (the check every package config runs)', () => {
  test('a refused value reads as written, a string quoted, an array, object or function by its kind', () => {
    expect([showConfigValue('3'), showConfigValue(3), showConfigValue(5n), showConfigValue(null), showConfigValue(undefined), showConfigValue(true)]).toEqual(['"3"', '3', '5', 'null', 'undefined', 'true'])
    expect([showConfigValue([1]), showConfigValue({ a: 1 }), showConfigValue(() => 1)]).toEqual(['an array', 'an object', 'a function'])
  })

  test('a RangeError for a non-object (pointer left out at the root) and for the first unknown key; nothing for known keys', () => {
    expect(() => checkConfigObject('demo config', 4, ['a'])).toThrow(new RangeError('demo config: must be an object, got 4'))
    expect(() => checkConfigObject('demo config', [], ['a'], '/limits')).toThrow(new RangeError('demo config: /limits must be an object, got an array'))
    expect(() => checkConfigObject('demo config', { wallMS: 1 }, ['wallMs'], '/limits')).toThrow(new RangeError('demo config: /limits/wallMS is not a known option (expected wallMs; did you mean "wallMs"?)'))
    expect(checkConfigObject('demo config', { a: 1 }, ['a'])).toBeUndefined()
  })
})

describe('unknownOption', () => {
  test('names the first unknown key as a JSON pointer, the known keys and a close one', () => {
    expect(unknownOption({ a: 1, maxAttempt: 5 }, ['a', 'maxAttempts'])).toEqual({ key: 'maxAttempt', pointer: '/maxAttempt', detail: 'is not a known option (expected a, maxAttempts; did you mean "maxAttempts"?)' })
    expect(unknownOption({ wallMS: 1 }, ['wallMs', 'memoryBytes'], '/limits')).toEqual({ key: 'wallMS', pointer: '/limits/wallMS', detail: 'is not a known option (expected wallMs, memoryBytes; did you mean "wallMs"?)' })
  })

  test('a known key the config already holds is not suggested (as for arguments)', () => {
    expect(unknownOption({ maxAttempts: 3, maxAttempt: 5 }, ['a', 'maxAttempts'])).toEqual({ key: 'maxAttempt', pointer: '/maxAttempt', detail: 'is not a known option (expected a, maxAttempts)' })
  })

  test('without a close key it lists the known keys only; pointer tokens are escaped', () => {
    expect(unknownOption({ 'x/y~z': 1 }, ['alpha', 'beta'])).toEqual({ key: 'x/y~z', pointer: '/x~1y~0z', detail: 'is not a known option (expected alpha, beta)' })
  })

  test('undefined when every key is known (also for an empty object)', () => {
    expect(unknownOption({ a: 1, b: undefined }, ['a', 'b'])).toBeUndefined()
    expect(unknownOption({}, [])).toBeUndefined()
  })
})

describe('unknownOptions', () => {
  test('every unknown key in key order, each described as unknownOption describes the first', () => {
    const config = { defaultTimeout: 1, hardLimit: true, hardlimit: false, 'a/b': 2 }
    const all = unknownOptions(config, ['defaultTimeoutMs', 'hardLimit'], '/x')
    expect(all).toEqual([
      { key: 'defaultTimeout', pointer: '/x/defaultTimeout', detail: 'is not a known option (expected defaultTimeoutMs, hardLimit; did you mean "defaultTimeoutMs"?)' },
      { key: 'hardlimit', pointer: '/x/hardlimit', detail: 'is not a known option (expected defaultTimeoutMs, hardLimit)' },
      { key: 'a/b', pointer: '/x/a~1b', detail: 'is not a known option (expected defaultTimeoutMs, hardLimit)' },
    ])
    expect(all[0]).toEqual(unknownOption(config, ['defaultTimeoutMs', 'hardLimit'], '/x'))
    expect(Object.isFrozen(all)).toBe(true)
  })

  test('empty when every key is known', () => {
    expect(unknownOptions({ a: 1 }, ['a'])).toEqual([])
  })
})

describe('registry config: unknown keys and non-objects fail plugin start', () => {
  const start = (config: unknown): Promise<unknown> => Promise.resolve(new Context().plugin(ToolRegistry, config as ToolRegistryConfig))

  test('a typo at the top level', async () => {
    await expect(start({ maxArgumentByte: 10 })).rejects.toThrow(
      new RangeError('tools config: /maxArgumentByte is not a known option (expected maxArgumentBytes, repair, contentLimits, unknownKeys, progressIntervalMs, resultBudget; did you mean "maxArgumentBytes"?)'),
    )
  })

  test('a typo in contentLimits and in repair', async () => {
    await expect(start({ contentLimits: { maxChar: 10 } })).rejects.toThrow('tools config: /contentLimits/maxChar is not a known option (expected maxChars, maxLines; did you mean "maxChars"?)')
    await expect(start({ repair: { jsonString: true } })).rejects.toThrow('tools config: /repair/jsonString is not a known option (expected jsonStrings, numericStrings, nullAsAbsent; did you mean "jsonStrings"?)')
  })

  test('a non-object config or nested object', async () => {
    await expect(start(5)).rejects.toThrow(new RangeError('tools config: must be an object, got 5'))
    await expect(start([])).rejects.toThrow('tools config: must be an object, got an array')
    await expect(start({ contentLimits: 'big' })).rejects.toThrow('tools config: /contentLimits must be an object, got "big"')
    await expect(start({ repair: true })).rejects.toThrow('tools config: /repair must be an object, got true')
  })

  test('every documented key is accepted (README "Registry config"); no config and null mean the defaults', async () => {
    const documented: ToolRegistryConfig = {
      maxArgumentBytes: 1_048_576,
      repair: { jsonStrings: true, numericStrings: true, nullAsAbsent: true },
      contentLimits: { maxChars: 25_000, maxLines: 1_000 },
      progressIntervalMs: 100,
      unknownKeys: 'reject',
    }
    for (const config of [documented, {}, undefined, null, { repair: undefined, contentLimits: undefined }]) {
      const root = new Context()
      await root.plugin(ToolRegistry, config as ToolRegistryConfig)
      expect(root.get('tools')).toBeInstanceOf(ToolRegistry)
    }
  })
})
