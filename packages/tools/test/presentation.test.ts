/**
 * Tool-owned UI presentation (seed 001): presenters are called only with arguments that
 * validate, a throw or an invalid descriptor yields `undefined` (generic fallback), and logged
 * JSON text is accepted as arguments.
 */
import { describe, expect, test } from 'vitest'
import type { AnyToolDefinition, PresentableResult } from '../src/contracts'
import { safePresentCall, safePresentResult, softPresentCall } from '../src/presentation'
import { defineRawTool, defineTool } from '../src/schema'

const ok: PresentableResult = { content: [{ type: 'text', text: 'a.txt\nb.txt' }], isError: false }

const calls: unknown[] = []
const ls = defineTool({
  name: 'ls',
  description: 'List a directory.',
  parameters: { path: { type: 'string', required: true }, all: { type: 'boolean' } },
  output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
  execute: (args) => `listing ${args.path}`,
  presentCall: (args) => {
    calls.push(args)
    return { title: `ls ${args.path}`, kind: 'read' }
  },
  presentResult: (args, result) => ({ title: `${args.path} (${result.isError ? 'failed' : 'ok'})` }),
})

describe('safePresentCall', () => {
  test('valid args (object or logged JSON text) reach the presenter', () => {
    calls.length = 0
    expect(safePresentCall(ls, { path: '/srv' })).toEqual({ title: 'ls /srv', kind: 'read' })
    expect(safePresentCall(ls, '{"path":"/tmp","all":true}')).toEqual({ title: 'ls /tmp', kind: 'read' })
    expect(calls).toEqual([{ path: '/srv' }, { path: '/tmp', all: true }])
  })

  test('invalid, old-shaped or unparsable args → undefined without calling the author', () => {
    calls.length = 0
    expect(safePresentCall(ls, { dir: '/srv' })).toBeUndefined()
    expect(safePresentCall(ls, { path: 42 })).toBeUndefined()
    expect(safePresentCall(ls, '{"path": "/srv"')).toBeUndefined()
    expect(safePresentCall(ls, null)).toBeUndefined()
    expect(safePresentCall(ls, ['/srv'])).toBeUndefined()
    expect(calls).toEqual([])
  })

  test('no presenter → undefined', () => {
    const plain = defineTool({
      name: 'plain',
      description: 'd',
      parameters: {},
      output: { schema: { type: 'null' }, render: () => [] },
      execute: () => null,
    })
    expect(safePresentCall(plain, {})).toBeUndefined()
    expect(safePresentResult(plain, {}, ok)).toBeUndefined()
  })

  test('a hand-written definition that throws or returns a malformed descriptor → undefined', () => {
    const throwing = {
      ...defineRawTool({ name: 'raw', description: 'd', inputSchema: { type: 'object' }, execute: () => null }),
      presentCall: () => {
        throw new TypeError('boom')
      },
      presentResult: () => {
        throw 'not even an Error'
      },
    } as AnyToolDefinition
    expect(safePresentCall(throwing, {})).toBeUndefined()
    expect(safePresentResult(throwing, {}, ok)).toBeUndefined()
    const malformed = { ...throwing, presentCall: () => ({ kind: 'read' }), presentResult: () => 'text' } as unknown as AnyToolDefinition
    expect(safePresentCall(malformed, {})).toBeUndefined()
    expect(safePresentResult(malformed, {}, ok)).toBeUndefined()
  })

  test('validateArguments:false skips validation but still contains throws', () => {
    const seen: unknown[] = []
    const lenient = {
      ...defineRawTool({
        name: 'srv',
        description: 'd',
        inputSchema: { type: 'object', required: ['x'] },
        execute: () => null,
        validateArguments: false,
      }),
      presentCall: (args: { y?: number }) => {
        seen.push(args)
        if (args.y === 0) throw new Error('zero')
        return { title: 'srv call' }
      },
    } as AnyToolDefinition
    expect(safePresentCall(lenient, { y: 1 })).toEqual({ title: 'srv call' })
    expect(safePresentCall(lenient, { y: 0 })).toBeUndefined()
    expect(seen).toEqual([{ y: 1 }, { y: 0 }])
  })
})

describe('safePresentResult', () => {
  test('receives validated args and the { content, isError } result', () => {
    expect(safePresentResult(ls, { path: '/srv' }, ok)).toEqual({ title: '/srv (ok)' })
    expect(safePresentResult(ls, { path: '/srv' }, { content: [], isError: true })).toEqual({ title: '/srv (failed)' })
    expect(safePresentResult(ls, { path: ['/srv'] }, ok)).toBeUndefined()
  })
})

describe('softPresentCall', () => {
  test('without a schema only the object shape is required', () => {
    expect(softPresentCall(undefined, () => ({ title: 't' }), { any: 'thing' })).toEqual({ title: 't' })
    expect(softPresentCall(undefined, () => ({ title: 't' }), 'plain text')).toBeUndefined()
  })
})
