/**
 * The README's "Preliminary results" example: a generator body's yields reach
 * `tools/preliminary` observers; the return value is the call's result. Run by
 * test/readme-preliminary.test.ts, which compares what it prints with the comments at the end.
 */
import { Context } from 'cordis'
import { ToolRegistry, defineTool } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'

const ctx = new Context()
await ctx.plugin(ToolRegistry)
await ctx.plugin(NativeExecutor)

const count = defineTool({
  name: 'count',
  description: 'Count up to n, reporting each step.',
  parameters: { n: { type: 'integer', required: true } },
  async *execute({ n }) {
    for (let i = 1; i <= n; i++) yield { step: i }
    return `counted to ${n}`
  },
})
ctx.tools.on('tools/preliminary', (e) => console.log(e.callId, e.sequence, e.value))

ctx.tools.register(count)
const [result] = await ctx.tools.execute({ calls: [{ callId: 'c1', name: 'count', arguments: '{"n":2}' }] })
console.log(result?.isError === false ? result.value : result?.error.info.code)
await ctx.fiber.dispose()
// c1 1 { step: 1 }
// c1 2 { step: 2 }
// counted to 2
