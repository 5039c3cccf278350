/**
 * The native half of the demo: recorded provider payloads → raw batches → the full pipeline →
 * one result per call, printed with its outcome and timing.
 */
import type { RawToolCall, ToolResult } from '@deepseek-ai/dsh-tools'
import { NativeExecutor, truncatedCallResults } from '@deepseek-ai/dsh-tool-executor-native'
import { bootDeployment } from './deployment'
import { RECORDED_STEPS, TASK } from './recorded'
import { stepToBatch, resultsToMessages } from './wire'
import { bold, dim, formatMs, outcomeLabel, preview, shortArgs, timeBodies } from './format'

/** What the native run leaves for the comparison with PTC. */
export interface NativeRun {
  /** Bytes the model sees: every result message, in its provider's wire shape. */
  readonly modelFacingBytes: number
  readonly calls: number
  /** `callId ok|<code>` for every call, in replay order. */
  readonly outcomes: readonly string[]
}

export async function runNative(root: string): Promise<NativeRun> {
  const { ctx, agent, log } = await bootDeployment(root, (c) => c.plugin(NativeExecutor, { maxParallelCalls: 4 }))

  const timing = timeBodies(ctx)

  console.log(bold('dsh-tools demo — native executor'))
  console.log(`Task: ${TASK}`)
  console.log(`Tools: ${ctx.tools.describe({ agent }).tools.map((t) => t.name).join(', ')}\n`)

  let modelFacingBytes = 0
  let calls = 0
  const outcomes: string[] = []
  const codes = new Map<string, number>()
  for (const [i, step] of RECORDED_STEPS.entries()) {
    console.log(`${bold(`Step ${i + 1}`)}  ${step.title}`)
    console.log(dim(`        ${step.provider} payload · derived from ${step.source}`))
    const parsed = stepToBatch(step)
    const t0 = performance.now()
    // A cut response runs nothing: each call is answered with a truncation result instead.
    const batch: readonly RawToolCall[] = parsed.status === 'complete' ? parsed.calls : parsed.truncated
    const results: readonly ToolResult[] = parsed.status === 'complete' ? await ctx.tools.execute({ calls: parsed.calls, agent }) : truncatedCallResults(parsed.truncated)
    const elapsed = performance.now() - t0
    if (parsed.status === 'truncated') console.log(dim(`  finish_reason "${parsed.finish.raw}": the response was cut, so no call of it is executed`))
    for (const [j, result] of results.entries()) {
      const call = batch[j] as RawToolCall
      const t = timing.get(call.callId)
      const took = t?.end === undefined ? '    —   ' : formatMs(t.end - t.start)
      const label = outcomeLabel(result)
      codes.set(label, (codes.get(label) ?? 0) + 1)
      outcomes.push(`${call.callId} ${result.isError ? result.error.info?.code : 'ok'}`)
      console.log(`  ${call.callId.padEnd(9)} ${call.name.padEnd(24)} ${shortArgs(call.arguments).padEnd(44)} ${label.padEnd(26)} ${took}  ${preview(result)}`)
    }
    const messages = resultsToMessages(step, batch, results)
    const bytes = Buffer.byteLength(JSON.stringify(messages))
    modelFacingBytes += bytes
    calls += results.length
    console.log(dim(`  → ${results.length} results in call order, ${formatMs(elapsed).trim()} for the batch, ${bytes} bytes of ${step.provider} result messages\n`))
  }
  console.log(bold('Native summary'))
  console.log(`  ${calls} calls, outcomes: ${[...codes].map(([k, v]) => `${k} ×${v}`).join(', ')}`)
  console.log(`  session log: ${log.ofType('tool/call').length} tool/call and ${log.ofType('tool/result').length} tool/result events (the cut response's calls never ran, so they are answered but not logged)`)
  console.log(`  model-facing result bytes: ${modelFacingBytes}\n`)
  return { modelFacingBytes, calls, outcomes }
}
