import { Context } from 'cordis'
import { ToolRegistry, createAgent, defineTool } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'

const ctx = new Context()
await ctx.plugin(ToolRegistry)
// One executor per scope; the nearest one serves a batch. maxParallelCalls: 1 makes every batch serial.
await ctx.plugin(NativeExecutor, { maxParallelCalls: 4, onDispose: 'drain' })

ctx.tools.register(defineTool({
  name: 'get_weather',
  description: 'Current weather for a city.',
  parameters: { city: { type: 'string', required: true }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
  output: { schema: { type: 'object', properties: { temp: { type: 'number', required: true } } }, render: (args, v) => [{ type: 'text', text: `${args.city}: ${v.temp}°` }] },
  isConcurrencySafe: () => true, // parallel calls of it overlap, up to maxParallelCalls
  execute: async (args) => ({ temp: args.unit === 'fahrenheit' ? 68 : 20 }),
}))

const { agent } = createAgent(ctx, 'assistant')
// describe(): what the model sees — each visible tool as a function, in registration order.
console.log(ctx.tools.describe({ agent }).tools)
const results = await ctx.tools.execute({
  agent,
  calls: [
    { callId: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
    { callId: 'call_b', name: 'get_weather', arguments: '{"city":"Oslo","unit":"kelvin"}' },
  ],
})
console.log(results.map((r) => r.content))
// [[{ type: 'text', text: 'Paris: 20°' }],
//  [{ type: 'text', text: 'Error: Invalid arguments for tool "get_weather": /unit: must be one of "celsius", "fahrenheit"' }]]

// Stop: disposing the root fiber stops every plugin loaded on ctx (this executor drains its running
// batches first: onDispose 'drain'); the program then exits.
await ctx.fiber.dispose()
