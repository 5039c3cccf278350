/**
 * The main job end to end: every recorded call's outcome and the PTC program's model-facing
 * output, exactly.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, test, vi } from 'vitest'
import { parseArgs } from '../src/main'
import { runNative } from '../src/native'
import { runPtc } from '../src/ptc'
import { layoutBatch } from '../src/timeline'

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

    // The output: within 100 columns, no escape codes (the test log is not a terminal), the
    // program the model sent and each sub-call's arguments shown.
    const lines = log.mock.calls.map((args) => args.join(' ')).flatMap((l) => l.split('\n'))
    expect(lines.filter((l) => [...l].length > 100)).toEqual([])
    expect(lines.filter((l) => l.includes('\x1b'))).toEqual([])
    expect(lines).toContain('    13 │ const total = await tools.get_sum({ a: refunded[0].total, b: openTotal })')
    expect(lines.filter((l) => l.startsWith('  call_ptc:code:')).map((l) => l.slice(2, 71).trimEnd())).toEqual([
      'call_ptc:code:1 list_allowed_directories {}',
      'call_ptc:code:2 search_files             {"query":"refund"}',
      'call_ptc:code:3 read_text_file           {"path":"docs/policies.md",…',
      'call_ptc:code:4 lookup_order             {"id":"ORD-1002"}',
      'call_ptc:code:5 lookup_order             {"id":"ORD-1003"}',
      'call_ptc:code:6 lookup_order             {"id":"ORD-1004"}',
      'call_ptc:code:7 get_sum                  {"a":642,"b":310.75}',
      'call_ptc:code:8 slow_report              {"delayMs":5000}',
      'call_ptc:code:9 write_file               {"path":"docs/summary.md","…',
    ])

    // The timeline: slow_report is exclusive, so it is the barrier of steps 3 and 4 and of the
    // program; the pool never holds more than the configured 4 calls.
    const layouts = [...native.batches, ptc.batch].map(layoutBatch)
    expect(layouts.map((l) => l.barriers.map((b) => b.call.id))).toEqual([[], [], ['call_10'], ['call_15'], [], ['call_ptc:code:8']])
    expect(layouts.map((l) => l.markers.map((m) => `${m.call.id} ${m.call.outcome}`))).toEqual([
      [],
      ['toolu_07 UNKNOWN_TOOL'],
      ['call_08 INVALID_ARGS'],
      ['call_13 TOOL_DENIED', 'call_14 INVALID_ARGS'],
      [],
      ['call_ptc:code:9 TOOL_DENIED'],
    ])
    expect(layouts.every((l) => l.lanes <= 4)).toBe(true)
  } finally {
    log.mockRestore()
  }
})

test('the demo process exits by itself (no timer, worker or port left holding it open), piped output has no escape codes, --timeline writes the picture', async () => {
  const { execFile } = await import('node:child_process')
  const repo = fileURLToPath(new URL('../../../', import.meta.url))
  const dir = mkdtempSync(join(tmpdir(), 'dsh-demo-'))
  const env: NodeJS.ProcessEnv = { ...process.env }
  delete env.FORCE_COLOR
  delete env.NO_COLOR
  try {
    const outcome = await new Promise<{ code: number | null; signal: string | null; stdout: string }>((resolve) => {
      execFile(`${repo}node_modules/.bin/tsx`, ['--conditions=dsh-source', 'examples/demo/src/main.ts', '--timeline', join(dir, 'timeline.svg')], { cwd: repo, timeout: 60_000, env }, (error, stdout) => {
        resolve({ code: error === null ? 0 : ((error as { code?: number }).code ?? null), signal: (error as { signal?: string } | null)?.signal ?? null, stdout })
      })
    })
    expect([outcome.code, outcome.signal]).toEqual([0, null])
    expect(outcome.stdout).toContain('Native vs PTC')
    expect(outcome.stdout.includes('\x1b')).toBe(false)
    const svg = readFileSync(join(dir, 'timeline.svg'), 'utf8')
    expect([...svg.matchAll(/<g class="batch" data-title="([^"]*)"/g)].map((m) => m[1])).toEqual([
      'Step 1 (native, openai-chat)',
      'Step 2 (native, anthropic)',
      'Step 3 (native, openai-chat)',
      'Step 4 (native, openai-chat)',
      'Step 5 (native, openai-chat, response cut)',
      'run_code sub-calls (PTC)',
    ])
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}, 70_000)

test('the demo takes --timeline <file> and nothing else', () => {
  expect(parseArgs([])).toEqual({})
  expect(parseArgs(['--timeline', 'out.svg'])).toEqual({ timeline: 'out.svg' })
  expect(parseArgs(['--timeline=out.svg'])).toEqual({ timeline: 'out.svg' })
  expect(() => parseArgs(['--timeline'])).toThrow('--timeline needs a file name, e.g. --timeline timeline.svg')
  expect(() => parseArgs(['--colour'])).toThrow('unknown argument "--colour"; the demo takes only --timeline <file>.svg')
})
