/**
 * Requests from a server during a call: elicitation (`elicitation/create`, sent by a 2025-line
 * server, or embedded in a 2026-07-28 `input_required` result that the SDK's client fulfils and
 * retries with the request state echoed). Each goes to the registry's approval channel: the
 * `ApprovalService` nearest to the call's scope (`ctx.tools.approval(service)`), asked with the
 * call's `exec` and an {@link McpElicitation} beside the usual fields. A person answers: approve
 * (with the form's `content`), reject (decline), or the service throws / the call is cancelled
 * (cancel). The SDK fills in the schema's defaults for fields the answer leaves out (SEP-1034:
 * the client declares `elicitation.form.applyDefaults`).
 *
 * Which call a request belongs to: the call whose `tools/call` is being answered — the bridge
 * runs each call in an `AsyncLocalStorage` context, which the transport's response stream (HTTP,
 * and the 2026-07-28 retries) carries; on a stream that carries no context (stdio), the server's
 * only call in flight. A request the bridge cannot tie to one call, or in a scope without an
 * approval service, is declined (the spec's answer for a request the user does not take up).
 * Sampling and roots are not offered (no capability declared), so the SDK answers such requests
 * with JSON-RPC `-32601` (method not found), as the spec says for an unsupported request.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { describeThrown, type ApprovalDecision, type ApprovalRequest, type ApprovalService, type JsonObject, type Scope, type ToolExecution } from '@deepseek-ai/dsh-tools'
import type { ClientCapabilities, ElicitRequest, ElicitResult } from '@modelcontextprotocol/client'

/** The call whose request to its server is in progress (see the module comment). */
export const callInProgress: AsyncLocalStorage<ToolExecution> = new AsyncLocalStorage<ToolExecution>()

/** What the bridge tells an approval service about an elicitation, beside `exec`, `reason` and `signal`. */
export interface McpElicitation {
  /** The bridge's name of the server asking. */
  readonly server: string
  /** The server's message to the user. */
  readonly message: string
  /** The flat JSON Schema of the form the server asks to have filled in. */
  readonly requestedSchema: JsonObject
}

/** An {@link ApprovalRequest} for an elicitation: the approval service reads `mcpElicitation`. */
export interface McpElicitationApprovalRequest extends ApprovalRequest {
  readonly mcpElicitation: McpElicitation
}

/**
 * An approval service's answer to an elicitation: `approve` with the form's `content` (absent:
 * `{}`, then the schema's defaults apply), or `reject` (the server sees `decline`).
 */
export type McpElicitationDecision = ApprovalDecision | { readonly type: 'approve'; readonly content?: JsonObject }

/** The capabilities the bridge's client declares: form elicitation with the schema's defaults applied. */
export function clientCapabilities(): ClientCapabilities {
  return { elicitation: { form: { applyDefaults: true } } }
}

/**
 * The approval service nearest to `scope` in `registry` (the one the pipeline asks for `ask`
 * decisions), or `undefined`. Read through the registry's stage hooks for the scope.
 */
export function approvalFor(registry: unknown, scope: Scope): ApprovalService | undefined {
  const hooks = (registry as { _hooks?: (scope: Scope) => { readonly approval?: ApprovalService } })._hooks
  return typeof hooks === 'function' ? hooks.call(registry, scope).approval : undefined
}

/** What answering a server request needs from the connection. */
export interface RequestRoute {
  readonly server: string
  /** The call a request without a carried context belongs to: the server's only call in flight, else `undefined`. */
  soleCall(): ToolExecution | undefined
  approval(exec: ToolExecution): ApprovalService | undefined
  debug(message: string): void
}

/**
 * Answers one `elicitation/create` (see the module comment). Never throws: a failing approval
 * service cancels the request; the failure is logged without the server's content.
 */
export async function answerElicitation(route: RequestRoute, request: ElicitRequest, signal: AbortSignal): Promise<ElicitResult> {
  const params = request.params as { readonly mode?: string; readonly message: string; readonly requestedSchema?: JsonObject }
  if (params.mode !== undefined && params.mode !== 'form') return { action: 'decline' }
  const exec = callInProgress.getStore() ?? route.soleCall()
  if (exec === undefined) {
    route.debug(`MCP server "${route.server}": an elicitation that no single call in flight asked for was declined`)
    return { action: 'decline' }
  }
  const approval = route.approval(exec)
  if (approval === undefined) return { action: 'decline' }
  const asked: McpElicitationApprovalRequest = {
    exec,
    reason: `MCP server "${route.server}" asks: ${params.message}`,
    signal: AbortSignal.any([signal, exec.signal]),
    mcpElicitation: Object.freeze({ server: route.server, message: params.message, requestedSchema: params.requestedSchema ?? {} }),
  }
  let decision: McpElicitationDecision
  try {
    decision = (await approval.request(asked)) as McpElicitationDecision
  } catch (error) {
    route.debug(`MCP server "${route.server}": the approval service failed on an elicitation: ${describeThrown(error)}`)
    return { action: 'cancel' }
  }
  if (decision?.type === 'approve') {
    const content = (decision as { readonly content?: unknown }).content
    return { action: 'accept', content: (content !== null && typeof content === 'object' && !Array.isArray(content) ? { ...content } : {}) as ElicitResult['content'] }
  }
  return decision?.type === 'reject' ? { action: 'decline' } : { action: 'cancel' }
}
