import { readFile } from 'node:fs/promises'
import { Context } from 'cordis'
import { ToolRegistry, defineTool } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'

const ctx = new Context()
await ctx.plugin(ToolRegistry)
await ctx.plugin(NativeExecutor, { maxParallelCalls: 10 })

ctx.tools.register(defineTool({
  name: 'read_file',
  description: 'Read a UTF-8 file from disk.',
  parameters: {
    path: { type: 'string', required: true, description: 'Absolute file path' },
    limit: { type: 'integer', minimum: 1, description: 'Read at most this many lines' },
  },
  isConcurrencySafe: () => true,
  async execute(args, exec) {
    // args is typed: { path: string; limit?: number }
    const text = await readFile(args.path, { encoding: 'utf8', signal: exec.signal })
    return args.limit === undefined ? text : text.split('\n').slice(0, args.limit).join('\n')
  },
}))

// What the model sees: the visible schemas, in registration order.
const { tools } = ctx.tools.describe()
console.log(tools.map((t) => t.name)) // ['read_file']

// A batch exactly as the model emitted it: raw argument strings, possibly broken.
const results = await ctx.tools.execute({
  calls: [
    { callId: 'call_1', name: 'read_file', arguments: '{"path":"/etc/hostname","limit":1}' },
    { callId: 'call_2', name: 'read_file', arguments: '{"path": 42}' },
    { callId: 'call_3', name: 'read_fiel', arguments: '{}' },
  ],
  signal: AbortSignal.timeout(30_000),
})
const text = (r: (typeof results)[number]) => r.content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('')
for (const r of results) console.log(r.callId, `${r.isError ? r.error.info.code : 'ok'}: ${text(r)}`)
// call_1 ok: <the first line of /etc/hostname>   (TOOL_FAILED: Error: ENOENT: … where there is none)
// call_2 INVALID_ARGS: Error: Invalid arguments for tool "read_file": /path: must be string (got number)
// call_3 UNKNOWN_TOOL: Error: Unknown tool "read_fiel". Available tools: read_file

// Stop: disposing the root fiber stops every plugin loaded on ctx; the program then exits.
await ctx.fiber.dispose()
