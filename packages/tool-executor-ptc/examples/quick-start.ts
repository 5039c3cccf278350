import { Context } from 'cordis'
import { ToolRegistry, defineTool } from '@deepseek-ai/dsh-tools'
import { PtcExecutor } from '@deepseek-ai/dsh-tool-executor-ptc'

const ctx = new Context()
await ctx.plugin(ToolRegistry)
await ctx.plugin(PtcExecutor, { maxParallelSubCalls: 10, limits: { wallMs: 30_000, memoryBytes: 32 * 1024 * 1024 } })

ctx.tools.register(defineTool({
  name: 'lookup_order',
  description: 'Look up one order record by id (ORD-nnnn).',
  parameters: { id: { type: 'string', required: true, pattern: '^ORD-[0-9]{4}$' } },
  output: {
    schema: { type: 'object', properties: { id: { type: 'string', required: true }, total: { type: 'number', required: true } } },
    render: (_args, order) => [{ type: 'text', text: `${order.id}: ${order.total}` }],
  },
  isConcurrencySafe: () => true,
  execute: async (args) => ({ id: args.id, total: Number(args.id.slice(4)) / 10 }),
}))

// The model sees one tool, run_code, and the SDK in a prompt section.
const { tools, sections } = ctx.tools.describe()
console.log(tools.map((t) => t.name), sections[0]?.text)

// It answers with one program; only the program's output comes back.
const program = `
const ids = ['ORD-1001', 'ORD-1002', 'ORD-1003']
const orders = await Promise.all(ids.map((id) => tools.lookup_order({ id })))
try {
  await tools.lookup_order({ id: 'nope' })
} catch (e) {
  console.log('skipped:', (e as ToolCallError).message)
}
return { count: orders.length, total: orders.reduce((sum, o) => sum + o.total, 0) }
`
const [result] = await ctx.tools.execute({
  calls: [{ callId: 'call_1', name: 'run_code', arguments: JSON.stringify({ code: program, description: 'sum three orders' }) }],
})
console.log(result?.content)
// [ { type: 'text', text: … } ], the text being the program's output:
// skipped: Invalid arguments for tool "lookup_order": /id: must match pattern "^ORD-[0-9]{4}$"
// {
//   "count": 3,
//   "total": 300.6
// }

// Stop: disposing the root fiber stops every plugin loaded on ctx; the program then exits.
await ctx.fiber.dispose()
