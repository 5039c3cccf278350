/**
 * PTC replay cost benchmark (a script, not a unit test):
 *   npm run tsx -- packages/tool-executor-ptc/test/bench/replay-bench.ts [typescript|python]
 * One program of N sequential sub-calls of `read`, then one `deploy` that needs approval, through
 * the full pipeline (registry → PTC executor → runtime → bridge → sub-call runner), measured in the
 * same process, interleaved:
 * - plain: the approval service approves at once (no suspension);
 * - suspend: the approval is deferred, the run ends as suspended (the state is serialized);
 * - replay: the stored state is resumed with an approval: the N calls come from the journal, the
 *   deploy runs, the program returns.
 * Prints medians, the ratios replay ÷ plain and suspend ÷ plain, and the state's bytes.
 */
import { createHarness } from '@deepseek-ai/dsh-tool-testkit'
import { createPtcExecutor, RUN_CODE, type CodeRuntime } from '@deepseek-ai/dsh-tool-executor-ptc'
import { countedTool, TestSuspension } from '../suspension-adapter'

const N = 50
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN
const PROGRAMS: Record<string, string> = {
  typescript: `let s = 0\nfor (let i = 0; i < ${N}; i++) s += (await tools.read({ text: String(i) })).text.length\nconst d = await tools.deploy({ text: 'v' + s })\nreturn d.text`,
  python: `s = 0\nfor i in range(${N}):\n    s += len((await tools.read(text=str(i)))["text"])\nd = await tools.deploy(text=f"v{s}")\nreturn d["text"]`,
}

async function bench(language: string): Promise<void> {
  let runtime: CodeRuntime | undefined
  if (language === 'python') {
    const { createPythonRuntime } = await import('@deepseek-ai/dsh-code-runtime-python')
    runtime = createPythonRuntime()
  }
  const suspension = new TestSuspension()
  const h = await createHarness({ executor: createPtcExecutor({ suspension, limits: { computeMs: 20_000, wallMs: 60_000 }, ...(runtime === undefined ? {} : { runtime }) }) })
  const calls: string[] = []
  for (const name of ['read', 'deploy']) h.ctx.tools.register(countedTool(name, calls))
  suspension.install(h, ['deploy'])
  const code = PROGRAMS[language] as string
  let n = 0
  const run = async (mode: 'plain' | 'suspend' | 'replay', callId: string): Promise<number> => {
    const deployId = `${callId}:code:${N + 1}`
    if (mode === 'plain') suspension.decisions.set(deployId, { type: 'approve' })
    if (mode === 'replay') suspension.resume(callId, { [deployId]: { type: 'approve' } })
    const t = performance.now()
    const [r] = await h.execute([{ callId, name: RUN_CODE, arguments: JSON.stringify({ code, description: 'bench' }) }])
    const elapsed = performance.now() - t
    const expected = mode === 'suspend' ? 'TEST_SUSPENDED' : undefined
    if ((r?.isError ? r.error.info?.code : undefined) !== expected) throw new Error(`${mode}: ${JSON.stringify(r?.content)}`)
    return elapsed
  }
  const plain: number[] = []
  const suspend: number[] = []
  const replay: number[] = []
  const rounds = language === 'python' ? 15 : 40
  for (let i = 0; i < rounds + 5; i++) {
    const id = `b${++n}`
    const p = await run('plain', `p${n}`)
    const s = await run('suspend', id)
    const r = await run('replay', id)
    if (i >= 5) {
      plain.push(p)
      suspend.push(s)
      replay.push(r)
    }
  }
  const bytes = Buffer.byteLength(suspension.stored.get(`b${n}`) as string)
  console.log(
    `${language.padEnd(10)} ${N} sub-calls + 1 approval | plain ${median(plain).toFixed(2)} ms | suspend ${median(suspend).toFixed(2)} ms | replay ${median(replay).toFixed(2)} ms | replay ÷ plain ${(median(replay) / median(plain)).toFixed(2)} | suspend ÷ plain ${(median(suspend) / median(plain)).toFixed(2)} | state ${bytes} bytes`,
  )
  await h.dispose()
  ;(runtime as { dispose?: () => void } | undefined)?.dispose?.()
}

const chosen = process.argv.slice(2)
for (const language of chosen.length > 0 ? chosen : ['typescript', 'python']) await bench(language)
