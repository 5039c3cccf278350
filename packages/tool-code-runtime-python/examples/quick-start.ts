import { Context } from 'cordis'
import { ToolRegistry, defineTool } from '@deepseek-ai/dsh-tools'
import { PtcExecutor } from '@deepseek-ai/dsh-tool-executor-ptc'
import { createPythonRuntime } from '@deepseek-ai/dsh-code-runtime-python'

const ctx = new Context()
await ctx.plugin(ToolRegistry)
// Plugin start warms the runtime: a worker thread loads Pyodide (from its memory snapshot when one is cached).
const runtime = createPythonRuntime()
await ctx.plugin(PtcExecutor, { runtime, limits: { wallMs: 30_000, memoryBytes: 64 * 1024 * 1024 } })

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

// The model sees run_code ("Execute a Python program …") and the Python SDK in a prompt section.
const { tools, sections } = ctx.tools.describe()
console.log(tools[0]?.description, sections[0]?.text)

// It answers with one Python program; only the printed lines and the returned value come back.
const program = `
import asyncio
ids = ["ORD-1001", "ORD-1002", "ORD-1003"]
orders = await asyncio.gather(*(tools.lookup_order(id=i) for i in ids))
try:
    await tools.lookup_order(id="nope")
except ToolCallError as e:
    print("skipped:", e.message)
return {"count": len(orders), "total": round(sum(o["total"] for o in orders), 1)}
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
// Stop: the context first (its plugins), then the runtime (its Pyodide workers); the program then exits.
await ctx.fiber.dispose()
runtime.dispose()
