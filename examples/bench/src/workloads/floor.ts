/**
 * Workload 2 (docs/design.md, "Performance targets", "per-call overhead vs the floor"), the breakdown half: what the
 * floor is made of, per call, measured with tinybench over the same 1,000 argument texts —
 * `JSON.parse` alone, plus a precompiled ajv validator (first error, as the floor; and all
 * errors, as our registry configures ajv), plus the direct call. The ratio of our pipeline to
 * the floor comes from the alternating batch runs ({@link ../workloads/batch}).
 */
import { Bench } from 'tinybench'
import AjvImport from 'ajv'
import { addBody, ARGS_JSON_SCHEMA, scriptedCalls } from '../systems/trivial'

type AjvClass = typeof AjvImport
const Ajv: AjvClass = typeof AjvImport === 'function' ? AjvImport : (AjvImport as unknown as { default: AjvClass }).default

/** One component of the floor. */
export interface FloorPart {
  readonly id: 'parse' | 'parse+validate' | 'parse+validate(allErrors)' | 'floor'
  readonly title: string
  /** Median per call, ns. */
  readonly medianNs: number
  /** p75 per call, ns. */
  readonly p75Ns: number
  readonly samples: number
}

/** Measures the floor's parts. `timeMs` is tinybench's time budget per task. */
export async function runFloor(config: { readonly timeMs: number; readonly n: number; readonly log: (line: string) => void }): Promise<FloorPart[]> {
  const texts = scriptedCalls(config.n).map((c) => c.arguments)
  const first = new Ajv({ strict: false }).compile(ARGS_JSON_SCHEMA)
  const all = new Ajv({ strict: false, allErrors: true }).compile(ARGS_JSON_SCHEMA)
  let sink = 0
  const tasks: { id: FloorPart['id']; title: string; fn: () => void }[] = [
    { id: 'parse', title: '`JSON.parse`', fn: () => { for (const t of texts) sink += (JSON.parse(t) as { a: number }).a } },
    { id: 'parse+validate', title: '+ ajv validate (precompiled)', fn: () => { for (const t of texts) if (first(JSON.parse(t))) sink++ } },
    { id: 'parse+validate(allErrors)', title: '+ ajv validate, `allErrors` (as our registry)', fn: () => { for (const t of texts) if (all(JSON.parse(t))) sink++ } },
    {
      id: 'floor',
      title: '+ direct call = the floor',
      fn: () => {
        for (const t of texts) {
          const args = JSON.parse(t) as { a: number; b: number; label: string }
          if (first(args)) sink += addBody(args).sum
        }
      },
    },
  ]
  const bench = new Bench({ time: config.timeMs, warmupTime: Math.min(100, config.timeMs), throws: true })
  for (const t of tasks) bench.add(t.id, t.fn)
  await bench.run()
  const parts = tasks.map((t, i): FloorPart => {
    const result = bench.tasks[i]!.result
    if (!('latency' in result)) throw new Error(`floor: tinybench task ${t.id} did not complete (${result.state})`)
    return { id: t.id, title: t.title, medianNs: (result.latency.p50 * 1e6) / config.n, p75Ns: (result.latency.p75 * 1e6) / config.n, samples: result.latency.samplesCount }
  })
  if (sink === 0) throw new Error('floor: nothing was computed')
  config.log(`floor parts: ${parts.map((p) => `${p.id} ${p.medianNs.toFixed(0)} ns`).join(', ')}`)
  return parts
}
