/**
 * The PTC section of the demo: the same task as the native replay, done by one model-written
 * program through `run_code`. Prints what the model sees and the bytes it costs in each mode.
 */
import { PtcExecutor } from '@deepseek-ai/dsh-tool-executor-ptc'
import { bootDeployment, dispatchMs, isExclusive, timelineBatch } from './deployment'
import type { NativeRun } from './native'
import { TASK } from './recorded'
import { contentText, formatCall, formatMs, listing, preview, outcomeLabel, paragraph, stepHeader, style, type CallView } from './format'
import type { TimelineBatch } from './timeline'

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
const openTotal = open.reduce((s, o) => s + o.total, 0)
const total = await tools.get_sum({ a: refunded[0].total, b: openTotal })
try {
  await tools.slow_report({ delayMs: 5000 })
} catch (e) {
  console.log('weekly report unavailable:', (e as Error).message)
}
try {
  const content = 'Refunded: ' + refunded.map((o) => o.id).join(', ')
  await tools.write_file({ path: 'docs/summary.md', content })
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
  /** The program's sub-calls as one batch, for the timeline picture. */
  readonly batch: TimelineBatch
}

/**
 * Runs {@link PROGRAM} through `run_code` over the sample workspace at `root`, printing the
 * program, each sub-call and what the model sees, and the byte comparison with `native`.
 */
export async function runPtc(root: string, native: NativeRun): Promise<PtcRun> {
  const { ctx, agent, log, tracer } = await bootDeployment(root, (c) => c.plugin(PtcExecutor, { maxParallelSubCalls: 4 }))
  const { bold, dim } = style

  const description = ctx.tools.describe({ agent })
  const sdk = description.sections[0]?.text ?? ''
  console.log(bold('dsh-tools demo — PTC executor (one program through run_code)'))
  for (const line of paragraph(`Task: ${TASK}`)) console.log(line)
  for (const line of paragraph(`Tools the model sees: ${description.tools.map((t) => t.name).join(', ')} + a ${Buffer.byteLength(sdk)}-byte SDK section`)) console.log(line)
  console.log()
  for (const line of stepHeader('Program', 'the run_code call the model sent (TypeScript, run in the QuickJS sandbox)')) console.log(line)
  for (const line of listing(PROGRAM)) console.log(dim(line))
  console.log()

  const t0 = performance.now()
  const [result] = await ctx.tools.execute({ agent, calls: [{ callId: 'call_ptc', name: 'run_code', arguments: JSON.stringify({ code: PROGRAM, description: 'answer the refund question' }) }] })
  const elapsed = performance.now() - t0
  const started = new Map(log.ofType('tool/code-dispatch-start').map((e) => [e.callId, e.arguments]))
  const views: CallView[] = log.ofType('tool/code-dispatch').map((e) => {
    const base = { id: e.callId, name: e.name, args: started.get(e.callId) ?? {}, content: e.content }
    const ms = dispatchMs(tracer, e.callId)
    const timed = ms === undefined ? base : { ...base, ms }
    return e.isError ? { ...timed, isError: true, code: e.error?.info?.code ?? 'ERROR' } : { ...timed, isError: false }
  })
  const total = `run_code ${formatMs(dispatchMs(tracer, 'call_ptc')).trim()} in tools/execute, ${formatMs(elapsed).trim()} for the batch`
  for (const line of stepHeader('Sub-calls', `${views.length} calls from the program, each through the full pipeline`, [`arguments as the program passed them; time in tools/execute; ${total}`])) console.log(line)
  for (const view of views) for (const line of formatCall(view, { idWidth: 15, previewErrorsOnly: true, previewLines: 2 })) console.log(line)
  console.log()
  console.log('  What the model sees:')
  for (const line of preview(contentText(result!.content), Infinity, '    ')) console.log(line)
  const text = result!.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
  const message = { role: 'tool', tool_call_id: 'call_ptc', content: text }
  const ptcBytes = Buffer.byteLength(JSON.stringify([message]))
  console.log()
  console.log(bold('Native vs PTC (model-facing result bytes for the same task)'))
  console.log(`  native: ${native.calls} tool calls over ${native.batches.length} steps, ${native.modelFacingBytes} bytes of results`)
  const share = ((100 * ptcBytes) / native.modelFacingBytes).toFixed(1)
  console.log(`  PTC:    1 run_code call (${views.length} sub-calls), ${ptcBytes} bytes of results (${share}% of native)`)
  for (const line of paragraph('(the SDK section is paid once per request like tool schemas; it is prefix-stable and KV-cacheable)', 2)) console.log(dim(line))
  const timeline = views.map((v) => ({ id: v.id, name: v.name, outcome: outcomeLabel(v), exclusive: isExclusive(ctx, agent, v.name, v.args) }))
  return {
    text,
    subCalls: views.map((v) => `${v.name} ${outcomeLabel(v)}`),
    modelFacingBytes: ptcBytes,
    batch: timelineBatch('run_code sub-calls (PTC)', timeline, tracer, 0),
  }
}
