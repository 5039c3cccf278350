// The TypeScript consumer of the pack check (scripts/pack-check.mjs): typechecked, never run, in
// the empty project where the packed tarballs were installed, once with
// `moduleResolution: "Bundler"` and once with `"NodeNext"` (tsconfig.*.json next to this file),
// both `strict`, `exactOptionalPropertyTypes`, `noUncheckedIndexedAccess` and without
// `skipLibCheck`, so our `.d.ts` files are checked as a user's compiler reads them. The lines
// marked `@ts-expect-error` must stay errors: they prove the types reject what the runtime rejects.
import { Context } from 'cordis'
import { ToolRegistry, createAgent, type ToolResult } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'
import { PtcExecutor } from '@deepseek-ai/dsh-tool-executor-ptc'
import { TimeoutPolicy } from '@deepseek-ai/dsh-tool-call-timeout-policy'
import { createHarness, echoTool } from '@deepseek-ai/dsh-tool-testkit'
import { packages } from './packages.js'
import { add } from './tools.js'

const ctx = new Context()
await ctx.plugin(ToolRegistry)
await ctx.plugin(NativeExecutor, { maxParallelCalls: 4, onDispose: 'drain' })
await ctx.plugin(TimeoutPolicy, { defaultTimeoutMs: 30_000 })

ctx.tools.register(add)

const { agent, ctx: agentCtx } = createAgent(ctx, 'researcher')
await agentCtx.plugin(PtcExecutor, { limits: { wallMs: 10_000 } })

const results: readonly ToolResult[] = await ctx.tools.execute({
  agent,
  calls: [{ callId: 'c1', name: 'add', arguments: '{"a":1}' }],
  signal: AbortSignal.timeout(5_000),
})
for (const r of results) {
  if (r.isError) console.log(r.callId, r.error.info.code)
  else console.log(r.callId, r.value, r.content)
}

const h = await createHarness()
h.ctx.tools.register(echoTool())
await h.dispose()

export const loaded: number = packages.length
