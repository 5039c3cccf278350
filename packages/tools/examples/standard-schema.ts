import { Context } from 'cordis'
import { z } from 'zod'
import { ToolRegistry, defineTool } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'

const ctx = new Context()
await ctx.plugin(ToolRegistry)
await ctx.plugin(NativeExecutor)

ctx.tools.register(defineTool({
  name: 'list_dir',
  description: 'List a directory.',
  // Any Standard Schema: zod 4, valibot (wrapped in toStandardJsonSchema), ArkType…
  parameters: z.object({
    path: z.string().describe('Absolute directory path'),
    depth: z.number().int().min(0).max(5).default(1),
  }),
  output: {
    schema: z.array(z.string()),
    render: (_args, names) => [{ type: 'text', text: names.join('\n') }],
  },
  async execute(args) {
    // args is zod's output: { path: string; depth: number } (the default applied)
    return [`${args.path} (depth ${args.depth})`]
  },
}))

// The model sees zod's own JSON Schema (draft-07, without $schema):
console.log(JSON.stringify(ctx.tools.schemas()[0]?.parameters))
// {"type":"object","properties":{"path":{"type":"string","description":"Absolute directory path"},
//  "depth":{"default":1,"type":"integer","minimum":0,"maximum":5}},"required":["path"]}

const [ok, bad] = await ctx.tools.execute({
  calls: [
    { callId: 'c1', name: 'list_dir', arguments: '{"path":"/tmp"}' },
    { callId: 'c2', name: 'list_dir', arguments: '{"path":"/tmp","depth":9}' },
  ],
})
console.log(ok?.content) // [{ type: 'text', text: '/tmp (depth 1)' }]
console.log(bad?.content) // Error: Invalid arguments for tool "list_dir": /depth: Too big: expected number to be <=5
await ctx.fiber.dispose()
