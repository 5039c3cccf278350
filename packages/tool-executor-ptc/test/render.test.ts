import { describe, expect, it } from 'vitest'
import { NO_OUTPUT_TEXT, renderRunOutput, renderValue } from '../src/render'

describe('renderRunOutput (seed 000 "Model Experience")', () => {
  it('says so when nothing was printed or returned', () => {
    expect(renderRunOutput({ logs: [] })).toEqual({ text: '(run_code completed with no output)', isError: false })
    expect(NO_OUTPUT_TEXT).toBe('(run_code completed with no output)')
    expect(renderRunOutput({ logs: [], value: '' })).toEqual({ text: '(run_code completed with no output)', isError: false })
  })

  it('prints lines, then the return value', () => {
    expect(renderRunOutput({ logs: ['first', 'second'], value: 3 })).toEqual({ text: 'first\nsecond\n3', isError: false })
    expect(renderRunOutput({ logs: ['only lines'] })).toEqual({ text: 'only lines', isError: false })
  })

  it('renders strings raw and null as null', () => {
    expect(renderRunOutput({ logs: [], value: 'a "quoted"\nmulti-line string' }).text).toBe('a "quoted"\nmulti-line string')
    expect(renderRunOutput({ logs: [], value: null }).text).toBe('null')
    expect(renderRunOutput({ logs: ['x'], value: false }).text).toBe('x\nfalse')
  })

  it('pretty-prints other JSON with two spaces, also deep values', () => {
    const value = { a: [1, { b: { c: [true, null] } }], e: {}, f: [] }
    expect(renderRunOutput({ logs: [], value }).text).toBe(
      [
        '{',
        '  "a": [',
        '    1,',
        '    {',
        '      "b": {',
        '        "c": [',
        '          true,',
        '          null',
        '        ]',
        '      }',
        '    }',
        '  ],',
        '  "e": {},',
        '  "f": []',
        '}',
      ].join('\n'),
    )
    expect(renderValue([1, 'two'])).toBe('[\n  1,\n  "two"\n]')
  })

  it('renders a failure without captured output', () => {
    expect(renderRunOutput({ logs: [], error: { kind: 'timeout', message: 'compute time limit of 200 ms exceeded' } })).toEqual({
      text: 'Error: code run failed (timeout): compute time limit of 200 ms exceeded',
      isError: true,
    })
  })

  it('renders a failure with the captured lines', () => {
    expect(renderRunOutput({ logs: ['step 1', 'step 2'], error: { kind: 'exception', message: 'TypeError: x is not a function' } })).toEqual({
      text: 'Error: code run failed (exception): TypeError: x is not a function\nCaptured output:\nstep 1\nstep 2',
      isError: true,
    })
  })

  it('ignores a value on a failed run and renders every kind', () => {
    for (const kind of ['exception', 'timeout', 'abort', 'memory', 'output-limit', 'invalid-output'] as const) {
      expect(renderRunOutput({ logs: [], value: 1, error: { kind, message: 'm' } }).text).toBe(`Error: code run failed (${kind}): m`)
    }
  })
})
