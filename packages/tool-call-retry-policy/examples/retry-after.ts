import { Context } from 'cordis'
import { ToolRegistry, defineTool } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'
import { RetryPolicy } from '@deepseek-ai/dsh-tool-call-retry-policy'

const ctx = new Context()
await ctx.plugin(ToolRegistry)
await ctx.plugin(NativeExecutor)
await ctx.plugin(RetryPolicy, { maxRetryAfterMs: 10_000 })

ctx.on('tools/retry', ({ attempt, delayMs, retryAfterMs }) => {
  console.log(`attempt ${attempt} was rate-limited; the server asked for ${retryAfterMs}ms, waiting ${delayMs}ms`)
})

let calls = 0
ctx.tools.register(defineTool({
  name: 'search_issues',
  description: 'Searches the issue tracker.',
  parameters: { query: { type: 'string', required: true } },
  output: { schema: { type: 'string' }, render: (_args, text) => [{ type: 'text', text }] },
  idempotent: true,
  async execute(args) {
    // A stand-in for an HTTP API: the first request is answered 429 with `Retry-After: 1`.
    // Throw the response's status and headers with the error, as HTTP clients do.
    if (++calls === 1) {
      const response = new Response(null, { status: 429, headers: { 'retry-after': '1' } })
      throw Object.assign(new Error('429 Too Many Requests'), { status: response.status, headers: response.headers })
    }
    return `3 issues match "${args.query}"`
  },
}))

const [result] = await ctx.tools.execute({
  calls: [{ callId: 'c1', name: 'search_issues', arguments: '{"query":"timeout"}' }],
})
console.log(result?.content) // [{ type: 'text', text: '3 issues match "timeout"' }]
console.log(result?.meta?.annotations?.retry) // { attempts: 2, delaysMs: [ 1000 ], errors: [ 'TOOL_FAILED' ] }
await ctx.fiber.dispose()
