/**
 * Shared setup of the SDK round-trip tests: a registry with the tools the recorded emissions
 * call, mounted on the native executor, and the recorded emissions themselves (the testkit's
 * copy of `provider_emissions.json`; provenance in its `fixtures/real/SOURCES.md`).
 */
import { afterEach, beforeEach } from 'vitest'
import { Context } from 'cordis'
import { ToolRegistry, defineRawTool, type RawToolCall, type ToolResult } from '@deepseek-ai/dsh-tools'
import { providerEmission, startReplayServer, type ReplayResponse, type ReplayServer } from '@deepseek-ai/dsh-tool-testkit'
import { NativeExecutor } from '../src'
import { settleParsedCalls, type ParsedToolCalls, type SettledCalls } from '../src/providers'

/** A registry with `get_weather`, `get_time`, `health`, `write_file`, `list_dir` and `math.factorial`. */
export async function toolContext(): Promise<{ ctx: Context; settle: (parsed: ParsedToolCalls) => Promise<SettledCalls>; dispose: () => Promise<void> }> {
  const ctx = new Context()
  await ctx.plugin(ToolRegistry, {})
  await ctx.plugin(NativeExecutor, {})
  const object = (properties: Record<string, unknown>, required: string[] = []) => ({ type: 'object' as const, properties, required }) as never
  ctx.tools.register(
    defineRawTool({
      name: 'get_weather',
      description: 'Current weather for a city.',
      inputSchema: object({ city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } }, ['city']),
      execute: (args) => (args.unit === 'fahrenheit' ? `${String(args.city)}: 39°F` : `${String(args.city)}: 4°C`),
    }),
  )
  ctx.tools.register(defineRawTool({ name: 'get_time', description: 'Local time in a time zone.', inputSchema: object({ tz: { type: 'string' } }, ['tz']), execute: (args) => `12:00 in ${String(args.tz)}` }))
  ctx.tools.register(defineRawTool({ name: 'health', description: 'Service health.', inputSchema: object({}), execute: () => 'ok' }))
  ctx.tools.register(
    defineRawTool({ name: 'write_file', description: 'Write a file.', inputSchema: object({ path: { type: 'string' }, content: { type: 'string' } }, ['path', 'content']), execute: () => 'written' }),
  )
  ctx.tools.register(defineRawTool({ name: 'list_dir', description: 'List a directory.', inputSchema: object({ path: { type: 'string' } }, ['path']), execute: () => 'a.md\nb.md' }))
  ctx.tools.register(
    defineRawTool({
      name: 'math.factorial',
      description: 'n!',
      inputSchema: object({ n: { type: 'integer', minimum: 0, maximum: 20 } }, ['n']),
      execute: (args) => String(Array.from({ length: Number(args.n) }, (_, i) => i + 1).reduce((a, b) => a * b, 1)),
    }),
  )
  return {
    ctx,
    settle: (parsed) => settleParsedCalls(parsed, (calls: readonly RawToolCall[]): Promise<readonly ToolResult[]> => ctx.tools.execute({ calls })),
    dispose: () => ctx.fiber.dispose(),
  }
}

/** Registers hooks that give each test a fresh {@link toolContext} (disposed after it); read it with the returned getter. */
export function useToolContext(): () => Awaited<ReturnType<typeof toolContext>> {
  let current: Awaited<ReturnType<typeof toolContext>> | undefined
  beforeEach(async () => {
    current = await toolContext()
  })
  afterEach(async () => {
    await current?.dispose()
    current = undefined
  })
  return () => {
    if (!current) throw new Error('useToolContext: read the context inside a test')
    return current
  }
}

/** The payload of a recorded emission (`E01` …), as JSON. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- recorded payloads of many shapes, served as JSON
export const recorded = (id: string): any => providerEmission(id).payload

/** Runs `body` against a replay server answering with `script`, and always closes it. */
export async function withReplay<T>(script: readonly ReplayResponse[], body: (server: ReplayServer) => Promise<T>): Promise<T> {
  const server = await startReplayServer(script)
  try {
    return await body(server)
  } finally {
    await server.close()
  }
}

/** The text of each result, in order (what the model will read). */
export const texts = (results: readonly ToolResult[]): string[] => results.map((r) => r.content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n'))
