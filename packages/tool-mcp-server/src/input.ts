/**
 * Input from the person at the MCP client during a call (MCP's multi-round-trip requests,
 * SEP-2322): a tool body asks with {@link McpCallInput.require}, the call ends with an
 * `input_required` result (2026-07-28) or the SDK's legacy shim sends the requests as real
 * `elicitation/create`, `sampling/createMessage` and `roots/list` requests (2025-11-25), and the
 * call runs again with the answers. The server finds a call's input by its call id.
 */
import type { ToolExecution, JsonValue } from '@deepseek-ai/dsh-tools'

/** One request embedded in an `input_required` result, as the MCP wire carries it. */
export type McpInputRequest =
  | { readonly method: 'elicitation/create'; readonly params: { readonly [key: string]: unknown } }
  | { readonly method: 'sampling/createMessage'; readonly params: { readonly [key: string]: unknown } }
  | { readonly method: 'roots/list'; readonly params?: { readonly [key: string]: unknown } }

/** A form elicitation's answer: `accept` carries the content the person entered. */
export interface McpElicitAnswer {
  readonly kind: 'elicit'
  readonly action: 'accept' | 'decline' | 'cancel'
  readonly content?: { readonly [key: string]: JsonValue }
}
/** A sampling answer (`sampling/createMessage` result). */
export interface McpSamplingAnswer {
  readonly kind: 'sampling'
  readonly result: { readonly [key: string]: JsonValue }
}
/** A `roots/list` answer. */
export interface McpRootsAnswer {
  readonly kind: 'roots'
  readonly roots: readonly { readonly uri: string; readonly name?: string }[]
}
/** What the client answered for one key of the previous round, shape-checked. */
export type McpInputAnswer = McpElicitAnswer | McpSamplingAnswer | McpRootsAnswer

/**
 * Thrown by {@link McpCallInput.require}: ends the call's run; the server answers the MCP request
 * with `input_required` instead of the result. Outside an MCP server it is an ordinary failure
 * (`TOOL_FAILED` with code `MCP_INPUT_REQUIRED`).
 */
export class McpInputRequiredError extends Error {
  override readonly name = 'McpInputRequiredError'
  readonly code = 'MCP_INPUT_REQUIRED'
  constructor(
    readonly requests: Readonly<Record<string, McpInputRequest>>,
    readonly state: JsonValue | undefined,
  ) {
    super(`The tool needs input from the MCP client's user (${Object.keys(requests).join(', ')})`)
  }
}

/** The client a call came from, as it declared itself (initialize or the request's `_meta`). */
export interface McpClientView {
  /** The negotiated protocol revision, e.g. `2025-11-25` or `2026-07-28`. */
  readonly protocolVersion: string
  readonly clientInfo?: { readonly name: string; readonly version: string }
  /** The client's declared capabilities (`elicitation`, `sampling`, `roots`, …). */
  readonly capabilities: { readonly [key: string]: unknown }
}

/**
 * A served call's view of the MCP client: who it is, the answers of the previous round and the
 * state the body carried across rounds. Obtain it with {@link mcpInput}.
 */
export interface McpCallInput {
  readonly client: McpClientView
  /** Whether the client declared the capability an input method needs (`elicitation`, `sampling`, `roots`). */
  supports(method: McpInputRequest['method']): boolean
  /**
   * The answer to `key` of the previous round, shape-checked (an answer of the wrong shape, e.g.
   * a number, counts as no answer), or `undefined`.
   */
  answer(key: string): McpInputAnswer | undefined
  /** The JSON state the body passed to {@link require} in the previous round (integrity-checked by the server). */
  readonly state: JsonValue | undefined
  /**
   * Ends this run and asks the client for `requests` (at least one); the call runs again with
   * the answers and `state`. Never returns.
   *
   * @throws McpInputRequiredError always.
   */
  require(requests: Readonly<Record<string, McpInputRequest>>, state?: JsonValue): never
}

const calls = new Map<string, McpCallInput>()

/** @internal Registers a served call's input view under its call id until `release` runs. */
export function registerCallInput(callId: string, input: McpCallInput): () => void {
  calls.set(callId, input)
  return () => void calls.delete(callId)
}

/**
 * The MCP client view of the call `exec` belongs to (a PTC sub-call finds its outer call's), or
 * `undefined` when the call was not made by an MCP client through this package's server.
 */
export function mcpInput(exec: ToolExecution): McpCallInput | undefined {
  for (let e: ToolExecution | undefined = exec; e !== undefined; e = e.parent) {
    const found = calls.get(e.callId)
    if (found !== undefined) return found
  }
  return undefined
}

const CAPABILITY: Record<McpInputRequest['method'], string> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
}

/** The client capability an input method needs. */
export function capabilityOf(method: McpInputRequest['method']): string {
  return CAPABILITY[method]
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Shape-checks one raw answer from the wire (untrusted): `undefined` when it is none of the three kinds. */
export function readAnswer(raw: unknown): McpInputAnswer | undefined {
  if (!isObject(raw)) return undefined
  if (raw.action === 'accept' || raw.action === 'decline' || raw.action === 'cancel') {
    if (raw.content !== undefined && !isObject(raw.content)) return undefined
    return raw.content === undefined ? { kind: 'elicit', action: raw.action } : { kind: 'elicit', action: raw.action, content: raw.content as Record<string, JsonValue> }
  }
  if (Array.isArray(raw.roots)) {
    if (!raw.roots.every((r) => isObject(r) && typeof r.uri === 'string')) return undefined
    return { kind: 'roots', roots: raw.roots as McpRootsAnswer['roots'] }
  }
  if (typeof raw.role === 'string' && raw.content !== undefined) return { kind: 'sampling', result: raw as Record<string, JsonValue> }
  return undefined
}
