/**
 * What a client receives for a pipeline result (pure mappings): finalized content and contexts,
 * structuredContent only with an object output schema, the failure code in `_meta`, MCP blocks
 * of a `defineMcpContentTool` tool unless something after the body changed their rendering.
 */
import { expect, test } from 'vitest'
import { defineRawTool, type ToolResult } from '@deepseek-ai/dsh-tools'
import { defineMcpContentTool, ERROR_META_KEY, renderMcpBlock, toCallResult, type McpContentBlock } from '../src'
import { decodeCursor, encodeCursor, listedTool } from '../src/tools-list'

const objTool = defineRawTool({ name: 'o', description: 'd', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { n: { type: 'number' } } }, execute: () => ({ n: 1 }) })
const strTool = defineRawTool({ name: 's', description: 'd', inputSchema: { properties: { a: { type: 'string' } } }, outputSchema: { type: 'string' }, execute: () => 'x' })
const audio: McpContentBlock = { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' }
const mcpTool = defineMcpContentTool({ name: 'm', description: 'd', inputSchema: { type: 'object' }, execute: () => ({ content: [audio] }) })

test('a success: content and contexts in order; structuredContent only for an object output schema', () => {
  const ok: ToolResult = { callId: 'c', isError: false, value: { n: 1 }, content: [{ type: 'text', text: 'one' }], contexts: [{ source: 'x', content: [{ type: 'text', text: 'ctx' }] }] }
  expect(toCallResult(ok, objTool)).toEqual({ content: [{ type: 'text', text: 'one' }, { type: 'text', text: 'ctx' }], structuredContent: { n: 1 } })
  expect(toCallResult({ callId: 'c', isError: false, value: 'x', content: [{ type: 'text', text: 'x' }] }, strTool)).toEqual({ content: [{ type: 'text', text: 'x' }] })
})

test('a failure: isError, the finalized content, the code in _meta', () => {
  const bad: ToolResult = { callId: 'c', isError: true, error: { message: 'no', info: { name: 'PolicyDenied', code: 'TOOL_DENIED' } }, content: [{ type: 'text', text: 'Error: no' }] }
  expect(toCallResult(bad, objTool)).toEqual({ content: [{ type: 'text', text: 'Error: no' }], isError: true, _meta: { [ERROR_META_KEY]: { code: 'TOOL_DENIED', name: 'PolicyDenied' } } })
})

test('MCP blocks are served as they are while the content is their rendering, else the finalized content', () => {
  const rendered = [renderMcpBlock(audio)]
  expect(rendered).toEqual([{ type: 'text', text: '[audio] audio/wav, 3 bytes' }])
  expect(toCallResult({ callId: 'c', isError: false, value: { content: [audio] } as never, content: rendered }, mcpTool)).toEqual({ content: [audio] })
  const replaced = [{ type: 'text' as const, text: '[redacted]' }]
  expect(toCallResult({ callId: 'c', isError: false, value: { content: [audio] } as never, content: replaced }, mcpTool)).toEqual({ content: replaced })
})

test('listed tools: type object added to the input schema; output schema only when it is an object schema; cursors round-trip', () => {
  expect(listedTool({ name: 's', description: 'd', parameters: strTool.parameters }, strTool)).toEqual({ name: 's', description: 'd', inputSchema: { type: 'object', properties: { a: { type: 'string' } } } })
  expect(listedTool({ name: 'o', description: 'd', parameters: true }, objTool)).toEqual({ name: 'o', description: 'd', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { n: { type: 'number' } } } })
  expect(listedTool({ name: 'm', description: 'd', parameters: { type: 'object' } }, mcpTool).outputSchema).toBeUndefined()
  expect(decodeCursor(encodeCursor(200))).toBe(200)
  expect([decodeCursor('bogus'), decodeCursor(Buffer.from('{"o":-1}').toString('base64url'))]).toEqual([undefined, undefined])
})
