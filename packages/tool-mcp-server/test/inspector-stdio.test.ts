/**
 * Other real clients: the MCP Inspector CLI (`@modelcontextprotocol/inspector-cli`, SDK 1.x)
 * listing and calling tools over Streamable HTTP and over stdio (`examples/stdio-server.ts`,
 * started by the client), and the bridge over stdio.
 */
import { execFile } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { Context } from 'cordis'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { defineRawTool, ToolRegistry } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'
import { createMcpBridge } from '@deepseek-ai/dsh-tool-mcp'
import { Client } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { createMcpToolServer, type McpHttpListener } from '../src'

const run = promisify(execFile)
const require = createRequire(import.meta.url)
const repo = fileURLToPath(new URL('../../../', import.meta.url))
const inspector = join(dirname(require.resolve('@modelcontextprotocol/inspector-cli/package.json')), 'build', 'index.js')
const tsx = join(repo, 'node_modules', '.bin', 'tsx')
const stdioServer = fileURLToPath(new URL('../examples/stdio-server.ts', import.meta.url))

const served = new Context()
let listener: McpHttpListener

beforeAll(async () => {
  await served.plugin(ToolRegistry)
  await served.plugin(NativeExecutor, {})
  served.tools.register(defineRawTool({ name: 'greet', description: 'Greets someone', inputSchema: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] }, execute: (a) => `Hello, ${String(a.who)}!` }))
  listener = await createMcpToolServer(served).listen()
})
afterAll(async () => {
  await listener?.close()
})

/** Runs the Inspector CLI and parses its JSON output. */
async function inspect(args: readonly string[]): Promise<unknown> {
  // cwd: the CLI (1.0.3) finds its own package.json by testing `../package.json` against the
  // working directory, so it runs from its build directory.
  const { stdout } = await run(process.execPath, [inspector, ...args], { cwd: dirname(inspector), timeout: 60_000, env: { ...process.env, NO_COLOR: '1' } })
  return JSON.parse(stdout)
}

describe('MCP Inspector CLI', () => {
  test('lists and calls tools over Streamable HTTP', { timeout: 60_000 }, async () => {
    expect(await inspect([listener.url, '--transport', 'http', '--method', 'tools/list'])).toEqual({
      tools: [{ name: 'greet', description: 'Greets someone', inputSchema: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] } }],
    })
    expect(await inspect([listener.url, '--transport', 'http', '--method', 'tools/call', '--tool-name', 'greet', '--tool-arg', 'who=Ada'])).toEqual({ content: [{ type: 'text', text: 'Hello, Ada!' }] })
    expect(await inspect([listener.url, '--transport', 'http', '--method', 'tools/call', '--tool-name', 'greet', '--tool-arg', 'who=7'])).toEqual({
      // The CLI sends 7 as a number: an ordinary failure result, never a protocol error.
      content: [{ type: 'text', text: 'Error: Invalid arguments for tool "greet": /who: must be string (got number)' }],
      isError: true,
      _meta: { 'io.github.deepseek-ai/dsh-tools/error': { code: 'INVALID_ARGS', name: 'ToolError' } },
    })
  })

  test('lists and calls tools over stdio, with structured content', { timeout: 60_000 }, async () => {
    const target = [tsx, '--conditions=dsh-source', stdioServer]
    const list = (await inspect([...target, '--method', 'tools/list'])) as { tools: { name: string; outputSchema?: unknown }[] }
    expect(list.tools.map((t) => [t.name, t.outputSchema])).toEqual([['add', { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] }]])
    expect(await inspect([...target, '--method', 'tools/call', '--tool-name', 'add', '--tool-arg', 'a=2', 'b=3'])).toEqual({ content: [{ type: 'text', text: '2 + 3 = 5' }], structuredContent: { sum: 5 } })
  })
})

describe('the bridge over stdio', () => {
  test('starts the stdio server, lists and calls its tool through both pipelines', { timeout: 60_000 }, async () => {
    const client = new Context()
    await client.plugin(ToolRegistry)
    await client.plugin(NativeExecutor, {})
    const bridge = await createMcpBridge(client, { servers: [{ name: 'calc', command: tsx, args: ['--conditions=dsh-source', stdioServer], validateArguments: false }] })
    try {
      expect(bridge.server('calc')?.tools).toEqual(['calc__add'])
      const [r] = await client.tools.execute({ calls: [{ callId: 'c1', name: 'calc__add', arguments: '{"a":2,"b":40}' }] })
      expect(r).toMatchObject({ isError: false, value: { sum: 42 }, content: [{ type: 'text', text: '2 + 40 = 42' }] })
      const [bad] = await client.tools.execute({ calls: [{ callId: 'c2', name: 'calc__add', arguments: '{"a":"x","b":1}' }] })
      expect(bad!.isError && bad!.error.message).toBe('Invalid arguments for tool "add": /a: must be number (got string)')
    } finally {
      await bridge.close()
    }
  })
})

describe('the SDK 2.x client over stdio, pinned to 2026-07-28', () => {
  test('discovers, lists and calls on the modern line', { timeout: 60_000 }, async () => {
    const c = new Client({ name: 'modern', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    await c.connect(new StdioClientTransport({ command: tsx, args: ['--conditions=dsh-source', stdioServer] }))
    try {
      expect(c.getProtocolEra()).toBe('modern')
      expect((await c.listTools()).tools.map((t) => t.name)).toEqual(['add'])
      expect(await c.callTool({ name: 'add', arguments: { a: 20, b: 22 } })).toMatchObject({ content: [{ type: 'text', text: '20 + 22 = 42' }], structuredContent: { sum: 42 } })
    } finally {
      await c.close()
    }
  })
})
