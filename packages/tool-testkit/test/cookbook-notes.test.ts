import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, test } from 'vitest'
import { call, createHarness, StageTracer, type Harness } from '@deepseek-ai/dsh-tool-testkit'
import { TimeoutPolicy } from '@deepseek-ai/dsh-tool-call-timeout-policy'
import { NotesPlugin } from '../../tools/examples/notes-tool'

let h: Harness
let dir: string
let tracer: StageTracer

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'notes-'))
  writeFileSync(join(dir, 'groceries.md'), 'milk\neggs\nbread\n')
  h = await createHarness({ plugins: [{ plugin: TimeoutPolicy }] })
  tracer = new StageTracer()
  tracer.install(h.ctx)
  await h.ctx.plugin(NotesPlugin, { dir })
})

afterEach(async () => {
  await h.dispose()
  rmSync(dir, { recursive: true, force: true })
})

const outcome = (r: { isError: boolean; content: readonly { type: string; text?: string }[]; error?: { info?: { code: string } } }) =>
  `${r.isError ? r.error?.info?.code : 'ok'}: ${r.content.map((b) => b.text).join('')}`

test('the model sees name, description and the JSON Schema of the parameters', () => {
  expect(h.ctx.tools.schemas().find((s) => s.name === 'read_note')).toEqual({
    name: 'read_note',
    description: 'Read one note by name.',
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', pattern: '^[a-z0-9-]{1,40}$', description: 'The note name, e.g. "groceries".' },
        maxLines: { type: 'integer', minimum: 1, description: 'Return at most this many lines.' },
      },
      required: ['name'],
    },
  })
})

test('a read, a truncated read, bad arguments and a missing note: one exact result each, in call order', async () => {
  const results = await h.execute([
    call('read_note', { name: 'groceries' }, 'c1'),
    call('read_note', { name: 'groceries', maxLines: 1 }, 'c2'),
    call('read_note', { name: '../etc/passwd', maxLines: 0 }, 'c3'),
    call('read_note', { name: 'todo' }, 'c4'),
  ])
  expect(results.map(outcome)).toEqual([
    'ok: milk\neggs\nbread',
    'ok: milk\n[more lines not shown]',
    'INVALID_ARGS: Error: Invalid arguments for tool "read_note": /name: must match pattern "^[a-z0-9-]{1,40}$"; /maxLines: must be >= 1',
    'NOT_FOUND: Error: No note named "todo".',
  ])
})

test('reads run side by side; an append waits for them and runs alone', async () => {
  const results = await h.execute([
    call('read_note', { name: 'groceries' }, 'r1'),
    call('read_note', { name: 'groceries' }, 'r2'),
    call('append_note', { name: 'groceries', line: 'apples' }, 'w'),
    call('read_note', { name: 'groceries' }, 'r3'),
  ])
  expect(results.map(outcome)).toEqual(['ok: milk\neggs\nbread', 'ok: milk\neggs\nbread', 'ok: Appended 7 bytes to groceries.', 'ok: milk\neggs\nbread\napples'])
  const seq = (id: string, stage: 'wrap' | 'unwrap') => tracer.events.find((e) => e.callId === id && e.stage === stage)!.seq
  expect(seq('w', 'wrap')).toBeGreaterThan(Math.max(seq('r1', 'unwrap'), seq('r2', 'unwrap')))
  expect(seq('r3', 'wrap')).toBeGreaterThan(seq('w', 'unwrap'))
  expect(readFileSync(join(dir, 'groceries.md'), 'utf8')).toBe('milk\neggs\nbread\napples\n')
})

test('a batch the caller already cancelled runs nothing', async () => {
  const results = await h.execute([call('append_note', { name: 'groceries', line: 'never' }, 'w')], { signal: AbortSignal.abort() })
  expect(results.map((r) => (r.isError ? r.error.info.code : 'ok'))).toEqual(['ABORTED_BEFORE_DISPATCH'])
  expect(readFileSync(join(dir, 'groceries.md'), 'utf8')).toBe('milk\neggs\nbread\n')
})
