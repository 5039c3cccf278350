/**
 * The bridge between a running program and the pipeline (docs/design.md, "PTC executor").
 *
 * Each SDK call re-enters the complete pipeline for that tool — resolved set, restrictions,
 * guards, approvals, wrappers — with the outer execution as `parent` and the id
 * `<callId>:code:<n>`. Sub-calls follow the native concurrency contract through the shared
 * runner (parallel-safe calls overlap up to `maxParallelSubCalls`; an exclusive call is a
 * barrier; starts and post-policy stay in submission order). A sub-call resolves to the final
 * canonical value; a failure rejects with a `ToolCallError` (`toolName`, message; no codes).
 * Settlement aborts in-flight sub-calls, abandons queued ones and drains them before
 * `run_code` returns.
 */
import type { AnyToolDefinition, CallRunner, ContentBlock, JsonValue, RawToolCall, ResolvedToolSet, RunnerOptions, ToolExecution, ToolPipeline, ToolResult } from '@deepseek-ai/dsh-tools'
import { type PendingSubCall, type Replayer, type SubCallDecision, type SubCallOutcome, type SubCallRecord } from './replay'
import { SubCallParked } from './runtime/host-call'
import type { HostFunction, ToolCallErrorLike } from './runtime/types'

/**
 * The abort reason the bridge gives sub-calls still running when their program settles (returns,
 * throws or is stopped): `name: 'AbortError'`, message `the program that issued this call has
 * finished`. A tool body sees it as `exec.signal.reason`; such a sub-call settles as aborted
 * (`ABORTED`, or `ABORTED_BEFORE_DISPATCH` when it had not started), a result the finished
 * program never reads. Check `exec.signal.reason instanceof ProgramSettledError` to tell it from
 * the caller's own abort.
 */
export class ProgramSettledError extends Error {
  override readonly name = 'AbortError'
  constructor() {
    super('the program that issued this call has finished')
  }
}

/** A sub-call whose approval was deferred: the registry's description of it (its pending call), kept opaque. */
export interface DeferredSubCall {
  readonly deferred: unknown
  /** Not deferred itself but held back behind an earlier pending sub-call (the barrier rules): it needs no decision and runs on resume. */
  readonly blocked?: boolean
}

/**
 * How sub-calls meet the registry's suspension API: the options of the sub-call runner (a
 * runner that may defer, and the decisions that answer the pending calls of a replayed run), and
 * one submission whose answer is a result or a deferral.
 */
export interface SubCallSuspension {
  /** Options merged into the sub-call runner's; `decisions` are those of a resumed run, by sub-call id (empty for a first run). */
  runnerOptions(exec: ToolExecution, decisions: ReadonlyMap<string, SubCallDecision>): Partial<RunnerOptions>
  /** Submits one sub-call: its result, or a {@link DeferredSubCall} when its approval was deferred. */
  submit(runner: CallRunner, call: RawToolCall): Promise<ToolResult | DeferredSubCall>
}

/** A bridge for one `run_code` execution. */
export interface SubCallBridge {
  /** One host function per visible tool, keyed by tool name. */
  readonly bindings: Readonly<Record<string, HostFunction>>
  /** The signal the run must use: the call's own, also aborted when a replay diverges. */
  readonly signal: AbortSignal
  /** The sub-calls that settled, in the order they settled (replayed ones included). */
  readonly journal: readonly SubCallRecord[]
  /** The sub-calls parked for a decision, in the order they were parked. */
  readonly pending: readonly PendingSubCall[]
  /** The registry's descriptions of the calls deferred in this run ({@link DeferredSubCall.deferred}), in the order they were deferred. */
  readonly deferred: readonly unknown[]
  /** The divergence text when a replay diverged (code `PTC_REPLAY_DIVERGED`). */
  divergence(): string | undefined
  /** Aborts in-flight sub-calls and abandons queued ones (synchronous; the runtime's `onSettle`). */
  abort(): void
  /** {@link abort}, then resolves once every sub-call has settled (drained). */
  settle(): Promise<void>
}

/** Options of {@link createBridge}. */
export interface BridgeOptions {
  readonly exec: ToolExecution
  readonly pipeline: ToolPipeline
  readonly definitions: readonly AnyToolDefinition[]
  readonly toolSet: ResolvedToolSet | undefined
  readonly maxParallelSubCalls: number
  /** The replay of a resumed run (journal answers, decided pending calls). */
  readonly replay?: Replayer
  /** Suspension hooks; absent: a deferred call is never recognised. */
  readonly suspension?: SubCallSuspension
  /** The decisions of a resumed run, by sub-call id. */
  readonly decisions?: ReadonlyMap<string, SubCallDecision>
  /** Whether the runtime can suspend; when not, a deferred sub-call fails instead of parking. */
  readonly suspendable?: boolean
}

/**
 * Creates the host functions a program calls. Inner dispatch events go to the outer call's
 * session log only (`tool/code-dispatch-start` / `tool/code-dispatch`), never to the model.
 */
