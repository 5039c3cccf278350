/**
 * Answering a call that waits for a decision, from outside the workflow: a CLI or an HTTP handler
 * with a `DBOSClient` (or `DBOS` itself in a launched process).
 */
import type { ApprovalDecision } from '@deepseek-ai/dsh-tools'
import { decisionTopic, PENDING_EVENT, type PendingDecision } from './context'

/** What {@link sendDecision} needs: `DBOSClient` and `DBOS` both have it. */
export interface DecisionSender {
  send<T>(destinationID: string, message: T, topic?: string, idempotencyKey?: string): Promise<void>
}

/** What {@link pendingDecision} needs: `DBOSClient` and `DBOS` both have it. */
export interface EventReader {
  getEvent<T>(workflowID: string, key: string, timeoutSeconds?: number): Promise<T | null>
}

/**
 * Sends `decision` to the call keyed `callKey` (its `exec.idempotencyKey`, or `key` of
 * {@link pendingDecision}) of workflow `workflowID`. Sent at most once per call key (DBOS
 * deduplicates on it), so a repeated CLI command does not answer a later wait.
 *
 * @throws TypeError when `decision` is not `{ type: 'approve' }` or `{ type: 'reject', reason?: string }`.
 */
export async function sendDecision(sender: DecisionSender, workflowID: string, callKey: string, decision: ApprovalDecision): Promise<void> {
  const d = decision as { type?: unknown; reason?: unknown } | null
  const valid = d !== null && typeof d === 'object' && (d.type === 'approve' || (d.type === 'reject' && (d.reason === undefined || typeof d.reason === 'string')))
  if (!valid) throw new TypeError(`sendDecision(): decision must be { type: 'approve' } or { type: 'reject', reason?: string }, got ${JSON.stringify(decision)}`)
  await sender.send(workflowID, decision, decisionTopic(callKey), `dsh.decision:${callKey}`)
}

/** The call workflow `workflowID` waits on a decision for, or `null` (none waits, or the workflow has not asked yet). */
export async function pendingDecision(reader: EventReader, workflowID: string, timeoutSeconds = 0): Promise<PendingDecision | null> {
  return reader.getEvent<PendingDecision | null>(workflowID, PENDING_EVENT, timeoutSeconds)
}
