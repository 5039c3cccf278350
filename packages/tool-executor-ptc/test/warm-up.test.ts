import { afterEach, expect, test } from 'vitest'
import { validatorCacheStats } from '@deepseek-ai/dsh-tools'
import { createPtcExecutor, RUN_CODE } from '@deepseek-ai/dsh-tool-executor-ptc'
import { createHarness, type Harness } from '@deepseek-ai/dsh-tool-testkit'

// Its own file: the validator cache is per module graph, so nothing compiled the run_code
// validator before this test.
let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
})

test('warmUp() compiles the run_code argument validator, so the first run compiles nothing', async () => {
  const executor = createPtcExecutor()
  const before = validatorCacheStats().compiles
  await executor.warmUp()
  expect(validatorCacheStats().compiles - before).toBe(1)
  h = await createHarness({ executor })
  const compiled = validatorCacheStats().compiles
  const [r] = await h.execute([{ callId: 'first', name: RUN_CODE, arguments: JSON.stringify({ code: 'return 6 * 7', description: 'first run' }) }])
  expect(r!.isError ? r!.error.message : r!.content).toEqual([{ type: 'text', text: '42' }])
  expect(validatorCacheStats().compiles - compiled).toBe(0)
})

test('warmUp must be a boolean: anything else fails at once, naming the field', async () => {
  expect(() => createPtcExecutor({ warmUp: 'no' as never })).toThrow(new RangeError('warmUp must be a boolean, got "no"'))
  expect(() => createPtcExecutor({ warmUp: 0 as never })).toThrow(new RangeError('warmUp must be a boolean, got 0'))
  expect(() => createPtcExecutor({ warmUp: {} as never })).toThrow(new RangeError('warmUp must be a boolean, got an object'))
  expect(() => createPtcExecutor({ timeoutMs: '500' as never })).toThrow(new RangeError('timeoutMs must be a positive finite number of ms up to 2147483647, got "500"'))
})
