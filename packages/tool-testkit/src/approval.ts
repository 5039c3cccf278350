/**
 * A scriptable approval service (docs/design.md, "Testkit"): answers `ask` decisions from a script,
 * records every request, and can hold requests until the test releases them.
 */
import type { ApprovalDecision, ApprovalRequest, ApprovalService } from '@deepseek-ai/dsh-tools'

/** How the scripted service answers: a fixed decision, a per-request function, or `hold`. */
export type ApprovalScript = ApprovalDecision | 'hold' | ((request: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>)

interface Held {
  readonly request: ApprovalRequest
  readonly resolve: (decision: ApprovalDecision) => void
  readonly reject: (reason: unknown) => void
}

/**
 * @example
 * const approval = new ScriptedApproval({ type: 'approve' })
 * ctx.tools.approval(approval)
 * // … later: approval.requests.map((r) => r.exec.name)
 */
export class ScriptedApproval implements ApprovalService {
  /** Every request, in arrival order. */
  readonly requests: ApprovalRequest[] = []
  private readonly held: Held[] = []

  constructor(public script: ApprovalScript = { type: 'approve' }) {}

  request(request: ApprovalRequest): Promise<ApprovalDecision> {
    this.requests.push(request)
    const script = this.script
    if (script === 'hold') {
      return new Promise<ApprovalDecision>((resolve, reject) => {
        const entry: Held = {
          request,
          resolve: (d) => {
            request.signal.removeEventListener('abort', onAbort)
            resolve(d)
          },
          reject,
        }
        const onAbort = (): void => {
          const i = this.held.indexOf(entry)
          if (i !== -1) this.held.splice(i, 1)
          reject(request.signal.reason)
        }
        if (request.signal.aborted) return onAbort()
        request.signal.addEventListener('abort', onAbort, { once: true })
        this.held.push(entry)
      })
    }
    return Promise.resolve(typeof script === 'function' ? script(request) : script)
  }

  /** Requests currently held. */
  get pending(): number {
    return this.held.length
  }

  /** Answers the oldest held request (or all with `all: true`). Returns how many were answered. */
  answer(decision: ApprovalDecision, options?: { all?: boolean }): number {
    const batch = options?.all === true ? this.held.splice(0) : this.held.splice(0, 1)
    for (const h of batch) h.resolve(decision)
    return batch.length
  }
}
