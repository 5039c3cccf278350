/**
 * The native section of the demo: recorded provider payloads → raw batches → the full pipeline →
 * one result per call, printed with its outcome, timing and a preview of what the model reads.
 */
import type { RawToolCall, ToolResult } from '@deepseek-ai/dsh-tools'
import { NativeExecutor, truncatedCallResults } from '@deepseek-ai/dsh-tool-executor-native'
import { bootDeployment, dispatchMs, isExclusive, timelineBatch } from './deployment'
import { RECORDED_STEPS, TASK } from './recorded'
import { stepToBatch, resultsToMessages } from './wire'
import { callView, formatCall, formatMs, outcomeLabel, paragraph, stepHeader, style, tally } from './format'
import type { TimelineBatch, TimelineCall } from './timeline'

/** What the native run leaves for the comparison with PTC. */
export interface NativeRun {
  /** Bytes the model sees: every result message, in its provider's wire shape. */
  readonly modelFacingBytes: number
  readonly calls: number
  /** `callId ok|<code>` for every call, in replay order. */
  readonly outcomes: readonly string[]
  /** Each step's batch with its timed stage entries, for the timeline picture. */
  readonly batches: readonly TimelineBatch[]
}

/**
 * Replays every recorded step through the native executor over the sample workspace at `root`,
 * printing each step (see `./format`), and returns what the PTC section and the tests compare.
 */
export async function runNative(root: string): Promise<NativeRun> {
  const { ctx, agent, log, tracer } = await bootDeployment(root, (c) => c.plugin(NativeExecutor, { maxParallelCalls: 4 }))
  const { bold, dim } = style

  console.log(bold('dsh-tools demo — native executor'))
  for (const line of paragraph(`Task: ${TASK}`)) console.log(line)
  for (const line of paragraph(`Tools: ${ctx.tools.describe({ agent }).tools.map((t) => t.name).join(', ')}`)) console.log(line)
  for (const line of paragraph('Each step replays what a model sent: payload shapes and quirks come from real provider responses, values from the sample workspace (examples/demo/README.md).')) console.log(dim(line))
  console.log()

  let modelFacingBytes = 0
  let calls = 0
  const outcomes: string[] = []
  const labels: string[] = []
  const batches: TimelineBatch[] = []
  for (const [i, step] of RECORDED_STEPS.entries()) {
    for (const line of stepHeader(`Step ${i + 1}`, step.title, [`${step.provider} payload: ${step.basis}`])) console.log(line)
    const parsed = stepToBatch(step)
    const since = tracer.events.length
    const t0 = performance.now()
    // A cut response runs nothing: each call is answered with a truncation result instead.
    const batch: readonly RawToolCall[] = parsed.status === 'complete' ? parsed.calls : parsed.truncated
    const results: readonly ToolResult[] = parsed.status === 'complete' ? await ctx.tools.execute({ calls: parsed.calls, agent }) : truncatedCallResults(parsed.truncated)
    const elapsed = performance.now() - t0
    if (parsed.status === 'truncated') console.log(dim(`  finish_reason "${parsed.finish.raw}": the response was cut, so no call of it is executed`))
    const timeline: TimelineCall[] = []
    for (const [j, result] of results.entries()) {
      const call = batch[j] as RawToolCall
      const view = callView(call, result, dispatchMs(tracer, call.callId))
      labels.push(outcomeLabel(view))
      outcomes.push(`${call.callId} ${outcomeLabel(view)}`)
      timeline.push({ id: call.callId, name: call.name, outcome: outcomeLabel(view), exclusive: isExclusive(ctx, agent, call.name, call.arguments) })
      for (const line of formatCall(view)) console.log(line)
    }
    const cut = parsed.status === 'truncated' ? ', response cut' : ''
    batches.push(timelineBatch(`Step ${i + 1} (native, ${step.provider}${cut})`, timeline, tracer, since))
    const messages = resultsToMessages(step, batch, results)
    const bytes = Buffer.byteLength(JSON.stringify(messages))
    modelFacingBytes += bytes
    calls += results.length
    console.log(dim(`  → ${results.length} results in call order, ${formatMs(elapsed).trim()} for the batch, ${bytes} bytes of ${step.provider} result messages`))
    console.log()
  }
  console.log(bold('Native summary'))
  for (const line of tally(`${calls} calls, outcomes: `, labels)) console.log(line)
  const logged = `session log: ${log.ofType('tool/call').length} tool/call and ${log.ofType('tool/result').length} tool/result events (the cut response's calls never ran, so they are answered but not logged)`
  for (const line of paragraph(logged, 2)) console.log(line)
  console.log(`  model-facing result bytes: ${modelFacingBytes}`)
  console.log()
  return { modelFacingBytes, calls, outcomes, batches }
}
