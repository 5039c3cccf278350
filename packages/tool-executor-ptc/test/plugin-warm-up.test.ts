/**
 * The `PtcExecutor` plugin's start: the runtime's warm-up, then the registry pipeline's
 * (`ToolPipeline.warmUp`, once per process), unless `warmUp: false`. Its own file: the
 * validator cache and the pipeline warm-up are per module graph, so nothing ran either before.
 */
import { afterEach, expect, test } from 'vitest'
import { validatorCacheStats } from '@deepseek-ai/dsh-tools'
import { PtcExecutor, RUN_CODE } from '@deepseek-ai/dsh-tool-executor-ptc'
import { createHarness, type Harness } from '@deepseek-ai/dsh-tool-testkit'

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

test('warmUp: false warms nothing; the default warms the run_code validator and the pipeline (its private tool: two validators), once per process', async () => {
  const start = validatorCacheStats().compiles
  h = await createHarness({ executor: 'none', plugins: [{ plugin: PtcExecutor, config: { warmUp: false } }] })
  expect(validatorCacheStats().compiles - start).toBe(0)
  await h.dispose()

  h = await createHarness({ executor: 'none', plugins: [{ plugin: PtcExecutor, config: {} }] })
  expect(validatorCacheStats().compiles - start).toBe(3)
  const [r] = await h.execute([{ callId: 'first', name: RUN_CODE, arguments: JSON.stringify({ code: 'return 6 * 7', description: 'first run' }) }])
  expect(r!.isError ? r!.error.message : r!.content).toEqual([{ type: 'text', text: '42' }])
  await h.dispose()

  // A second plugin start in the process compiles nothing more (the pipeline warms up once per process).
  h = await createHarness({ executor: 'none', plugins: [{ plugin: PtcExecutor, config: {} }] })
  expect(validatorCacheStats().compiles - start).toBe(3)
})
