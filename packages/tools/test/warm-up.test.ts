/**
 * `ToolPipeline.warmUp` (`src/warm-up.ts`): the stages run for a private tool so V8 compiles
 * them before the first real call. Nothing of it may be observable — no listener, guard,
 * approval service, session log or registration takes part, no event is emitted — and it runs
 * once per process.
 */
import { afterEach, describe, expect, test } from 'vitest'
import { defineTool, type ToolEvents } from '@deepseek-ai/dsh-tools'
import { call, createHarness, type Harness } from '@deepseek-ai/dsh-tool-testkit'
import { runWarmUp } from '../src/warm-up'
import type { PipelineConfig } from '../src/pipeline'

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

const echo = defineTool({
  name: 'echo',
  description: 'Echoes a text.',
  parameters: { text: { type: 'string', required: true } },
  output: { schema: { type: 'string' }, render: (_args, text) => [{ type: 'text', text }] },
  execute: (args) => args.text,
})

describe('pipeline.warmUp', () => {
  test('runs without any listener, guard, approval service or log seeing it, registers nothing, and returns one promise per process', async () => {
    h = await createHarness()
    const seen: string[] = []
    // Every call is asked about: the approval service would see a leaked warm-up call too.
    const pre: ToolEvents['tools/pre-execute'] = (exec) => {
      seen.push(`pre ${exec.name}`)
      return { type: 'ask', reason: 'checked' }
    }
    const wrapper: ToolEvents['tools/execute'] = (exec, next) => {
      seen.push(`execute ${exec.name}`)
      return next()
    }
    h.ctx.tools.on('tools/pre-execute', pre)
    h.ctx.tools.on('tools/execute', wrapper)
    h.ctx.on('tools/result', (result) => void seen.push(`result ${result.callId}`))
    h.ctx.on('tools/change', () => void seen.push('change'))
    h.ctx.on('tools/batch-start', () => void seen.push('batch-start'))
    h.ctx.tools.guard((exec) => void seen.push(`guard ${exec.name}`))
    h.ctx.tools.approval({
      request: (request) => {
        seen.push(`approval ${request.exec.name}`)
        return Promise.resolve({ type: 'approve' })
      },
    })
    const before = h.ctx.tools.definitions().map((d) => d.name)

    const first = h.ctx.tools.pipeline.warmUp!()
    const second = h.ctx.tools.pipeline.warmUp!()
    expect(second).toBe(first)
    await expect(first).resolves.toBeUndefined()

    expect(seen).toEqual([])
    expect(h.ctx.tools.definitions().map((d) => d.name)).toEqual(before)
    expect(h.ctx.tools.get('warm_up')).toBeUndefined()

    // The registry works as before afterwards, hooks included.
    h.ctx.tools.register(echo)
    const [r] = await h.execute([call('echo', { text: 'hi' }, 'c1')])
    expect(r!.isError).toBe(false)
    expect(r!.content).toEqual([{ type: 'text', text: 'hi' }])
    expect(seen).toEqual(['change', 'batch-start', 'pre echo', 'approval echo', 'guard echo', 'execute echo', 'result c1'])
  })

  test('its calls take the success path (validated arguments and output, render) and one failure path each way', async () => {
    const config: PipelineConfig = { maxArgumentBytes: 1 << 20, repair: {}, contentLimits: { maxChars: 25_000, maxLines: 0 }, unknownKeys: 'reject', progressIntervalMs: 100 }
    const results = await runWarmUp(config)
    expect(results.map((r) => r.callId)).toEqual([...Array.from({ length: 12 }, (_, i) => `warm-up-${i}`), ...Array.from({ length: 12 }, (_, i) => `warm-up-batch-${i}`)])
    expect(results.map((r) => (r.isError ? r.error.info?.code : 'ok'))).toEqual(['INVALID_ARGS', ...Array<string>(11).fill('ok'), 'INVALID_ARGS', ...Array<string>(11).fill('ok')])
    expect(results[1]!.content).toEqual([{ type: 'text', text: 'w: 2' }])
    expect(results[23]!.isError ? undefined : results[23]!.value).toEqual({ n: 12, label: 'b' })
  })

  test('another registry of the process gets the same promise (the compiled code is shared)', async () => {
    h = await createHarness()
    const other = await createHarness()
    try {
      expect(other.ctx.tools.pipeline.warmUp!()).toBe(h.ctx.tools.pipeline.warmUp!())
    } finally {
      await other.dispose()
    }
  })
})
