import { createHarness, echoTool } from '@deepseek-ai/dsh-tool-testkit'
import { createPtcExecutor, RUN_CODE, createQuickJsRuntime } from '@deepseek-ai/dsh-tool-executor-ptc'
const mode = process.argv[2] ?? 'trivial'
const runtime = createQuickJsRuntime({ thread: (process.argv[3] as 'main' | 'worker') ?? 'main', watchdog: false })
const h = await createHarness({ executor: createPtcExecutor({ runtime, limits: { computeMs: 5_000, wallMs: 30_000 } }) })
h.ctx.tools.register(echoTool())
let n = 0
const code = mode === 'trivial' ? 'return 1' : `for (let i = 0; i < 200; i++) await tools.echo({ text: 'x' }); return 1`
const run = async () => { const [r] = await h.execute([{ callId: `c${++n}`, name: RUN_CODE, arguments: JSON.stringify({ code, description: 'bench' }) }]); if (r?.isError) throw new Error(JSON.stringify(r.content)) }
for (let i = 0; i < 20; i++) await run()
const t = performance.now()
const N = mode === 'trivial' ? 400 : 30
for (let i = 0; i < N; i++) await run()
console.log(mode, ((performance.now() - t) / N).toFixed(3), 'ms per run')
await h.dispose(); runtime.dispose()
