/**
 * Suspension cost (docs/benchmarks.md, "Suspension"): one process, alternating rounds of
 * - plain: `ctx.tools.execute()` of N calls whose approval service approves each at once, and
 * - suspended: `ctx.tools.executeSuspendable()` of the same calls with every approval deferred,
 *   `JSON.stringify` of the state, `JSON.parse`, and `ctx.tools.resume()` approving every call,
 * plus the same with one deferred call in N. Prints per-call CPU time of both, the ratio
 * (median of per-round ratios) and the state's bytes per call.
 *
 * Usage: tsx --conditions=dsh-source src/suspend-main.ts [--n 100] [--rounds 21]
 */
import { createSuspension, defineTool, type ApprovalDecision } from '@deepseek-ai/dsh-tools'
import { createHarness } from '@deepseek-ai/dsh-tool-testkit'

function option(name: string, fallback: string): number {
  const i = process.argv.indexOf(`--${name}`)
  return Number(i === -1 ? fallback : process.argv[i + 1])
}
const n = option('n', '100')
const rounds = option('rounds', '21')
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

async function system(answer: () => ApprovalDecision) {
  const h = await createHarness()
  h.ctx.tools.register(
    defineTool({
      name: 'add',
      description: 'Adds two integers and echoes a label.',
      parameters: { a: { type: 'integer', required: true }, b: { type: 'integer', required: true }, label: { type: 'string', required: true } },
      output: { schema: { type: 'object', properties: { sum: { type: 'integer', required: true }, label: { type: 'string', required: true } } }, render: (_a, v) => [{ type: 'text', text: `${v.label}: ${v.sum}` }] },
      isConcurrencySafe: () => true,
      execute: ({ a, b, label }) => ({ sum: a + b, label }),
    }),
  )
  h.ctx.tools.on('tools/pre-execute', (exec, next) => (String(exec.arguments.label).startsWith('ask') ? { type: 'ask' } : next()))
  h.ctx.tools.approval({ request: async () => answer() })
  return h
}

const suspension = createSuspension({ keys: { bench: 'b'.repeat(32) }, signWith: 'bench' })
const plain = await system(() => ({ type: 'approve' }))
const deferring = await system(() => ({ type: 'defer' }))

for (const pendingEvery of [1, n]) {
  const calls = Array.from({ length: n }, (_, i) => ({ callId: `call_${i}`, name: 'add', arguments: JSON.stringify({ a: i, b: 2, label: `${i % pendingEvery === 0 ? 'ask' : 'go'}-${i}` }) }))
  let bytes = 0
  const runPlain = async () => {
    await plain.tools.execute({ calls })
  }
  const runSuspended = async () => {
    const out = await deferring.tools.executeSuspendable({ calls, suspension })
    if (out.status !== 'suspended') throw new Error('expected a suspension')
    const text = JSON.stringify(out.state)
    bytes = text.length
    const decisions = Object.fromEntries(out.pending.map((p) => [p.callId, { type: 'approve' as const }]))
    const done = await deferring.tools.resume({ state: JSON.parse(text), decisions, suspension })
    if (done.status !== 'complete' || done.results.some((r) => r.isError)) throw new Error('resume did not complete')
  }
  const cpu = async (f: () => Promise<void>, reps: number): Promise<number> => {
    const t = process.cpuUsage()
    for (let i = 0; i < reps; i++) await f()
    const d = process.cpuUsage(t)
    return (d.user + d.system) / reps / n
  }
  for (let i = 0; i < 5; i++) {
    await runPlain()
    await runSuspended()
  }
  const p: number[] = []
  const s: number[] = []
  const ratios: number[] = []
  for (let r = 0; r < rounds; r++) {
    const a = await cpu(runPlain, 5)
    const b = await cpu(runSuspended, 5)
    p.push(a)
    s.push(b)
    ratios.push(b / a)
  }
  const pending = Math.ceil(n / pendingEvery)
  console.log(
    JSON.stringify({ n, pending, plainUsPerCall: +median(p).toFixed(2), suspendedUsPerCall: +median(s).toFixed(2), ratio: +median(ratios).toFixed(2), extraUsPerPendingCall: +(((median(s) - median(p)) * n) / pending).toFixed(1), stateBytes: bytes, stateBytesPerCall: Math.round(bytes / n) }),
  )
}
await plain.dispose()
await deferring.dispose()
