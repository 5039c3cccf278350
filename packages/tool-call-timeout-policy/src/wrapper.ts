/**
 * The `tools/execute` wrapper that enforces a call's budget (docs/design.md, "The batch and the pipeline", step 3, and "Timeout policy").
 *
 * Decision table, after the inner chain settled (or was abandoned):
 *
 * | first to fire          | inner outcome                      | the wrapper                          | result          |
 * |------------------------|------------------------------------|--------------------------------------|-----------------|
 * | nothing                | value / error                      | passes it through                    | as the body     |
 * | the deadline           | anything (value, own abort, error) | throws `ToolError('TOOL_TIMEOUT')`   | `TOOL_TIMEOUT`  |
 * | the outer (caller)     | anything                           | passes it through                    | `ABORTED` (the registry classifies) |
 * | deadline, hard limit   | still running after `graceMs`      | abandons it, throws `TOOL_TIMEOUT`   | `TOOL_TIMEOUT`  |
 * | caller, hard limit     | still running after `graceMs`      | abandons it, throws the caller's reason | `ABORTED`    |
 */
import { ToolError, messages, type JsonValue, type ToolExecution } from '@deepseek-ai/dsh-tools'
import { budgetFor } from './budget'
import type { ResolvedTimeoutPolicyConfig } from './config'
import { Deadline, type DeadlineCause } from './deadline'
import type { ToolAbandonedEvent } from './events'
import { countAbandoned, countTimeout } from './stats'

/** The `tools/execute` listener signature (see `ToolEvents['tools/execute']` in dsh-tools). */
export type ExecuteWrapper = (exec: ToolExecution, next: () => Promise<JsonValue>) => Promise<JsonValue>

/** Options of {@link createTimeoutWrapper}. */
export interface TimeoutWrapperOptions {
  /** The validated configuration (see `resolveTimeoutPolicyConfig`). */
  readonly config: ResolvedTimeoutPolicyConfig
  /** Called once per abandoned body, after it was counted and before the call settles. A throw is ignored. */
  readonly onAbandoned?: (event: ToolAbandonedEvent) => void
}

type Outcome = { readonly ok: true; readonly value: JsonValue } | { readonly ok: false; readonly error: unknown }

function settle(attempt: Promise<JsonValue>): Promise<Outcome> {
  return attempt.then(
    (value): Outcome => ({ ok: true, value }),
    (error: unknown): Outcome => ({ ok: false, error }),
  )
}

/**
 * The `TOOL_TIMEOUT` error the wrapper throws: `ToolError` with code `TOOL_TIMEOUT` and
 * message `tool call timed out after <ms>ms`, so the model sees exactly
 * `Error: tool call timed out after <ms>ms` (docs/design.md, "What the model sees"). `cause` keeps what
 * the body did (for logs), `reason` (user-facing, never model-facing) is set for an abandoned body.
 */
export function timeoutError(budgetMs: number, options?: { cause?: unknown; reason?: string }): ToolError {
  return new ToolError('TOOL_TIMEOUT', messages.toolTimeout(budgetMs), options)
}

/**
 * Creates the wrapper. Per call:
 *
 * 1. Budget = {@link budgetFor}(`exec.definition`, `config.defaultTimeoutMs`). None → `next()`
 *    with `exec.signal` untouched (the body sees the caller's own signal).
 * 2. Derives a {@link Deadline} from the current `exec.signal` (an outer abort propagates to
 *    it), sets `exec.signal` to it, and calls `next()` once. In a durable batch the deadline is
 *    measured from `exec.durableStartedAt` (the call's journaled start), not from now.
 * 3. Decides by the deadline's cause (the table in this file's header), then — on every path —
 *    clears its timer, removes its listener and restores `exec.signal` to the signal it received.
 *
 * With the hard limit on, the wrapper stops waiting `graceMs` after the body's signal fired;
 * the abandoned attempt's late value or error is swallowed (never a result, a log entry or
 * model content) and `abandonedRunning` drops when it finally settles.
 */
export function createTimeoutWrapper(options: TimeoutWrapperOptions): ExecuteWrapper {
  const { config, onAbandoned } = options
  const graceMs = config.graceMs
  return async function timeoutWrapper(exec, next) {
    const budgetMs = budgetFor(exec.definition, config.defaultTimeoutMs)
    if (budgetMs === undefined) return next()
    const outer = exec.signal
    // In a durable batch the budget runs from the call's journaled start, so a replay after a
    // restart does not grant a fresh budget (`exec.durableStartedAt`, the same on every replay).
    const started = exec.durableStartedAt
    const deadline = new Deadline(outer, started === undefined ? budgetMs : Math.max(1, budgetMs - Math.max(0, Date.now() - started)), graceMs)
    exec.signal = deadline.signal
    try {
      const attempt = settle(next())
      const outcome: Outcome | DeadlineCause = graceMs === undefined ? await attempt : await Promise.race([attempt, deadline.expired])
      if (typeof outcome === 'string') {
        // Hard limit: stop waiting for a body that ignored its signal.
        const done = countAbandoned()
        void attempt.then(done)
        try {
          onAbandoned?.(
            Object.freeze({
              callId: exec.callId,
              toolName: exec.name,
              budgetMs,
              graceMs: graceMs ?? 0,
              cause: outcome,
              scope: exec.scope,
              ...(exec.agent === undefined ? {} : { agentId: exec.agent.id }),
            }),
          )
        } catch {
          // A reporting failure must not change the call's outcome.
        }
        if (outcome === 'timeout') {
          countTimeout()
          throw timeoutError(budgetMs, { reason: `The tool did not stop within ${graceMs ?? 0}ms after its ${budgetMs}ms deadline and was abandoned; its work may still be running.` })
        }
        throw outer.reason
      }
      if (deadline.timedOut) {
        countTimeout()
        throw timeoutError(budgetMs, { cause: outcome.ok ? undefined : outcome.error })
      }
      if (outcome.ok) return outcome.value
      throw outcome.error
    } finally {
      deadline.dispose()
      if (exec.signal !== outer) {
        try {
          exec.signal = outer
        } catch {
          // The tools/execute stage is already over (an outer hard limit abandoned this attempt): nothing to restore.
        }
      }
    }
  }
}
