/**
 * `ToolFailure.error.info` is always there (README "Results and codes": `error: { message, info:
 * { name, code, reason?, toolName? } }`): under strict TypeScript `r.error.info.code` compiles
 * without `?.` (checked by the repository typecheck), and every kind of failure the pipeline
 * produces carries it at run time — before dispatch, from the body, from policy and
 * post-execute, and from a cancelled batch. The session log's result event and the draft that
 * post-execute listeners see carry it the same way.
 */
import { afterEach, expect, expectTypeOf, test } from 'vitest'
import { defineRawTool, ToolError, type DraftResult, type SessionEvent, type ToolErrorInfo, type ToolFailure, type ToolResult } from '@deepseek-ai/dsh-tools'
import { call, createHarness, MemorySessionLog, type Harness } from '@deepseek-ai/dsh-tool-testkit'

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

/** The failure's code and name, read without optional chaining. */
const codeOf = (r: ToolResult): string => (r.isError ? `${r.error.info.code} ${r.error.info.name}` : 'ok')

test('error.info is required in ToolFailure, the tool/result event and the post-execute draft', () => {
  expectTypeOf<ToolFailure['error']['info']>().toEqualTypeOf<ToolErrorInfo>()
  expectTypeOf<NonNullable<Extract<SessionEvent, { type: 'tool/result' }>['error']>['info']>().toEqualTypeOf<ToolErrorInfo>()
  expectTypeOf<Extract<DraftResult, { isError: true }>['error']['info']>().toEqualTypeOf<ToolErrorInfo>()
})

test('every failure kind carries info with its code and name', async () => {
  h = await createHarness()
  const object = (properties: object = {}, required: string[] = []) => ({ type: 'object', properties, required })
  h.ctx.tools.register(defineRawTool({ name: 'ok', description: 'Succeeds.', inputSchema: object({ n: { type: 'integer' } }, ['n']), execute: () => 1 }))
  h.ctx.tools.register(defineRawTool({ name: 'coded', description: 'Throws a ToolError.', inputSchema: object(), execute: () => { throw new ToolError('NOT_FOUND', 'no such order') } }))
  h.ctx.tools.register(defineRawTool({ name: 'boom', description: 'Throws.', inputSchema: object(), execute: () => { throw new Error('disk on fire') } }))
  h.ctx.tools.register(defineRawTool({ name: 'denied', description: 'Guarded.', inputSchema: object(), execute: () => 1 }))
  h.ctx.tools.guard((exec) => (exec.name === 'denied' ? 'not today' : undefined))
  const log = new MemorySessionLog()
  const results = await h.execute(
    [call('ok', { n: 1 }, 'c1'), call('ok', { n: 'x' }, 'c2'), call('nope', {}, 'c3'), call('coded', {}, 'c4'), call('boom', {}, 'c5'), call('denied', {}, 'c6')],
    { log },
  )
  expect(results.map(codeOf)).toEqual(['ok', 'INVALID_ARGS ToolError', 'UNKNOWN_TOOL ToolError', 'NOT_FOUND ToolError', 'TOOL_FAILED Error', 'TOOL_DENIED GuardDenied'])
  expect(log.results().map((e) => (e.error === undefined ? 'ok' : `${e.error.info.code} ${e.error.info.name}`))).toEqual(results.map(codeOf))
})

test('a cancelled batch\'s failures carry info', async () => {
  h = await createHarness()
  h.ctx.tools.register(defineRawTool({ name: 'ok', description: 'Succeeds.', inputSchema: { type: 'object' }, execute: () => 1 }))
  const controller = new AbortController()
  controller.abort()
  const results = await h.execute([call('ok', {}, 'c1')], { signal: controller.signal })
  expect(results.map(codeOf)).toEqual(['ABORTED_BEFORE_DISPATCH ToolError'])
})