export function createBridge(options: BridgeOptions): SubCallBridge {
  const { exec, pipeline } = options
  const settled = new AbortController()
  const signal = AbortSignal.any([exec.signal, settled.signal])
  const diverged = new AbortController()
  const runSignal = options.replay === undefined ? exec.signal : AbortSignal.any([exec.signal, diverged.signal])
  const journal: SubCallRecord[] = []
  const pending: PendingSubCall[] = []
  const deferred: unknown[] = []
  let divergence: string | undefined
  let runner: CallRunner | undefined
  let n = 0
  const log = exec.log
  /** Log-only inner events: a failing (or rejecting) log never disturbs the program. */
  const append = (event: Parameters<NonNullable<typeof log>['append']>[0]): void => {
    try {
      const pending: unknown = log?.append(event)
      if (pending instanceof Promise) pending.catch(() => undefined)
    } catch {
      // Ignored: see above.
    }
  }
  const getRunner = (): CallRunner =>
    (runner ??= pipeline.createRunner({
      scope: exec.scope,
      signal,
      parent: exec,
      maxParallel: options.maxParallelSubCalls,
      ...(exec.agent === undefined ? {} : { agent: exec.agent }),
      ...(options.toolSet === undefined ? {} : { toolSet: options.toolSet }),
      ...options.suspension?.runnerOptions(exec, options.decisions ?? new Map()),
      onCallStart: (call, args) => append({ type: 'tool/code-dispatch-start', callId: call.callId, parentCallId: exec.callId, name: call.name, arguments: args }),
    }))

  /** The program receives `outcome` (a value, or a thrown ToolCallError). */
  const receive = (toolName: string, callId: string, outcome: SubCallOutcome): JsonValue => {
    if (!outcome.ok) throw failure(outcome.toolName, outcome.message)
    if (outcome.images !== undefined && !settled.signal.aborted) exec.attachContext({ source: `${toolName} (${callId})`, content: [...outcome.images] })
    return outcome.value
  }

  const call = async (toolName: string, args: JsonValue): Promise<JsonValue> => {
    if (settled.signal.aborted) throw failure(toolName, 'the program has already finished')
    const step = ++n
    const callId = `${exec.callId}:code:${step}`
    const argument = args === undefined ? {} : args
    const plan = options.replay?.plan(step, toolName, argument) ?? { kind: 'live' as const }
    switch (plan.kind) {
      case 'diverged':
        // The run stops at once (its signal); nothing the program asked for runs.
        divergence ??= plan.message
        diverged.abort(new Error(plan.message))
        throw new SubCallParked(toolName)
      case 'journal':
        await plan.ready
        journal.push({ step, callId, name: toolName, arguments: argument, outcome: plan.outcome })
        plan.done()
        return receive(toolName, callId, plan.outcome)
      case 'undecided':
        // Asked again: the approval service answers, and a deferral parks it again (still pending),
        // in submission order with the rest, so the runner's barrier rules see it.
        break
    }
    const raw: RawToolCall = { callId, name: toolName, arguments: argument }
    // A decided pending call is answered by the runner's decisions (runnerOptions).
    const answer = options.suspension === undefined ? await getRunner().submit(raw) : await options.suspension.submit(getRunner(), raw)
    if ('deferred' in answer) {
      if (options.suspendable !== true) throw failure(toolName, `the approval of ${toolName} was deferred, but this code runtime cannot suspend a program (APPROVAL_NOT_SUSPENDABLE)`)
      pending.push(answer.blocked === true ? { step, callId, name: toolName, arguments: argument, blocked: true } : { step, callId, name: toolName, arguments: argument })
      deferred.push(answer.deferred)
      throw new SubCallParked(toolName)
    }
    const result = answer
    append({
      type: 'tool/code-dispatch',
      callId,
      parentCallId: exec.callId,
      name: toolName,
      isError: result.isError,
      content: result.content,
      ...(result.isError ? { error: result.error } : {}),
    })
    if (options.suspension === undefined) {
      // No suspension: nothing is journaled (the path of every run before suspension existed).
      if (result.isError) throw failure(toolName, result.error.message)
      if (!settled.signal.aborted && result.content.some(isImage)) exec.attachContext({ source: `${toolName} (${callId})`, content: result.content.filter(isImage) })
      return result.value
    }
    const images = result.content.some(isImage) ? result.content.filter(isImage) : []
    const outcome: SubCallOutcome = result.isError
      ? { ok: false, toolName, message: result.error.message }
      : images.length > 0
        ? { ok: true, value: result.value, images }
        : { ok: true, value: result.value }
    journal.push({ step, callId, name: toolName, arguments: argument, outcome })
    return receive(toolName, callId, outcome)
  }

  const bindings: Record<string, HostFunction> = Object.create(null) as Record<string, HostFunction>
  for (const definition of options.definitions) {
    const name = definition.name
    bindings[name] = (args: JsonValue) => call(name, args)
  }
  return {
    bindings,
    signal: runSignal,
    journal,
    pending,
    deferred,
    divergence: () => divergence,
    abort() {
      if (!settled.signal.aborted) settled.abort(new ProgramSettledError())
    },
    async settle() {
      this.abort()
      await runner?.drain()
    },
  }
}

/** Rejection value of a failed sub-call; the runtime rethrows it in the guest as a `ToolCallError`. */
function failure(toolName: string, message: string): ToolCallErrorLike {
  return { name: 'ToolCallError', toolName, message }
}

function isImage(block: ContentBlock): block is Extract<ContentBlock, { type: 'image' }> {
  return block.type === 'image'
}
