/**
 * A test adapter of `PtcSuspension` over today's approval service (not a test file), standing in
 * for the core's suspension API: an approval service with no decision yet for a call answers a
 * rejection with a marker reason, which `submit` turns into a deferral; the decisions of a
 * resumed run (given through `runnerOptions`) are what the service answers then; a suspended
 * `run_code` body stores its state (as JSON text, as a deployment would) and ends with
 * `TEST_SUSPENDED`; `resumeOf` hands a stored state back.
 */
import { defineTool, ToolError, type ApprovalDecision, type JsonValue, type ToolResult } from '@deepseek-ai/dsh-tools'
import type { Harness } from '@deepseek-ai/dsh-tool-testkit'
import type { PtcRunState, PtcSuspension, SubCallDecision } from '../src'

const DEFER = 'decision deferred (test marker)'

export class TestSuspension implements PtcSuspension {
  /** Decisions by sub-call id: the approval service's answers. */
  readonly decisions = new Map<string, SubCallDecision>()
  /** Suspended `run_code` states by call id, as stored JSON text. */
  readonly stored = new Map<string, string>()
  /** Resume inputs by `run_code` call id. */
  private readonly resumes = new Map<string, { state: unknown; decisions: ReadonlyMap<string, SubCallDecision> }>()

  /** Mounts the approval service and an `ask` policy for the tools named in `ask`. */
  install(h: Harness, ask: readonly string[]): void {
    h.ctx.on('tools/pre-execute', (exec, next) => (ask.includes(exec.name) ? { type: 'ask', reason: `${exec.name} needs a human` } : next()))
    h.ctx.tools.approval({
      request: async (request): Promise<ApprovalDecision> => this.decisions.get(request.exec.callId) ?? { type: 'reject', reason: DEFER },
    })
  }

  runnerOptions: PtcSuspension['runnerOptions'] = (_exec, decisions) => {
    for (const [id, decision] of decisions) this.decisions.set(id, decision)
    return {}
  }

  submit: PtcSuspension['submit'] = async (runner, call) => {
    const result: ToolResult = await runner.submit(call)
    return result.isError && (result.error.info as { reason?: unknown } | undefined)?.reason === DEFER ? { deferred: { callId: call.callId } } : result
  }

  resumeOf: PtcSuspension['resumeOf'] = (exec) => this.resumes.get(exec.callId)

  suspend(state: PtcRunState, exec: { callId: string }): never {
    this.stored.set(exec.callId, JSON.stringify(state))
    throw new ToolError('TEST_SUSPENDED', `suspended with ${state.pending.length} pending`)
  }

  /** The stored state of `callId`, parsed. */
  state(callId: string): PtcRunState {
    return JSON.parse(this.stored.get(callId) as string) as PtcRunState
  }

  /** The next run of `callId` resumes `state` (default: the stored one) with `decisions`. */
  resume(callId: string, decisions: Record<string, SubCallDecision>, state: unknown = JSON.parse(this.stored.get(callId) as string)): void {
    this.resumes.set(callId, { state, decisions: new Map(Object.entries(decisions)) })
  }
}

/** A tool that counts its executions by argument text (`calls`), echoing the argument. */
export function countedTool(name: string, calls: string[]) {
  return defineTool({
    name,
    description: `Counted ${name}.`,
    parameters: { text: { type: 'string' } },
    output: { schema: { type: 'json' }, render: (_a, v) => [{ type: 'text', text: JSON.stringify(v) }] },
    isConcurrencySafe: () => true,
    execute: (args) => {
      calls.push(`${name}:${String(args.text)}`)
      return { text: `${name}(${String(args.text)})` } as JsonValue
    },
  })
}
