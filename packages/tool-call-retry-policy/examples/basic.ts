import { Context } from 'cordis'
import { ToolRegistry, defineTool } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'
import { TimeoutPolicy } from '@deepseek-ai/dsh-tool-call-timeout-policy'
import { RetryPolicy } from '@deepseek-ai/dsh-tool-call-retry-policy'

const ctx = new Context()
await ctx.plugin(ToolRegistry)
await ctx.plugin(NativeExecutor)

// Retry first, timeout second: every attempt gets its own 2 s deadline.
await ctx.plugin(RetryPolicy, { maxAttempts: 3, initialDelayMs: 50, maxDelayMs: 1_000 })
await ctx.plugin(TimeoutPolicy, {})

ctx.on('tools/retry', ({ callId, attempt, delayMs, error }) => {
  console.log(`${callId}: attempt ${attempt} failed (${error.info.code}); retrying in ${delayMs}ms`)
})

let calls = 0
ctx.tools.register(defineTool({
  name: 'get_weather',
  description: 'Current weather for a city.',
  parameters: { city: { type: 'string', required: true } },
  output: { schema: { type: 'string' }, render: (_args, text) => [{ type: 'text', text }] },
  idempotent: true, // reading twice has no further effect: the policy may repeat it
  timeoutMs: 2_000,
  async execute(args) {
    // A stand-in for a flaky HTTP call: the first attempt's connection is reset.
    if (++calls === 1) throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })
    return `${args.city}: 21°C, clear`
  },
}))

const [result] = await ctx.tools.execute({
  calls: [{ callId: 'c1', name: 'get_weather', arguments: '{"city":"Lisbon"}' }],
})
console.log(result?.content) // [{ type: 'text', text: 'Lisbon: 21°C, clear' }]
console.log(result?.meta?.annotations?.retry) // { attempts: 2, delaysMs: [ <0–50> ], errors: [ 'ECONNRESET' ] }

// Stop: disposing the root fiber stops every plugin loaded on ctx; the program then exits.
await ctx.fiber.dispose()
