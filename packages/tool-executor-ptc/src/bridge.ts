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
import type { AnyToolDefinition, CallRunner, ContentBlock, JsonValue, ResolvedToolSet, ToolExecution, ToolPipeline } from '@deepseek-ai/dsh-tools'
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

/** A bridge for one `run_code` execution. */
export interface SubCallBridge {
  /** One host function per visible tool, keyed by tool name. */
  readonly bindings: Readonly<Record<string, HostFunction>>
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
}

/**
 * Creates the host functions a program calls. Inner dispatch events go to the outer call's
 * session log only (`tool/code-dispatch-start` / `tool/code-dispatch`), never to the model.
 */
export function createBridge(options: BridgeOptions): SubCallBridge {
  const { exec, pipeline } = options
  const settled = new AbortController()
  const signal = AbortSignal.any([exec.signal, settled.signal])
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
      onCallStart: (call, args) => append({ type: 'tool/code-dispatch-start', callId: call.callId, parentCallId: exec.callId, name: call.name, arguments: args }),
    }))

  const call = async (toolName: string, args: JsonValue): Promise<JsonValue> => {
    if (settled.signal.aborted) throw failure(toolName, 'the program has already finished')
    const callId = `${exec.callId}:code:${++n}`
    const result = await getRunner().submit({ callId, name: toolName, arguments: args === undefined ? {} : args })
    append({
      type: 'tool/code-dispatch',
      callId,
      parentCallId: exec.callId,
      name: toolName,
      isError: result.isError,
      content: result.content,
      ...(result.isError ? { error: result.error } : {}),
    })
    if (result.isError) throw failure(toolName, result.error.message)
    if (!settled.signal.aborted && result.content.some(isImage)) exec.attachContext({ source: `${toolName} (${callId})`, content: result.content.filter(isImage) })
    return result.value
  }

  const bindings: Record<string, HostFunction> = Object.create(null) as Record<string, HostFunction>
  for (const definition of options.definitions) {
    const name = definition.name
    bindings[name] = (args: JsonValue) => call(name, args)
  }
  return {
    bindings,
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
