/**
 * The README's example, typechecked with the repository (`tsc -p tsconfig.json`) and runnable:
 *   npm run tsx -- packages/tool-call-timeout-policy/examples/basic.ts
 */
import { Context } from 'cordis'
import { ToolRegistry, createAgent, defineTool } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'
import { TimeoutPolicy, timeoutStats } from '@deepseek-ai/dsh-tool-call-timeout-policy'

const ctx = new Context()
await ctx.plugin(ToolRegistry)
await ctx.plugin(NativeExecutor)

// Deployment-wide: enforce every definition's own timeoutMs, and give tools without one 30 s.
await ctx.plugin(TimeoutPolicy, { defaultTimeoutMs: 30_000 })

// One agent also gets a hard limit: a body that ignores its signal is abandoned 500 ms after it fired.
const { agent, ctx: agentCtx } = createAgent(ctx, 'researcher')
await agentCtx.plugin(TimeoutPolicy, { hardLimit: { graceMs: 500 } })

ctx.on('tools/abandoned', (event) => {
  console.warn(`abandoned ${event.toolName} (${event.callId}) in ${event.scope.id} after ${event.budgetMs}ms + ${event.graceMs}ms`)
})

ctx.tools.register(
  defineTool({
    name: 'fetch_page',
    description: 'Fetch a web page and return its text.',
    parameters: { url: { type: 'string', required: true, description: 'Absolute URL' } },
    output: { schema: { type: 'string' }, render: (_args, text) => [{ type: 'text', text }] },
    timeoutMs: 200, // this tool's budget; the policy enforces it
    async execute(_args, exec) {
      // A cooperative body: it observes exec.signal (here a stand-in for a slow network call).
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, 1_000)
        exec.signal.addEventListener('abort', () => {
          clearTimeout(timer)
          reject(exec.signal.reason)
        }, { once: true })
      })
      return '<html>…</html>'
    },
  }),
)

const [result] = await ctx.tools.execute({
  agent,
  calls: [{ callId: 'call_1', name: 'fetch_page', arguments: '{"url":"https://example.com"}' }],
})
// → Error: tool call timed out after 200ms  (error.info.code === 'TOOL_TIMEOUT')
console.log(result?.content, result?.isError === true ? result.error.info.code : 'ok')
console.log(timeoutStats.snapshot()) // { timedOut: 1, abandoned: 0, abandonedRunning: 0 }

// Stop: disposing the root fiber stops every plugin loaded on ctx; the program then exits.
await ctx.fiber.dispose()
