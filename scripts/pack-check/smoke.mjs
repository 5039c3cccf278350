// The ESM consumer of the pack check (scripts/pack-check.mjs). It runs with plain `node` in an
// empty project outside the repository, where the packed tarballs were installed with npm, so it
// sees exactly what a user of the published packages sees: `dist/`, the packed manifests and the
// registry's copies of cordis, ajv, esbuild and quickjs-emscripten.
//
// 1. Every packed package (names in packages.json, written by the pack check) imports and has
//    named exports.
// 2. A batch runs through the registry with the native executor and the timeout policy: results
//    in call order, one success, one INVALID_ARGS, one UNKNOWN_TOOL, one TOOL_TIMEOUT.
// 3. A run_code program runs through the PTC executor (the QuickJS sandbox, its worker entry in
//    dist/ and esbuild's TypeScript stripping) and calls a tool twice.
// 4. The testkit's harness boots and tears down, and its real-data fixtures load from the package.
// Exits 1 with a message on the first mismatch.
import { readFileSync } from 'node:fs'
import { deepStrictEqual, ok } from 'node:assert/strict'
import { Context } from 'cordis'

const names = JSON.parse(readFileSync(new URL('./packages.json', import.meta.url), 'utf8'))
for (const name of names) {
  const mod = await import(name)
  ok(Object.keys(mod).length > 0, `${name}: no exports`)
}
console.log(`imports: ${names.length} packages`)

const { ToolRegistry, defineTool } = await import('@deepseek-ai/dsh-tools')

const addTool = defineTool({
  name: 'add',
  description: 'Add two integers.',
  parameters: { a: { type: 'integer', required: true }, b: { type: 'integer', required: true } },
  output: { schema: { type: 'integer' }, render: (_args, sum) => [{ type: 'text', text: String(sum) }] },
  isConcurrencySafe: () => true,
  execute: async (args) => args.a + args.b,
})

const slowTool = defineTool({
  name: 'slow',
  description: 'Waits until its signal aborts.',
  parameters: {},
  output: { schema: { type: 'string' }, render: (_args, text) => [{ type: 'text', text }] },
  timeoutMs: 50,
  execute: (_args, exec) =>
    new Promise((_resolve, reject) => exec.signal.addEventListener('abort', () => reject(exec.signal.reason), { once: true })),
})

// 2. native executor + timeout policy
{
  const { NativeExecutor } = await import('@deepseek-ai/dsh-tool-executor-native')
  const { TimeoutPolicy } = await import('@deepseek-ai/dsh-tool-call-timeout-policy')
  const ctx = new Context()
  await ctx.plugin(ToolRegistry)
  await ctx.plugin(NativeExecutor, { maxParallelCalls: 4 })
  await ctx.plugin(TimeoutPolicy)
  ctx.tools.register(addTool)
  ctx.tools.register(slowTool)
  deepStrictEqual(ctx.tools.describe().tools.map((t) => t.name), ['add', 'slow'])
  const results = await ctx.tools.execute({
    calls: [
      { callId: 'c1', name: 'add', arguments: '{"a":2,"b":3}' },
      { callId: 'c2', name: 'add', arguments: '{"a":"2"}' },
      { callId: 'c3', name: 'sub', arguments: '{}' },
      { callId: 'c4', name: 'slow', arguments: '{}' },
    ],
  })
  const outcome = results.map((r) => [r.callId, r.isError ? r.error.info?.code : r.value])
  deepStrictEqual(outcome, [['c1', 5], ['c2', 'INVALID_ARGS'], ['c3', 'UNKNOWN_TOOL'], ['c4', 'TOOL_TIMEOUT']])
  console.log(`native batch: ${outcome.map(([id, v]) => `${id}=${v}`).join(' ')}`)
}

// 3. PTC executor: one run_code call, two sub-calls
{
  const { PtcExecutor } = await import('@deepseek-ai/dsh-tool-executor-ptc')
  const ctx = new Context()
  await ctx.plugin(ToolRegistry)
  await ctx.plugin(PtcExecutor, { limits: { wallMs: 20_000 } })
  ctx.tools.register(addTool)
  deepStrictEqual(ctx.tools.describe().tools.map((t) => t.name), ['run_code'])
  const code = 'const x: number = await tools.add({ a: 1, b: 2 })\nreturn await tools.add({ a: x, b: 10 })'
  const [result] = await ctx.tools.execute({
    calls: [{ callId: 'p1', name: 'run_code', arguments: JSON.stringify({ code, description: 'add twice' }) }],
  })
  ok(result && !result.isError, `run_code failed: ${JSON.stringify(result?.content)}`)
  const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('')
  ok(text.includes('13'), `run_code output: ${text}`)
  console.log(`ptc run_code: ${JSON.stringify(text.trim())}`)
}

// 4. testkit harness and packaged fixtures
{
  const { call, createHarness, echoTool, loadMcpToolLists } = await import('@deepseek-ai/dsh-tool-testkit')
  const h = await createHarness()
  h.ctx.tools.register(echoTool())
  const [result] = await h.execute([call('echo', { text: 'hi' }, 'e1')])
  deepStrictEqual(result?.value, { text: 'hi' })
  await h.dispose()
  deepStrictEqual(h.listeners(), {})
  ok(loadMcpToolLists().length > 0, 'testkit: no MCP tool lists in the packaged fixtures')
  console.log('testkit: harness and fixtures ok')
}
console.log('smoke ok')
