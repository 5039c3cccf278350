/**
 * `@deepseek-ai/dsh-tool-durable-dbos` — dsh-tools batches as DBOS workflows on PostgreSQL
 * (README: what is guaranteed, how to run it in production, known limitations).
 */
export { DbosDurableContext, decisionTopic, PENDING_EVENT, type DbosContextOptions, type PendingDecision } from './context'
export { executeDurably, registerBatchWorkflow, batchKey, type ExecuteDurablyOptions, type BatchWorkflowOptions, type BatchWorkflow } from './workflow'
export { sendDecision, pendingDecision, type DecisionSender, type EventReader } from './decisions'
export { assertSystemDatabaseReachable, SystemDatabaseUnreachableError, redactUrl } from './reach'
export { PostgresResumeLedger, type PostgresLedgerOptions } from './ledger'
