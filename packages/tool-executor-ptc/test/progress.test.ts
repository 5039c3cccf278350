/**
 * PTC sub-call progress uses the same `tools/progress` event as native calls: the sub-call's
 * id (`<callId>:code:<n>`) with `parentCallId` set to the `run_code` call, every event before
 * the `run_code` result, none in the model-facing output.
 */
import { afterEach, expect, test } from 'vitest'
import { defineTool, type ToolProgressEvent } from '@deepseek-ai/dsh-tools'
import { createPtcExecutor, RUN_CODE } from '@deepseek-ai/dsh-tool-executor-ptc'
import { createHarness, type Harness } from '@deepseek-ai/dsh-tool-testkit'

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

test('sub-calls report with their own ids and the run_code call as parent, before its result', async () => {
  h = await createHarness({ registry: { progressIntervalMs: 0 }, executor: createPtcExecutor({ limits: { wallMs: 5_000, computeMs: 2_000 } }) })
  h.ctx.tools.register(
    defineTool({
      name: 'count',
      description: 'Counts to n, reporting each step.',
      parameters: { n: { type: 'integer', required: true } },
      output: { schema: { type: 'integer' }, render: (_a, v) => [{ type: 'text', text: String(v) }] },
      execute(args, exec) {
        for (let i = 1; i <= args.n; i++) exec.reportProgress({ progress: i, total: args.n, message: `step ${i}` })
        return args.n
      },
    }),
  )
  const trace: string[] = []
  const events: ToolProgressEvent[] = []
  h.ctx.on('tools/progress', (event) => {
    events.push(event)
    trace.push(`progress:${event.callId}<${event.parentCallId ?? '-'}>:${event.progress}/${event.total ?? '?'}`)
  })
  h.ctx.on('tools/result', (result) => {
    trace.push(`result:${result.callId}`)
  })
  const code = 'const a = await tools.count({ n: 2 }); const b = await tools.count({ n: 1 }); return a + b'
  const [result] = await h.execute([{ callId: 'run1', name: RUN_CODE, arguments: JSON.stringify({ code, description: 'count twice' }) }])
  expect(result!.content).toEqual([{ type: 'text', text: '3' }])
  expect(trace).toEqual([
    'progress:run1:code:1<run1>:1/2',
    'progress:run1:code:1<run1>:2/2',
    'result:run1:code:1',
    'progress:run1:code:2<run1>:1/1',
    'result:run1:code:2',
    'result:run1',
  ])
  expect(events.map((e) => [e.tool, e.message, e.exec.parent?.callId])).toEqual([
    ['count', 'step 1', 'run1'],
    ['count', 'step 2', 'run1'],
    ['count', 'step 1', 'run1'],
  ])
})
