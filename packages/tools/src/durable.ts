/**
 * The durable-execution seam (docs/durable.md): what the pipeline needs from an engine that
 * journals work (DBOS on PostgreSQL, Restate) so a batch survives a crash of the process running
 * it. An adapter package implements {@link DurableContext} for one workflow run and hands it to
 * `ctx.tools.execute({ calls, durable })`; the pipeline does the rest.
 *
 * What the pipeline does with it, per call of a durable batch (the call key `K` is
 * {@link durableCallKey}):
 *
 * 1. step `dsh:start:K` records `{ startedAt, tool }` (epoch ms, the definition's
 *    {@link toolDefinitionHash}) before anything of the call runs;
 * 2. step `dsh:call:K` runs the `tools/execute` stage (wrappers, then the body) and records its
 *    outcome ({@link DurableOutcome}); on replay the recorded outcome is settled as the first
 *    time, and the body does not run.
 *
 * Replayed with step 1 recorded and step 2 not, the call had started when its worker stopped:
 * it runs again only when its tool declares `idempotent: true`; otherwise it fails with
 * {@link TOOL_OUTCOME_UNKNOWN}. A step 1 recorded under another definition hash fails the call
 * with {@link TOOL_CHANGED}. Outside a durable batch nothing here runs.
 */
import { createHash } from 'node:crypto'
import type { AnyToolDefinition, JsonObject, JsonValue, ResultContext, ToolErrorInfo } from './contracts'

/**
 * What the pipeline needs from a durable-execution engine for one batch: one workflow run (DBOS)
 * or one handler invocation (Restate).
 */
export interface DurableContext {
  /** The engine's name for texts and logs, e.g. `dbos`, `restate`. */
  readonly engine: string
  /**
   * The batch's key: the same on every replay of the batch and unique among batches (e.g. the
   * DBOS workflow id and the batch's number in it). Call keys extend it ({@link durableCallKey}).
   */
  readonly key: string
  /**
   * A journaled step. The first time, runs `fn` and records its result (always plain JSON: a
   * {@link DurableStartMarker} or a {@link DurableOutcome}) under `name`; on replay returns the
   * recorded result without running `fn` (the pipeline checks what comes back and fails the call
   * with {@link DURABLE_JOURNAL_INVALID} when it is not what it records). `signal` is the engine's
   * cancellation of the run (the pipeline fuses it with the caller's signal for the body).
   *
   * The pipeline's `fn`s never throw: failures are returned as data ({@link DurableOutcome}), so
   * an adapter must not retry a step and need not serialize errors. Engines that journal by
   * position must see a batch's steps in the same order on replay; see {@link durableStepNames}.
   */
  step(name: string, fn: (signal: AbortSignal) => Promise<unknown>): Promise<unknown>
  /**
   * Waits durably for the decision on a call a `tools/pre-execute` listener answered `ask` with,
   * addressed to `name` (the call's {@link durableCallKey}); the decision comes from outside the
   * process (a CLI, an HTTP call) through the engine. Resolves with what was sent, which the
   * pipeline checks like an approval service's answer (`{ type: 'approve' }` or
   * `{ type: 'reject', reason? }`; anything else fails closed with `TOOL_DENIED`).
   *
   * When present, an `ask` in a durable batch waits here and the mounted approval service is not
   * consulted; when absent, the approval service answers as in any batch.
   */
  awaitDecision?(name: string, request: DurableDecisionRequest): Promise<unknown>
}

/** What {@link DurableContext.awaitDecision} is told about the call that waits. */
export interface DurableDecisionRequest {
  readonly callId: string
  /** The registry name of the call's tool. */
  readonly toolName: string
  /** The call's validated arguments. */
  readonly arguments: Readonly<JsonObject>
  /** The `ask` decision's reason, when it gave one. */
  readonly reason?: string
  /** The caller's signal: the wait should end when it aborts. */
  readonly signal: AbortSignal
}

