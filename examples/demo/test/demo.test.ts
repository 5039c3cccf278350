/**
 * The main job end to end: every recorded call's outcome and the PTC program's model-facing
 * output, exactly.
 */
import { fileURLToPath } from 'node:url'
import { expect, test, vi } from 'vitest'
import { runNative } from '../src/native'
import { runPtc } from '../src/ptc'

const root = fileURLToPath(new URL('../sample', import.meta.url))

test('the demo replays every recorded step and the PTC program with the expected outcomes', async () => {
  const log = vi.spyOn(console, 'log').mockImplementation(() => undefined)
  try {
    const native = await runNative(root)
    expect(native.outcomes).toEqual([
      'call_01 ok',
      'call_02 ok',
      'call_03 ok',
      'toolu_04 ok',
      'toolu_05 ok',
      'toolu_06 ok',
      'toolu_07 UNKNOWN_TOOL',
      'call_08 INVALID_ARGS',
      'call_09 ACCESS_DENIED',
      'call_10 ok',
      'call_11 ok',
      'call_12 ok',
      'call_13 TOOL_DENIED',
      'call_14 INVALID_ARGS',
      'call_15 TOOL_TIMEOUT',
      'call_16 ok',
      'call_17 TRUNCATED_RESPONSE',
      'call_18 TRUNCATED_ARGUMENTS',
    ])
    const ptc = await runPtc(root, native)
    expect(ptc.subCalls).toEqual([
      'list_allowed_directories ok',
      'search_files ok',
      'read_text_file ok',
      'lookup_order ok',
      'lookup_order ok',
      'lookup_order ok',
      'get_sum ok',
      'slow_report TOOL_TIMEOUT',
      'write_file TOOL_DENIED',
    ])
    expect(ptc.text.split('\n').slice(0, 2)).toEqual([
      'weekly report unavailable: tool call timed out after 250ms',
      'summary not written: the demo workspace is read-only',
    ])
    expect(JSON.parse(ptc.text.split('\n').slice(2).join('\n'))).toEqual({
      refunded: [{ id: 'ORD-1002', customer: 'Grace Hopper', total: 642 }],
      refundedPlusOpenTotal: 952.75,
      policy: '- Refund window: 14 days after delivery.',
    })
    expect(ptc.modelFacingBytes / native.modelFacingBytes).toBeLessThan(0.15)
  } finally {
    log.mockRestore()
  }
})

test('the demo process exits by itself (no timer, worker or port left holding it open)', async () => {
  const { execFile } = await import('node:child_process')
  const repo = fileURLToPath(new URL('../../../', import.meta.url))
  const outcome = await new Promise<{ code: number | null; signal: string | null; stdout: string }>((resolve) => {
    execFile(`${repo}node_modules/.bin/tsx`, ['--conditions=dsh-source', 'examples/demo/src/main.ts'], { cwd: repo, timeout: 60_000 }, (error, stdout) => {
      resolve({ code: error === null ? 0 : ((error as { code?: number }).code ?? null), signal: (error as { signal?: string } | null)?.signal ?? null, stdout })
    })
  })
  expect([outcome.code, outcome.signal]).toEqual([0, null])
  expect(outcome.stdout).toContain('Native vs PTC')
}, 70_000)
