/**
 * The state of one served `tools/call` round: the client's answers of the previous round, the
 * verified state carried across rounds, the approvals the client's user granted, the progress
 * relay, and what the round ends up asking for (`input_required`).
 */
import { createHash } from 'node:crypto'
import type { ApprovalDecision, ApprovalRequest, JsonValue, ToolExecution, ToolPreliminaryEvent, ToolProgressEvent } from '@deepseek-ai/dsh-tools'
import { capabilityOf, McpInputRequiredError, readAnswer, type McpCallInput, type McpClientView, type McpInputAnswer, type McpInputRequest } from './input'

/** What the server signs into `requestState` (the client cannot change it unnoticed). */
export interface SignedState {
  /** The tool the state belongs to. */
  readonly t: string
  /** SHA-256 (hex) of the call's arguments as JSON. */
  readonly a: string
  /** Approval keys the client's user granted in earlier rounds. */
  readonly g: readonly string[]
  /** The body's own state ({@link McpCallInput.require}). */
  readonly u?: JsonValue
}

/** SHA-256 hex of a JSON value as text. */
export function digest(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value ?? {})).digest('hex')
}

/** The elicitation an `ask` decision becomes. `approve` is a boolean the person ticks. */
export function approvalRequest(exec: ToolExecution, reason: string | undefined): McpInputRequest {
  const args = JSON.stringify(exec.arguments)
  const shown = args.length > 500 ? `${args.slice(0, 500)}…` : args
  return {
    method: 'elicitation/create',
    params: {
      mode: 'form',
      message: `Allow the tool "${exec.name}" to run with ${shown}?${reason === undefined || reason === '' ? '' : ` ${reason}`}`,
      requestedSchema: {
        type: 'object',
        properties: { approve: { type: 'boolean', title: `Run ${exec.name}`, description: 'Allow this call', default: false } },
        required: ['approve'],
      },
    },
  }
}

/** The model-facing denial when the client cannot ask its user. */
export function noElicitationDenial(name: string): string {
  return `Tool "${name}" needs approval, and the MCP client cannot ask its user (it declared no elicitation capability)`
}

/** The key under which `exec`'s approval is asked: stable across rounds for the same tool and arguments. */
export function approvalKey(exec: ToolExecution): string {
  return `dsh_approval_${digest([exec.name, exec.arguments]).slice(0, 16)}`
}

/** The fields of one `notifications/progress` (its token is the request's). */
export interface ProgressParams {
  readonly progress: number
  readonly total?: number
  readonly message?: string
}

/** A preliminary value as a progress message: a string as itself, anything else as JSON text. */
function preliminaryText(value: JsonValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value)
}

/** One `tools/call` round. */
export class CallRun {
  /** Requests this round ends with (approvals and the body's), by key. */
  readonly requests: Record<string, McpInputRequest> = {}
  /** The body's state for the next round. */
  userState: JsonValue | undefined
  /** Set when a body asked for input the client cannot give (a capability it did not declare). */
  unsupported: string | undefined
  readonly granted: Set<string>
  readonly input: McpCallInput

  constructor(
    readonly tool: string,
    readonly client: McpClientView,
    private readonly answers: Readonly<Record<string, unknown>>,
    previous: SignedState | undefined,
    private readonly sendProgress: ((params: ProgressParams) => void) | undefined,
  ) {
    this.granted = new Set(previous?.g ?? [])
    const self = this
    this.input = Object.freeze({
      client,
      state: previous?.u,
      supports: (method: McpInputRequest['method']) => self.supports(method),
      answer: (key: string) => self.answer(key),
      require(requests: Readonly<Record<string, McpInputRequest>>, state?: JsonValue): never {
        const keys = Object.keys(requests ?? {})
        if (keys.length === 0) throw new TypeError('mcpInput(exec).require() needs at least one request')
        for (const key of keys) {
          const missing = self.supports(requests[key]!.method) ? undefined : capabilityOf(requests[key]!.method)
          if (missing !== undefined) self.unsupported ??= missing
          self.requests[key] = requests[key]!
        }
        self.userState = state
        throw new McpInputRequiredError(requests, state)
      },
    })
  }

  /** Whether the client declared the capability `method` needs. */
  supports(method: McpInputRequest['method']): boolean {
    return this.client.capabilities[capabilityOf(method)] !== undefined && this.client.capabilities[capabilityOf(method)] !== null
  }

  /** The shape-checked answer to `key` of the previous round. */
  answer(key: string): McpInputAnswer | undefined {
    return Object.hasOwn(this.answers, key) ? readAnswer(this.answers[key]) : undefined
  }

  /** Whether this round ends with `input_required` instead of the result. */
  get needsInput(): boolean {
    return Object.keys(this.requests).length > 0
  }

  /** The highest `progress` sent for this call so far (MCP asks it to increase with every notification). */
  #lastProgress = 0

  /** Relays a progress event of this call (when the client asked for progress). */
  progress(event: ToolProgressEvent): void {
    if (this.sendProgress === undefined) return
    this.#lastProgress = Math.max(this.#lastProgress, event.progress)
    this.sendProgress({ progress: event.progress, ...(event.total === undefined ? {} : { total: event.total }), ...(event.message === undefined ? {} : { message: event.message }) })
  }

  /**
   * Relays a preliminary result of this call (a generator body's yield) as a progress
   * notification: its `message` is the value (a string as itself, else JSON text) and its
   * `progress` the next whole number above every progress sent for the call so far, so the
   * sequence keeps increasing when the body also reports progress. No `total`.
   */
  preliminary(event: ToolPreliminaryEvent): void {
    if (this.sendProgress === undefined) return
    this.#lastProgress = Math.floor(this.#lastProgress) + 1
    this.sendProgress({ progress: this.#lastProgress, message: preliminaryText(event.value) })
  }

  /**
   * The approval service's answer for an `ask` of this call: granted earlier → approve; answered
   * now → the person's answer; otherwise ask (the round ends with `input_required`), or deny when
   * the client cannot ask.
   */
  approve(request: ApprovalRequest): ApprovalDecision {
    const key = approvalKey(request.exec)
    if (this.granted.has(key)) return { type: 'approve' }
    const answer = this.answer(key)
    if (answer?.kind === 'elicit') {
      if (answer.action === 'accept' && answer.content?.approve === true) {
        this.granted.add(key)
        return { type: 'approve' }
      }
      return { type: 'reject', reason: `Tool "${request.exec.name}" was not approved by the MCP client's user` }
    }
    if (!this.supports('elicitation/create')) return { type: 'reject', reason: noElicitationDenial(request.exec.name) }
    this.requests[key] = approvalRequest(request.exec, request.reason)
    return { type: 'reject', reason: `Tool "${request.exec.name}" is waiting for the MCP client's user to approve it` }
  }

  /** The state to sign into the next round's `requestState`. */
  nextState(argsDigest: string): SignedState {
    return { t: this.tool, a: argsDigest, g: [...this.granted], ...(this.userState === undefined ? {} : { u: this.userState }) }
  }
}
