/**
 * The `NativeExecutor` plugin's `warmUp` option: plugin start awaits the registry pipeline's
 * warm-up (`ToolPipeline.warmUp`, once per process) only when asked. Its own file: the validator
 * cache and the pipeline warm-up are per module graph, so nothing ran either before.
 */
import { afterEach, expect, test, vi } from 'vitest'
import { validatorCacheStats } from '@deepseek-ai/dsh-tools'
import { createNativeExecutor, NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'
import { call, createHarness, echoTool, type Harness } from '@deepseek-ai/dsh-tool-testkit'

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

test('the default warms nothing; warmUp: true warms the pipeline (its private tool: two validators) before plugin start ends, once per process', async () => {
  const start = validatorCacheStats().compiles
  h = await createHarness({ executor: 'none', plugins: [{ plugin: NativeExecutor, config: {} }] })
  expect(validatorCacheStats().compiles - start).toBe(0)
  await h.dispose()

  h = await createHarness({ executor: 'none', plugins: [{ plugin: NativeExecutor, config: { warmUp: true } }] })
  expect(validatorCacheStats().compiles - start).toBe(2)
  h.ctx.tools.register(echoTool())
  const [r] = await h.execute([call('echo', { text: 'hi' }, 'first')])
  expect(r!.isError ? r!.error.message : r!.content).toEqual([{ type: 'text', text: '{"text":"hi"}' }])
  await h.dispose()

  // A second plugin start in the process runs no call (the pipeline warms up once per process): no
  // validator is even looked up (each warm-up call looks its validators up).
  const before = validatorCacheStats()
  h = await createHarness({ executor: 'none', plugins: [{ plugin: NativeExecutor, config: { warmUp: true } }] })
  expect(validatorCacheStats()).toEqual(before)
})

test('warmUp that is not a boolean fails plugin start with a RangeError naming the field, before anything is mounted', async () => {
  h = await createHarness({ executor: 'none' })
  const silence = vi.spyOn(console, 'error').mockImplementation(() => {}) // cordis logs the failed fiber
  const silenceLog = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
  const failures: unknown[] = []
  try {
    // A function is named by its kind (not shown as undefined) and a BigInt is refused with the RangeError too.
    for (const warmUp of ['yes', () => true, 1n]) {
      try {
        await h.ctx.plugin(NativeExecutor, { warmUp: warmUp as never })
      } catch (error) {
        failures.push(error)
      }
    }
  } finally {
    silence.mockRestore()
    silenceLog.mockRestore()
  }
  expect(failures).toEqual([new RangeError('warmUp must be a boolean, got "yes"'), new RangeError('warmUp must be a boolean, got a function'), new RangeError('warmUp must be a boolean, got 1')])
  // Nothing was mounted: the scope still takes an executor, and a batch runs through it.
  const unmount = h.ctx.tools.mount(createNativeExecutor())
  h.ctx.tools.register(echoTool())
  const [r] = await h.execute([call('echo', { text: 'hi' }, 'c')])
  expect(r!.isError ? r!.error.message : r!.content).toEqual([{ type: 'text', text: '{"text":"hi"}' }])
  await unmount()
})
