/**
 * Stage 6 — observe (internal): the `tools/result` listeners and the session log, each failure
 * contained and reported.
 */
import type { SessionLog, ToolResult } from '../contracts'
import type { ToolResultEvent } from '../events'
import { isThenable } from '../chains'
import type { CallState, PipelineHost, RunContext } from './types'

/** Contains a listener's or log's asynchronous failure: it is reported, never unhandled. */
function contain(value: unknown, host: PipelineHost, stage: string): void {
  if (isThenable(value)) value.then(undefined, (error: unknown) => host.report(stage, error))
}

/** Stage 6 — observe: `tools/result` listeners (each throw contained) and the session log. */
export function observe(state: CallState, result: ToolResult, run: RunContext): void {
  if (run.hooks.result.length > 0) {
    const event: { -readonly [K in keyof ToolResultEvent]: ToolResultEvent[K] } = { call: state.call, scope: run.scope }
    if (state.exec !== undefined) event.exec = state.exec
    if (run.batchId !== undefined) event.batchId = run.batchId
    if (run.parent !== undefined) event.parent = run.parent
    for (const listener of run.hooks.result) {
      try {
        contain((listener as (r: ToolResult, e: ToolResultEvent) => unknown)(result, event), run.host, 'tools/result')
      } catch (error) {
        run.host.report('tools/result', error)
      }
    }
  }
  if (run.log !== undefined && run.parent === undefined) {
    try {
      appendLog(run.log, run.host, {
        type: 'tool/result',
        callId: result.callId,
        name: state.call.name,
        isError: result.isError,
        content: result.content,
        ...(result.isError ? { error: result.error } : {}),
        ...(result.meta?.presentation === undefined ? {} : { presentation: result.meta.presentation }),
      })
    } catch (error) {
      run.host.report('session log', error)
    }
  }
}

/** Appends to a session log; a throw or a rejected promise is reported, never propagated. */
export function appendLog(log: SessionLog, host: PipelineHost, event: Parameters<SessionLog['append']>[0]): void {
  try {
    contain(log.append(event), host, 'session log')
  } catch (error) {
    host.report('session log', error)
  }
}
