/**
 * A failure reaches the model as exactly `Error: <message>`, never `Error: Error: …`, whatever
 * form the message arrives in already prefixed: a body that throws `String(err)` or an error
 * whose message repeats the prefix, a guard's reason written as `Error: …`, and a tool whose
 * error text comes from another server that already rendered it (a dsh server behind an MCP
 * bridge). A message that is only the prefix is kept as it is.
 */
import { afterEach, expect, test } from 'vitest'
import { defineRawTool, ToolError, type ToolResult } from '@deepseek-ai/dsh-tools'
import { call, createHarness, type Harness } from '@deepseek-ai/dsh-tool-testkit'

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

const seen = (r: ToolResult): [string, string, string] => (r.isError ? [r.error.info.code, r.error.message, r.content.map((b) => (b.type === 'text' ? b.text : b.type)).join('')] : ['ok', '', ''])

test('every prefixed form reaches the model with one Error: prefix, and error.message without it', async () => {
  h = await createHarness()
  const object = { type: 'object' }
  const tool = (name: string, execute: () => number) => h!.ctx.tools.register(defineRawTool({ name, description: `${name}.`, inputSchema: object, execute }))
  tool('stringified', () => { throw String(new Error('disk on fire')) })
  tool('nested', () => { throw new Error('Error: Error: disk on fire') })
  tool('relayed', () => { throw new ToolError('MCP_TOOL_ERROR', 'Error: Formatting disks is not allowed here') })
  tool('bare', () => { throw new Error('Error: ') })
  tool('typed', () => { throw new Error('TypeError: x is not a function') })
  tool('guarded', () => 1)
  h.ctx.tools.guard((exec) => (exec.name === 'guarded' ? 'Error: not today' : undefined))
  const results = await h.execute(['stringified', 'nested', 'relayed', 'bare', 'typed', 'guarded'].map((name, i) => call(name, {}, `c${i}`)))
  expect(results.map(seen)).toEqual([
    ['TOOL_FAILED', 'disk on fire', 'Error: disk on fire'],
    ['TOOL_FAILED', 'disk on fire', 'Error: disk on fire'],
    ['MCP_TOOL_ERROR', 'Formatting disks is not allowed here', 'Error: Formatting disks is not allowed here'],
    ['TOOL_FAILED', 'Error: ', 'Error: Error: '],
    ['TOOL_FAILED', 'TypeError: x is not a function', 'Error: TypeError: x is not a function'],
    ['TOOL_DENIED', 'not today', 'Error: not today'],
  ])
})
