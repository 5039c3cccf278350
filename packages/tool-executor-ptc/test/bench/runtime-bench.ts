/**
 * Runtime cost benchmark (a script, not a unit test):
 *   npm run tsx -- packages/tool-executor-ptc/test/bench/runtime-bench.ts [variant...]
 * Variants: `watchdog`, `no-watchdog` (`thread: 'main'` with / without the vm watchdog),
 * `worker` (`thread: 'worker'`), `default` (createQuickJsRuntime()). Every figure goes through
 * the full pipeline (registry → PTC executor → runtime → bridge → sub-call runner).
 */
import { createHarness, echoTool } from '@deepseek-ai/dsh-tool-testkit'
import { createPtcExecutor, RUN_CODE, createQuickJsRuntime, type QuickJsRuntimeOptions } from '@deepseek-ai/dsh-tool-executor-ptc'

const VARIANTS: Record<string, () => QuickJsRuntimeOptions> = {
  watchdog: () => ({ thread: 'main', watchdog: true }),
  'no-watchdog': () => ({ thread: 'main', watchdog: false }),
  worker: () => ({ thread: 'worker' }),
  default: () => ({}),
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN
const fmt = (ms: number): string => (ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`)

async function bench(variant: string): Promise<void> {
  const runtime = createQuickJsRuntime(VARIANTS[variant]!())
  const h = await createHarness({ executor: createPtcExecutor({ runtime, limits: { computeMs: 5_000, wallMs: 30_000 } }) })
  h.ctx.tools.register(echoTool())
  let n = 0
  const run = async (code: string): Promise<number> => {
    const t = performance.now()
    const [r] = await h.execute([{ callId: `c${++n}`, name: RUN_CODE, arguments: JSON.stringify({ code, description: 'bench' }) }])
    const elapsed = performance.now() - t
    if (r?.isError) throw new Error(JSON.stringify(r.content))
    return elapsed
  }
  const first = await run('return 1')
  for (let i = 0; i < 20; i++) await run('return 1')
  const trivial: number[] = []
  for (let i = 0; i < 60; i++) trivial.push(await run('return 1'))
  const SEQ = 200
  const seq: number[] = []
  for (let i = 0; i < 15; i++) seq.push(await run(`for (let i = 0; i < ${SEQ}; i++) await tools.echo({ text: 'x' }); return 1`))
  const par: number[] = []
  for (let i = 0; i < 40; i++) par.push(await run(`const r = await Promise.all(Array.from({ length: 10 }, (_, i) => tools.echo({ text: String(i) }))); return r.length`))
  const perSub = (median(seq) - median(trivial)) / SEQ
  console.log(
    `${variant.padEnd(12)} first run ${fmt(first)} | trivial run ${fmt(median(trivial))} | sequential sub-call ${fmt(perSub)} | 10 parallel sub-calls ${fmt(median(par))} (run total)`,
  )
  await h.dispose()
  ;(runtime as { dispose?: () => void }).dispose?.()
}

const chosen = process.argv.slice(2)
for (const v of chosen.length > 0 ? chosen : Object.keys(VARIANTS)) await bench(v)