/** What step `dsh:start:K` records: when the call started (epoch ms) and its tool's {@link toolDefinitionHash}. */
export interface DurableStartMarker {
  readonly startedAt: number
  readonly tool: string
}

/**
 * What step `dsh:call:K` records: the `tools/execute` stage's outcome, with what the body
 * attached (`exec.attachContext`) and recorded (`exec.annotate`), so a replay settles the call
 * exactly as the first run did. A failure's `message` is the model-facing text without `Error: `.
 */
export type DurableOutcome =
  | { readonly ok: true; readonly value: JsonValue; readonly contexts?: readonly ResultContext[]; readonly annotations?: Readonly<Record<string, JsonValue>> }
  | { readonly ok: false; readonly message: string; readonly info: ToolErrorInfo; readonly contexts?: readonly ResultContext[]; readonly annotations?: Readonly<Record<string, JsonValue>> }

/**
 * The code of a call that had started in a durable batch when its worker stopped, whose tool
 * does not declare itself idempotent: it is not run again, since it may or may not have taken
 * effect. Model-facing text: {@link durableMessages}.outcomeUnknown.
 */
export const TOOL_OUTCOME_UNKNOWN = 'TOOL_OUTCOME_UNKNOWN'
/** The code of a replayed call whose journal was written under another definition of its tool (see {@link toolDefinitionHash}). */
export const TOOL_CHANGED = 'TOOL_CHANGED'
/** The code of a replayed call whose journaled step value is not what the pipeline records (not JSON, or another shape). */
export const DURABLE_JOURNAL_INVALID = 'DURABLE_JOURNAL_INVALID'

/** The model-facing texts of the durable codes (`Error: ` is prepended in the result content). */
export const durableMessages = {
  outcomeUnknown(tool: string): string {
    return `Tool "${tool}" was interrupted: the worker running it stopped before it finished, so it may or may not have taken effect. Check its effect before calling it again.`
  },
  changed(tool: string): string {
    return `Tool "${tool}" changed since this call was journaled; it was not run again.`
  },
  journalInvalid(tool: string, step: string, problem: string): string {
    return `Tool "${tool}": the durable journal's step ${step} holds ${problem}, not what this library records; the call was not run again.`
  },
} as const

/** The names of a call's two journaled steps (see the file header), for an adapter that reserves them up front. */
export function durableStepNames(callKey: string): { readonly start: string; readonly call: string } {
  return { start: `dsh:start:${callKey}`, call: `dsh:call:${callKey}` }
}

/**
 * The key of call `callId` in a durable batch keyed `batchKey`: `<batchKey>/<callId>`. It is the
 * call's `exec.idempotencyKey`, the same across retries and replays; a PTC sub-call's batch key
 * is its parent call's key. Call ids must be unique within a durable batch (the provider
 * parsers guarantee it; adapters reject a batch that repeats one).
 */
export function durableCallKey(batchKey: string, callId: string): string {
  return `${batchKey}/${callId}`
}

const hashes = new WeakMap<AnyToolDefinition, string>()

/**
 * A tool definition's identity for journals: the first 16 hex characters of the SHA-256 of its
 * name, description, parameters schema and output schema (object keys sorted). Cached per
 * definition object. Two registrations with the same model-facing contract hash alike.
 */
export function toolDefinitionHash(definition: AnyToolDefinition): string {
  let hash = hashes.get(definition)
  if (hash === undefined) {
    const text = stableJson([definition.name, definition.description, definition.parameters, definition.output?.schema ?? null])
    hash = createHash('sha256').update(text).digest('hex').slice(0, 16)
    hashes.set(definition, hash)
  }
  return hash
}

/** JSON text with object keys sorted (schemas are plain JSON; anything else is shown by type). */
function stableJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? `"<${typeof value}>"`
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`
  const keys = Object.keys(value).sort()
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`).join(',')}}`
}
