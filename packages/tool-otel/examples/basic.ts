import { Context } from 'cordis'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { ToolRegistry, defineTool } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'
import { ToolTracing } from '@deepseek-ai/dsh-tool-otel'

// Any OpenTelemetry SDK setup works; here an in-memory exporter so the example prints its spans.
const exporter = new InMemorySpanExporter()
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })

const ctx = new Context()
await ctx.plugin(ToolRegistry)
await ctx.plugin(NativeExecutor)
// Without tracerProvider (or tracer) it uses the global provider: trace.getTracerProvider().
await ctx.plugin(ToolTracing, { tracerProvider, captureContent: false })

ctx.tools.register(defineTool({
  name: 'add',
  description: 'Add two numbers.',
  parameters: { a: { type: 'number', required: true }, b: { type: 'number', required: true } },
  output: { schema: { type: 'number' }, render: (_args, sum) => [{ type: 'text', text: String(sum) }] },
  execute: (args) => args.a + args.b,
}))

await ctx.tools.execute({
  calls: [
    { callId: 'c1', name: 'add', arguments: '{"a":1,"b":2}' },
    { callId: 'c2', name: 'add', arguments: '{"a":"one"}' },
  ],
})
for (const span of exporter.getFinishedSpans()) {
  console.log(span.name, span.attributes['gen_ai.tool.call.id'] ?? '', span.attributes['error.type'] ?? '')
}
// execute_tool add c1
// execute_tool add c2 INVALID_ARGS
// execute_tools          (the batch span, parent of both)

// Stop: disposing the root fiber stops every plugin loaded on ctx; the program then exits.
await ctx.fiber.dispose()
