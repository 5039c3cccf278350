/**
 * The PTC workload for Python programs (`@deepseek-ai/dsh-code-runtime-python`: Pyodide in a
 * worker thread), measured the same way as the TypeScript runtime (`./ptc`) so the two sit side
 * by side: warm-up (plugin start: worker boot and Pyodide load, from the memory snapshot when
 * one is cached), the first `run_code` after it, steady runs of a trivial program, per-sub-call
 * overhead awaited one by one and with `asyncio.gather`, and the resident memory a warmed idle
 * runtime adds to the process (the QuickJS runtime's measured the same way).
 */
import { createPythonRuntime } from '@deepseek-ai/dsh-code-runtime-python'
import { createPtcExecutor, createQuickJsRuntime } from '@deepseek-ai/dsh-tool-executor-ptc'
import { createHarness } from '@deepseek-ai/dsh-tool-testkit'
import { dshAddTool } from '../systems/dsh'
import { measurePtcPrograms } from './ptc'
import type { PtcTimings } from './ptc-code-mode'

/** Workload configuration. */
export interface PtcPythonConfig {
  readonly subCalls: number
  readonly rounds: number
  readonly warmup: number
  readonly log: (line: string) => void
}

/** What the Python runtime measured. */
export interface PtcPythonResult extends PtcTimings {
  /** `warmUp()` of a fresh runtime (plugin start), ms. */
  readonly warmUpMs: number
  /** Where that warm-up started Pyodide from: a cached memory snapshot, or a full boot. */
  readonly snapshot: 'none' | 'memory' | 'cache'
  /** The first `run_code` after the warm-up (trivial program), ms. */
  readonly firstRunMs: number
  /** Resident set size a warmed, idle Python runtime adds to the process, MiB. */
  readonly idleRssMiB: number
  /** The same for the default QuickJS runtime, MiB. */
  readonly quickJsIdleRssMiB: number
}

const MIB = 1024 * 1024

/** RSS after letting the runtime settle and collecting garbage where possible, bytes. */
async function settledRss(): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 200))
  ;(globalThis as { gc?: () => void }).gc?.()
  return process.memoryUsage().rss
}

/** Runs the Python PTC workload. */
export async function runPtcPython(config: PtcPythonConfig): Promise<PtcPythonResult> {
  const k = config.subCalls
  const quickJsBefore = await settledRss()
  const quickJs = createQuickJsRuntime()
  await quickJs.warmUp()
  const quickJsIdleRssMiB = ((await settledRss()) - quickJsBefore) / MIB
  quickJs.dispose()

  const before = await settledRss()
  const runtime = createPythonRuntime()
  const t0 = performance.now()
  await runtime.warmUp()
  const warmUpMs = performance.now() - t0
  const snapshot = runtime.stats().snapshot
  const idleRssMiB = ((await settledRss()) - before) / MIB
  const h = await createHarness({ executor: createPtcExecutor({ runtime, warmUp: false }) })
  try {
    h.ctx.tools.register(dshAddTool(true))
    const trivial = 'return 1'
    const sequential = `s = 0\nfor i in range(${k}):\n    r = await tools.add(a=i, b=2, label="x")\n    s += r["sum"]\nreturn s`
    const parallel = `import asyncio\nrs = await asyncio.gather(*[tools.add(a=i, b=2, label="x") for i in range(${k})])\nreturn sum(r["sum"] for r in rs)`
    const { firstMs: firstRunMs, timings } = await measurePtcPrograms(h, 'ptc-python', { trivial, sequential, parallel }, config)
    const result: PtcPythonResult = { ...timings, warmUpMs, snapshot, firstRunMs, idleRssMiB, quickJsIdleRssMiB }
    config.log(
      `ptc-python: warm-up ${warmUpMs.toFixed(0)} ms (snapshot: ${snapshot}), first run ${firstRunMs.toFixed(1)} ms, steady ${timings.steadyMs.median.toFixed(2)} ms, per sub-call ${timings.perSubCallSequentialUs.toFixed(0)} µs sequential / ${timings.perSubCallParallelUs.toFixed(0)} µs gathered; idle RSS +${idleRssMiB.toFixed(0)} MiB (QuickJS +${quickJsIdleRssMiB.toFixed(0)} MiB)`,
    )
    return result
  } finally {
    await h.dispose()
    runtime.dispose()
  }
}
