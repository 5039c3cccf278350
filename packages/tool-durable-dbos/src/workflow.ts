/**
 * Running a batch durably: {@link executeDurably} inside any DBOS workflow (an agent's turn loop),
 * and {@link registerBatchWorkflow}, a registered workflow that runs one batch — what queue
 * workers run when batches are spread over processes.
 */
import { DBOS } from '@dbos-inc/dbos-sdk'
import type { RawToolCall, ToolBatch, ToolRegistry, ToolResult } from '@deepseek-ai/dsh-tools'
import { DbosDurableContext, type DbosContextOptions } from './context'

/** Options of {@link executeDurably}. */
export interface ExecuteDurablyOptions extends DbosContextOptions, Omit<ToolBatch, 'calls' | 'durable'> {
  /**
   * The batch's number within the workflow, from 1 (default 1): a workflow that runs several
   * batches (one per model turn) numbers them so each batch's key, `<workflow id>:<n>`, differs.
   */
  readonly batch?: number
}

/** The key of batch `n` of the running workflow: `<workflow id>:<n>`. */
export function batchKey(n = 1): string {
  const id = DBOS.workflowID
  if (id === undefined) throw new Error('batchKey() must be called inside a DBOS workflow')
  return `${id}:${n}`
}

/**
 * Runs `calls` through `tools.execute` as a durable batch of the running DBOS workflow: each
 * call's `tools/execute` stage is a DBOS step (replayed, not re-run, after a crash), an `ask`
 * waits for a decision sent with `sendDecision`, and results come back in call order.
 *
 * Must be called from a DBOS workflow function, with the same calls on every replay (they are
 * the workflow's input or the output of earlier steps).
 *
 * @throws TypeError when two calls share a call id; the first error DBOS gave a step (the
 *   workflow then fails and DBOS recovers it), after every call settled.
 */
export async function executeDurably(tools: ToolRegistry, calls: readonly RawToolCall[], options: ExecuteDurablyOptions = {}): Promise<readonly ToolResult[]> {
  const { batch, decisionTimeoutSeconds, ...rest } = options
  const context = new DbosDurableContext(batchKey(batch), decisionTimeoutSeconds === undefined ? {} : { decisionTimeoutSeconds })
  context.reserve(calls)
  const results = await tools.execute({ ...rest, calls, durable: context })
  await context.finish()
  return results
}

/** Options of {@link registerBatchWorkflow}. */
export interface BatchWorkflowOptions extends DbosContextOptions {
  /** The DBOS workflow name (default `dsh.tools.batch`); one per process and registry. */
  readonly name?: string
}

/** The registered batch workflow: call it inside DBOS, or start it with `DBOS.startWorkflow(workflow, { workflowID, queueName })(calls)`. */
export type BatchWorkflow = (calls: readonly RawToolCall[]) => Promise<readonly ToolResult[]>

/**
 * Registers a DBOS workflow that runs one batch with {@link executeDurably} on `tools`. Register
 * it before `DBOS.launch()` in every worker process (DBOS recovers and dequeues workflows by name).
 */
export function registerBatchWorkflow(tools: ToolRegistry, options: BatchWorkflowOptions = {}): BatchWorkflow {
  const { name = 'dsh.tools.batch', ...context } = options
  return DBOS.registerWorkflow(async (calls: readonly RawToolCall[]) => executeDurably(tools, calls, context), { name })
}
