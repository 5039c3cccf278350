import { Context } from 'cordis'
import { ToolRegistry, defineTool } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'

const ctx = new Context()
await ctx.plugin(ToolRegistry)
await ctx.plugin(NativeExecutor)

ctx.tools.register(defineTool({
  name: 'add',
  description: 'Add two integers.',
  parameters: { a: { type: 'integer', required: true }, b: { type: 'integer', required: true } },
  execute: async (args) => args.a + args.b,
}))

// One batch as the model emitted it: results come back in call order, errors included.
const results = await ctx.tools.execute({
  calls: [
    { callId: 'c1', name: 'add', arguments: '{"a":2,"b":3}' },
    { callId: 'c2', name: 'add', arguments: '{"a":"2"}' },
  ],
})
for (const r of results) console.log(r.callId, r.isError ? r.error.info.code : r.value)
// c1 5
// c2 INVALID_ARGS

// Stop: disposing the root fiber stops every plugin loaded on ctx; the program then exits.
await ctx.fiber.dispose()
