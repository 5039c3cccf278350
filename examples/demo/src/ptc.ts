/**
 * The PTC half of the demo: the same task as the native replay, done by one model-written
 * program through `run_code`. Prints what the model sees and the bytes it costs in each mode.
 */
import { PtcExecutor } from '@deepseek-ai/dsh-tool-executor-ptc'
import { bootDeployment } from './deployment'
import type { NativeRun } from './native'
import { TASK } from './recorded'
import { bold, dim, formatMs } from './format'

/** The program a model wrote for the task (recorded; TypeScript, run in the QuickJS sandbox). */
export const PROGRAM = `
interface Hit { file: string; line: number; text: string }
const [dirs, hits] = await Promise.all([
  tools.list_allowed_directories({}),
  tools.search_files({ query: 'refund' }),
])
const policy = await tools.read_text_file({ path: 'docs/policies.md', head: 3 })
const mentioned = (hits as Hit[]).flatMap((h) => h.text.match(/ORD-\\d{4}/g) ?? [])
const ids = [...new Set([...mentioned, 'ORD-1003', 'ORD-1004'])]
const orders = await Promise.all(ids.map((id) => tools.lookup_order({ id })))
const open = orders.filter((o) => o.status !== 'delivered' && o.status !== 'refunded')
const refunded = orders.filter((o) => o.status === 'refunded')
const total = await tools.get_sum({ a: refunded[0].total, b: open.reduce((s, o) => s + o.total, 0) })
try {
  await tools.slow_report({ delayMs: 5000 })
} catch (e) {
  console.log('weekly report unavailable:', (e as Error).message)
}
try {
  await tools.write_file({ path: 'docs/summary.md', content: 'Refunded: ' + refunded.map((o) => o.id).join(', ') })
} catch (e) {
  console.log('summary not written:', (e as Error).message)
}
return {
  refunded: refunded.map((o) => ({ id: o.id, customer: o.customer, total: o.total })),
  refundedPlusOpenTotal: total,
  policy: policy.split('\\n').find((l) => l.includes('Refund window')),
}
`

/** What the PTC run leaves for tests: the model-facing text and the inner call outcomes. */
export interface PtcRun {
  readonly text: string
  readonly subCalls: readonly string[]
  readonly modelFacingBytes: number
}

export async function runPtc(root: string, native: NativeRun): Promise<PtcRun> {
  const { ctx, agent, log } = await bootDeployment(root, (c) => c.plugin(PtcExecutor, { maxParallelSubCalls: 4 }))

  const description = ctx.tools.describe({ agent })
  const sdk = description.sections[0]?.text ?? ''
  console.log(bold('dsh-tools demo — PTC executor (one program through run_code)'))
  console.log(`Task: ${TASK}`)
  console.log(`Tools the model sees: ${description.tools.map((t) => t.name).join(', ')} + a ${Buffer.byteLength(sdk)}-byte SDK section`)

  const t0 = performance.now()
  const [result] = await ctx.tools.execute({ agent, calls: [{ callId: 'call_ptc', name: 'run_code', arguments: JSON.stringify({ code: PROGRAM, description: 'answer the refund question' }) }] })
  const elapsed = performance.now() - t0
  const subCalls = log.ofType('tool/code-dispatch')
  console.log(dim(`  ${subCalls.length} sub-calls through the full pipeline in ${formatMs(elapsed).trim()}:`))
  for (const e of subCalls) console.log(dim(`    ${e.callId.padEnd(18)} ${e.name.padEnd(24)} ${e.isError ? `error ${e.error?.info?.code}` : 'ok'}`))
  console.log('  What the model sees:')
  for (const block of result!.content) if (block.type === 'text') console.log(block.text.replace(/^/gm, '    │ '))
  const text = result!.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
  const message = { role: 'tool', tool_call_id: 'call_ptc', content: text }
  const ptcBytes = Buffer.byteLength(JSON.stringify([message]))
  console.log()
  console.log(bold('Native vs PTC (model-facing result bytes for the same task)'))
  console.log(`  native: ${native.calls} tool calls over 5 steps, ${native.modelFacingBytes} bytes of results`)
  console.log(`  PTC:    1 run_code call (${subCalls.length} sub-calls), ${ptcBytes} bytes of results (${((100 * ptcBytes) / native.modelFacingBytes).toFixed(1)}% of native)`)
  console.log(dim('  (the SDK section is paid once per request like tool schemas; it is prefix-stable and KV-cacheable)'))
  return {
    text,
    subCalls: subCalls.map((e) => `${e.name} ${e.isError ? e.error?.info?.code : 'ok'}`),
    modelFacingBytes: ptcBytes,
  }
}
