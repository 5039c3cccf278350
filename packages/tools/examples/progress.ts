import { Context } from 'cordis'
import { ToolRegistry, defineTool } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'

const ctx = new Context()
await ctx.plugin(ToolRegistry, { progressIntervalMs: 250 }) // at most one event per call every 250 ms
await ctx.plugin(NativeExecutor)

ctx.tools.register(defineTool({
  name: 'index_files',
  description: 'Index a list of files.',
  parameters: { paths: { type: 'array', items: { type: 'string' }, required: true } },
  output: { schema: { type: 'integer' }, render: (_args, n) => [{ type: 'text', text: `indexed ${n} files` }] },
  async execute(args, exec) {
    for (const [i, path] of args.paths.entries()) {
      exec.signal.throwIfAborted()
      exec.reportProgress({ progress: i, total: args.paths.length, message: `indexing ${path}` })
      await new Promise((resolve) => setTimeout(resolve, 10)) // the real work
    }
    return args.paths.length
  },
}))

// For UIs and logs only: progress never becomes model content. Every event of a call precedes
// its tools/result; none follows it.
ctx.on('tools/progress', ({ callId, tool, progress, total, message }) => {
  console.log(`${callId} ${tool}: ${progress}/${total ?? '?'} ${message ?? ''}`)
})

await ctx.tools.execute({ calls: [{ callId: 'c1', name: 'index_files', arguments: '{"paths":["a.ts","b.ts","c.ts"]}' }] })
await ctx.fiber.dispose()
// c1 index_files: 0/3 indexing a.ts   (the first update goes out at once; later ones within
//                                      250 ms coalesce to the latest, flushed before the result)
// c1 index_files: 2/3 indexing c.ts
