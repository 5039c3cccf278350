/**
 * The demo's output helpers: colour only where it is supported, every line within 100 columns,
 * previews of more than the first line, the exact call-line layout other demo steps reuse.
 */
import { describe, expect, test } from 'vitest'
import { colourEnabled, createStyle, formatCall, listing, preview, stepHeader, tally, wrap, WIDTH } from '../src/format'

const plain = createStyle(false)

describe('colourEnabled', () => {
  test.each([
    ['a terminal', { isTTY: true }, {}, true],
    ['a pipe (CI logs, the test log, > file)', {}, {}, false],
    ['a terminal with NO_COLOR', { isTTY: true }, { NO_COLOR: '1' }, false],
    ['a terminal with an empty NO_COLOR (ignored, as no-color.org says)', { isTTY: true }, { NO_COLOR: '' }, true],
    ['a pipe with FORCE_COLOR=1', {}, { FORCE_COLOR: '1' }, true],
    ['a pipe with an empty FORCE_COLOR', {}, { FORCE_COLOR: '' }, true],
    ['a terminal with FORCE_COLOR=0', { isTTY: true }, { FORCE_COLOR: '0' }, false],
    ['FORCE_COLOR over NO_COLOR', {}, { FORCE_COLOR: '1', NO_COLOR: '1' }, true],
    ['a dumb terminal', { isTTY: true }, { TERM: 'dumb' }, false],
  ])('%s', (_name, stream, env, expected) => {
    expect(colourEnabled(stream, env)).toBe(expected)
  })

  test('without colour every style is the identity; with it, ok is green and errors red', () => {
    expect([plain.bold('x'), plain.dim('x'), plain.ok('x'), plain.error('x')]).toEqual(['x', 'x', 'x', 'x'])
    const c = createStyle(true)
    expect([c.ok('ok'), c.error('TOOL_TIMEOUT'), c.bold('B')]).toEqual(['\x1b[32mok\x1b[39m', '\x1b[31mTOOL_TIMEOUT\x1b[39m', '\x1b[1mB\x1b[22m'])
  })
})

describe('formatCall', () => {
  test('a failure: the arguments cut on the line and given in full under it, then the message', () => {
    const lines = formatCall(
      {
        id: 'call_13',
        name: 'write_file',
        args: '{"path":"docs/summary.md","content":"Refunded: ORD-1002"}',
        isError: true,
        code: 'TOOL_DENIED',
        content: [{ type: 'text', text: 'Error: the demo workspace is read-only' }],
      },
      {},
      plain,
    )
    expect(lines).toEqual([
      '  call_13   write_file               {"path":"docs/summary.md","conten… TOOL_DENIED               —',
      '            args {"path":"docs/summary.md","content":"Refunded: ORD-1002"}',
      '            │ Error: the demo workspace is read-only',
    ])
  })

  test('a success: the time, and a preview of several lines with how many were left out', () => {
    const lines = formatCall({ id: 'c1', name: 'list', args: '', isError: false, content: [{ type: 'text', text: 'a\nb\nc\nd\ne' }], ms: 12.345 }, { previewLines: 2 }, plain)
    expect(lines).toEqual([
      '  c1        list                     ""                                 ok                   12.3ms',
      '            │ a',
      '            │ b',
      '            │ … 3 more lines',
    ])
  })

  test('sub-call layout: a wider id column, successes without preview, every line within the width', () => {
    const long = { id: 'call_ptc:code:12', name: 'a_tool_with_a_rather_long_name', args: { query: 'x'.repeat(150) }, content: [{ type: 'text' as const, text: 'y '.repeat(200) }] }
    const ok = formatCall({ ...long, isError: false, ms: 3 }, { idWidth: 15, previewErrorsOnly: true }, plain)
    expect(ok[0]).toBe(`  call_ptc:code:… a_tool_with_a_rather_lo… {"query":"xxxxxxxxxxxxxxxxx… ok                    3.0ms`)
    const under = ' '.repeat(18)
    expect(ok.slice(1)).toEqual([`${under}args {"query":"${'x'.repeat(67)}`, `${under}${'x'.repeat(82)}`, `${under}${'x'.repeat(1)}"}`])
    const failed = formatCall({ ...long, isError: true, code: 'INVALID_ARGS' }, { idWidth: 15, previewErrorsOnly: true }, plain)
    expect(failed.filter((l) => l.includes('│')).length).toBe(4)
    expect([...ok, ...failed].filter((l) => l.length > WIDTH)).toEqual([])
  })
})

describe('wrapping', () => {
  test('wrap keeps the indentation of a line on its continuation lines and cuts over-long words', () => {
    expect(wrap('  one two three four five', 12)).toEqual(['  one two', '  three four', '  five'])
    expect(wrap('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij'])
    expect(wrap('see https://example.com/a/very/long/path', 20)).toEqual(['see https://example.', 'com/a/very/long/path'])
    expect(wrap('the address https://example.com/a/very/long/path', 20)).toEqual(['the address https://', 'example.com/a/very/l', 'ong/path'])
    expect(wrap('short\n\nlines stay', 20)).toEqual(['short', '', 'lines stay'])
  })

  test('preview, listing, stepHeader and tally', () => {
    expect(preview('a\nb\nc', 2, '  ')).toEqual(['  │ a', '  │ b', '  │ … 1 more line'])
    expect(listing('\nconst a = 1\nreturn a\n')).toEqual(['    1 │ const a = 1', '    2 │ return a'])
    expect(stepHeader('Step 1', 'Title', ['a note'], plain)).toEqual(['Step 1  Title', '        a note'])
    expect(tally('n: ', ['ok', 'X', 'ok'])).toEqual(['  n: ok ×2, X ×1'])
  })
})
