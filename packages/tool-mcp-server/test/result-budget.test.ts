/**
 * Result budgets across MCP: a served tool's budget cuts what an MCP client receives (the SDK
 * 1.x client over Streamable HTTP), and the bridge's registry budgets the results it gets from
 * an MCP server (`resultBudget.toolMaxChars` covers bridged tools, which have no budget of their own).
 */
import { Context } from 'cordis'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createMemoryResultStore, defineRawTool, ToolRegistry } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'
import { createMcpBridge, type McpBridge } from '@deepseek-ai/dsh-tool-mcp'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { createMcpToolServer, type McpHttpListener } from '../src'

const LOG = 'abcdefghij'.repeat(1_000)
const served = new Context()
const client = new Context()
const clientStore = createMemoryResultStore()
let listener: McpHttpListener
let bridge: McpBridge

beforeAll(async () => {
  await served.plugin(ToolRegistry, { resultBudget: { readTool: 'read_result' } })
  await served.plugin(NativeExecutor, {})
  const obj = { type: 'object', properties: {}, additionalProperties: false } as const
  served.tools.register(defineRawTool({ name: 'log', description: 'A 10,000-character log', inputSchema: obj, outputSchema: { type: 'string' }, execute: () => LOG, resultBudget: { maxChars: 100 } }))
  served.tools.register(defineRawTool({ name: 'whole', description: 'The same log, no budget', inputSchema: obj, outputSchema: { type: 'string' }, execute: () => LOG }))
  listener = await createMcpToolServer(served, { name: 'served' }).listen()
  await client.plugin(ToolRegistry, { resultBudget: { toolMaxChars: 300, store: clientStore } })
  await client.plugin(NativeExecutor, {})
  bridge = await createMcpBridge(client, { servers: [{ name: 'srv', transport: 'http', url: listener.url }] })
})

afterAll(async () => {
  await bridge?.close()
  await listener?.close()
})

const marker = (shown: string, total: string, tokens: string, handle: string, tail: string): string =>
  `[Result cut by its budget: showing characters 0–${shown} of ${total} (${tokens} tokens). The full result is stored under handle "${handle}".${tail}]`

test('an MCP client receives the served tool\'s cut content and marker', async () => {
  const c = new Client({ name: 'budget-client', version: '1.0.0' }, { capabilities: {} })
  await c.connect(new StreamableHTTPClientTransport(new URL(listener.url)))
  try {
    const result = await c.callTool({ name: 'log', arguments: {} })
    const content = result.content as { type: string; text: string }[]
    const handle = /"(res_[0-9a-f]{16})"/.exec(content[1]!.text)?.[1] ?? ''
    expect(content).toEqual([
      { type: 'text', text: LOG.slice(0, 100) },
      { type: 'text', text: marker('100', '10,000', '≈25 of ≈2,500', handle, ` To read on, call read_result with {"handle":"${handle}","offset":100,"length":1000}.`) },
    ])
    expect(result.isError).toBeUndefined()
  } finally {
    await c.close()
  }
})

test('the bridge budgets what an MCP server returns by the registry toolMaxChars', async () => {
  const [r] = await client.tools.execute({ calls: [{ callId: 'c1', name: 'srv__whole', arguments: '{}' }] })
  const handle = r?.meta?.cut?.handle ?? ''
  expect(r?.content).toEqual([
    { type: 'text', text: LOG.slice(0, 300) },
    { type: 'text', text: marker('300', '10,000', '≈75 of ≈2,500', handle, ' The application can retrieve it; it cannot be paged here.') },
  ])
  expect(clientStore.get(handle)?.text).toBe(LOG)
})
