import { Context } from 'cordis'
import { MeterProvider, MetricReader, type HistogramMetricData } from '@opentelemetry/sdk-metrics'
import { ToolRegistry, defineTool } from '@deepseek-ai/dsh-tools'
import { NativeExecutor } from '@deepseek-ai/dsh-tool-executor-native'
import { ToolMetrics } from '@deepseek-ai/dsh-tool-otel'

// Any OpenTelemetry metrics SDK setup works; here a reader collected by hand so the example prints.
class OnDemandReader extends MetricReader {
  protected async onShutdown(): Promise<void> {}
  protected async onForceFlush(): Promise<void> {}
}
const reader = new OnDemandReader()
const meterProvider = new MeterProvider({ readers: [reader] })

const ctx = new Context()
await ctx.plugin(ToolRegistry)
await ctx.plugin(NativeExecutor)
// Without meterProvider (or meter) it uses the global provider: metrics.getMeterProvider().
await ctx.plugin(ToolMetrics, { meterProvider })

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
const { resourceMetrics } = await reader.collect()
for (const scope of resourceMetrics.scopeMetrics) {
  for (const metric of scope.metrics as HistogramMetricData[]) {
    for (const point of metric.dataPoints) {
      console.log(metric.descriptor.name, point.attributes['gen_ai.tool.name'], point.attributes['error.type'] ?? 'ok', point.value.count)
    }
  }
}
await ctx.fiber.dispose()
// gen_ai.execute_tool.duration add ok 1
// gen_ai.execute_tool.duration add INVALID_ARGS 1
