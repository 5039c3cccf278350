/**
 * Issue 34 item 7, every package: each plugin (and each entry that takes a context) refuses a
 * real cordis 3 context at start with `<Plugin> needs cordis >=4.0.0-rc.10 <5, found …`, before
 * touching it, and starts in the workspace's cordis 4. The packages' plugins depend on `tools`
 * (`inject: ['tools']`): cordis 3 starts them only once some `tools` exists, so the cordis 3
 * context here gets a plain object under that name (under a real cordis 3 install the registry
 * itself refuses to start first, and the dependents then never start).
 */
import { createRequire } from 'node:module'
import { Context as Context3 } from 'cordis-v3'
import { Context } from 'cordis'
import { expect, test } from 'vitest'
import { CordisVersionError, ToolRegistry } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'
import { PtcExecutor } from '@deepseek-ai/dsh-tool-executor-ptc'
import { TimeoutPolicy } from '@deepseek-ai/dsh-tool-call-timeout-policy'
import { RetryPolicy } from '@deepseek-ai/dsh-tool-call-retry-policy'
import { ToolMetrics, ToolTracing } from '@deepseek-ai/dsh-tool-otel'
import { McpPlugin, createMcpBridge } from '@deepseek-ai/dsh-tool-mcp'
import { createMcpToolServer } from '@deepseek-ai/dsh-tool-mcp-server'
import { createHarness } from '@deepseek-ai/dsh-tool-testkit'

const cordis4Version = (createRequire(import.meta.url)('cordis/package.json') as { version: string }).version

const expected = (plugin: string): string =>
  `${plugin} needs cordis >=4.0.0-rc.10 <5, found a Context from cordis 3 or older (it has no ctx.fiber) (this package resolves cordis ${cordis4Version}: two copies of cordis are installed). Install a supported version: npm i cordis@4.0.0-rc.10`

/** A real cordis 3 context with a `tools` placeholder (so `inject: ['tools']` plugins start), and the plugin-start errors cordis 3 reports. */
function cordis3(): { ctx: Context3; errors: unknown[] } {
  const ctx = new Context3()
  ctx.set('tools', {})
  const errors: unknown[] = []
  ctx.on('internal/error', (error: unknown) => void errors.push(error))
  return { ctx, errors }
}

const plugins: [string, unknown, unknown][] = [
  ['NativeExecutor', NativeExecutor, {}],
  ['PtcExecutor', PtcExecutor, {}],
  ['TimeoutPolicy', TimeoutPolicy, {}],
  ['RetryPolicy', RetryPolicy, {}],
  ['ToolTracing', ToolTracing, {}],
  ['ToolMetrics', ToolMetrics, {}],
  ['McpPlugin', McpPlugin, { servers: [] }],
]

test.each(plugins)('%s refuses a cordis 3 context at plugin start, naming the range', async (name, plugin, config) => {
  const { ctx, errors } = cordis3()
  ctx.plugin(plugin as never, config as never)
  await ctx.lifecycle.flush()
  // The timeout policy has a `Config`, which cordis 3 calls before the plugin starts.
  const message = name === 'TimeoutPolicy'
    ? `TimeoutPolicy needs cordis >=4.0.0-rc.10 <5, found cordis 3 or older (it called the plugin's Config as a function) (this package resolves cordis ${cordis4Version}: two copies of cordis are installed). Install a supported version: npm i cordis@4.0.0-rc.10`
    : expected(name)
  expect(errors.map((e) => [(e as Error).name, (e as CordisVersionError).code, (e as Error).message])).toEqual([['CordisVersionError', 'UNSUPPORTED_CORDIS', message]])
})

test('the entries that take a context refuse a cordis 3 one too', async () => {
  const { ctx } = cordis3()
  await expect(createMcpBridge(ctx as never, { servers: [] })).rejects.toThrow(expected('createMcpBridge'))
  expect(() => createMcpToolServer(ctx as never)).toThrow(expected('createMcpToolServer'))
})

test('every plugin starts in the workspace cordis 4, and the testkit harness too', async () => {
  const ctx = new Context()
  await ctx.plugin(ToolRegistry)
  await ctx.plugin(NativeExecutor)
  for (const [, plugin, config] of plugins.slice(2)) await ctx.plugin(plugin as never, config as never)
  expect(typeof ctx.tools.register).toBe('function')
  const ptc = new Context()
  await ptc.plugin(ToolRegistry)
  await ptc.plugin(PtcExecutor, {})
  expect(ptc.tools.describe().tools.map((t) => t.name)).toEqual(['run_code'])
  const server = createMcpToolServer(ctx)
  await server.close()
  await ptc.fiber.dispose()
  await ctx.fiber.dispose()
  const h = await createHarness()
  expect(typeof h.tools.register).toBe('function')
  await h.dispose()
})
