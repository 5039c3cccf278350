/**
 * The seam's {@link DurableContext} on DBOS, for one batch inside a running DBOS workflow.
 *
 * DBOS identifies a workflow's steps by position (a function id taken when the step is invoked,
 * checked against the step's name on replay). A batch's calls dispatch when their policy and the
 * pool allow, which depends on timing; so before the pipeline runs, {@link DbosDurableContext.reserve}
 * invokes every call's two steps (`dsh:start:K`, `dsh:call:K`) in call order, each waiting on a
 * gate. The pipeline's `step(name, fn)` opens the gate with `fn`. Positions are then the same on
 * every replay whatever the timing; a replayed step returns its recorded value without waiting.
 * Steps the batch never opened (a denied call) record `{ unused: true }` when the batch ends.
 */
import { DBOS } from '@dbos-inc/dbos-sdk'
import { durableCallKey, durableStepNames, type DurableContext, type DurableDecisionRequest, type JsonObject, type RawToolCall } from '@deepseek-ai/dsh-tools'

/** What a reserved step the batch never opened records. */
const UNUSED = Object.freeze({ unused: true })

/** The event key under which a workflow publishes the call waiting for a decision (see {@link PendingDecision}). */
export const PENDING_EVENT = 'dsh.pending'
/** The message topic a decision for call key `key` is sent on. */
export function decisionTopic(callKey: string): string {
  return `dsh.decision:${callKey}`
}

/** A call waiting for a decision, as published on the workflow's `dsh.pending` event (`null` when none waits). */
export interface PendingDecision {
  /** The call key to send the decision to (`sendDecision`). */
  readonly key: string
  readonly callId: string
  readonly toolName: string
  readonly arguments: Readonly<JsonObject>
  readonly reason?: string
}

/** Options of {@link DbosDurableContext}. */
export interface DbosContextOptions {
  /**
   * How long an `ask` waits for a decision, in seconds (default 7 days). On expiry the call is
   * rejected with the reason `no decision arrived within <n> s`. `null`: approvals are not waited
   * for durably; the mounted approval service answers them.
   */
  readonly decisionTimeoutSeconds?: number | null
}

interface Gate {
  open(fn: ((signal: AbortSignal) => Promise<unknown>) | undefined): void
  readonly result: Promise<unknown>
  opened: boolean
}

/** The engine's cancellation of the running step, or a signal that never fires outside one. */
function cancelSignal(): AbortSignal {
  return DBOS.stepStatus?.cancelSignal ?? new AbortController().signal
}

/**
 * A {@link DurableContext} over the DBOS workflow that is running (`DBOS.workflowID`). Create it
 * inside the workflow function, {@link reserve} the batch's calls, run the batch with
 * `durable: context`, then {@link finish}.
 */
export class DbosDurableContext implements DurableContext {
  readonly engine = 'dbos'
  readonly key: string
  readonly #gates = new Map<string, Gate>()
  readonly #timeout: number | null
  #failure: unknown
  #failed = false
  /** Present unless `decisionTimeoutSeconds` is `null` (then the approval service answers asks). */
  declare readonly awaitDecision?: (name: string, request: DurableDecisionRequest) => Promise<unknown>

  /** `key`: the batch's key, e.g. `<workflow id>:<batch number>` (see `batchKey`). */
  constructor(key: string, options: DbosContextOptions = {}) {
    if (!DBOS.isInWorkflow()) throw new Error('DbosDurableContext must be created inside a DBOS workflow function (DBOS.registerWorkflow)')
    this.key = key
    this.#timeout = options.decisionTimeoutSeconds === undefined ? 7 * 24 * 3600 : options.decisionTimeoutSeconds
    if (this.#timeout !== null) this.awaitDecision = (name, request) => this.#decide(name, request)
  }

  /**
   * Invokes the two steps of every call, in call order, gated (see the file header).
   *
   * @throws TypeError when two calls share a call id (their steps would share a name).
   */
  reserve(calls: readonly Pick<RawToolCall, 'callId'>[]): void {
    const seen = new Map<string, number>()
    for (const [index, call] of calls.entries()) {
      const id = call.callId
      if (typeof id !== 'string' || id === '') continue
      const earlier = seen.get(id)
      if (earlier !== undefined) throw new TypeError(`durable batch: calls ${earlier} and ${index} share the call id "${id}"; call ids must be unique in a durable batch`)
      seen.set(id, index)
      const names = durableStepNames(durableCallKey(this.key, id))
      this.#gate(names.start)
      this.#gate(names.call)
    }
  }

  step(name: string, fn: (signal: AbortSignal) => Promise<unknown>): Promise<unknown> {
    const gate = this.#gates.get(name)
    if (gate !== undefined && !gate.opened) {
      gate.open(fn)
      return gate.result
    }
    // A step that was not reserved: a PTC sub-call (the program issues them in order).
    return this.#watch(DBOS.runStep(() => fn(cancelSignal()), { name, retriesAllowed: false }))
  }

  /**
   * Records `{ unused: true }` for the reserved steps no call opened, waits for every reserved
   * step, and rethrows the first error the engine gave a step (so the workflow fails and is
   * recovered, rather than recording results it could not journal).
   */
  async finish(): Promise<void> {
    for (const gate of this.#gates.values()) if (!gate.opened) gate.open(undefined)
    await Promise.allSettled([...this.#gates.values()].map((g) => g.result))
    if (this.#failed) throw this.#failure
  }

  #gate(name: string): void {
    let open!: (fn: ((signal: AbortSignal) => Promise<unknown>) | undefined) => void
    const opened = new Promise<((signal: AbortSignal) => Promise<unknown>) | undefined>((resolve) => {
      open = resolve
    })
    const result = this.#watch(
      DBOS.runStep(
        async () => {
          const fn = await opened
          return fn === undefined ? UNUSED : fn(cancelSignal())
        },
        { name, retriesAllowed: false },
      ),
    )
    const gate: Gate = {
      opened: false,
      result,
      open(fn) {
        gate.opened = true
        open(fn)
      },
    }
    this.#gates.set(name, gate)
  }

  #watch(step: Promise<unknown>): Promise<unknown> {
    step.catch((error: unknown) => {
      if (!this.#failed) {
        this.#failed = true
        this.#failure = error
      }
    })
    return step
  }

  async #decide(name: string, request: DurableDecisionRequest): Promise<unknown> {
    const pending: PendingDecision = { key: name, callId: request.callId, toolName: request.toolName, arguments: request.arguments, ...(request.reason === undefined ? {} : { reason: request.reason }) }
    await DBOS.setEvent(PENDING_EVENT, pending)
    const decision = await DBOS.recv<unknown>(decisionTopic(name), { timeoutSeconds: this.#timeout! })
    await DBOS.setEvent(PENDING_EVENT, null)
    return decision ?? { type: 'reject', reason: `no decision arrived within ${this.#timeout} s` }
  }
}
