/**
 * The host side of one sub-call, shared by both engine placements (`quickjs.ts`): it turns a
 * binding's settlement into a {@link HostReply} — the JSON text of the result, or the rejection
 * the prelude rethrows in the guest. In-process the engine calls {@link callBinding} directly;
 * with the engine in a worker thread the main thread calls it and posts the reply, so the
 * checks (JSON-ness, `valueBytes`) and messages are identical in both.
 */
import type { JsonValue } from '@deepseek-ai/dsh-tools'
import type { HostFunction } from './types'

/** A rejection the prelude turns into a guest error (`tool` → ToolCallError, `limit` → RangeError, `invalid` → TypeError). */
export interface GuestRejection {
  readonly kind: 'tool' | 'limit' | 'invalid'
  readonly toolName?: string
  readonly message: string
}

/**
 * How a sub-call settled, as the guest receives it: JSON text of the result, or a rejection; or
 * `parked`: the call will not settle in this run (its approval was deferred), the guest's
 * promise stays pending, and a run that can make no progress without it ends as suspended.
 */
export type HostReply = { readonly text: string } | { readonly rejection: GuestRejection } | { readonly parked: true }

/**
 * What a {@link HostFunction} rejects with to park its sub-call: the call is not answered in this
 * run (its approval was deferred; the PTC bridge records it as pending). A runtime that can
 * suspend (`CodeRuntime.suspendable`) keeps the program's promise pending and ends the run as
 * suspended once nothing else can progress; see `RunOutput.suspended`.
 */
export class SubCallParked extends Error {
  override readonly name = 'SubCallParked'
  constructor(readonly toolName: string) {
    super(`the call of ${toolName} waits for a decision`)
  }
}

/** Whether `error` is a {@link SubCallParked}. */
export function isParked(error: unknown): error is SubCallParked {
  return error instanceof SubCallParked
}

/**
 * Where an engine sends the sub-calls of one run. `call` receives the tool's position in
 * {@link HostLink.names} and the argument as the JSON text the guest produced (checked against
 * `valueBytes` already; parsed where the binding runs, see {@link callBindingWithJson}) and calls
 * `settle` exactly once with the reply — later, never from inside `call`.
 */
export interface HostLink {
  /** The tool names, in the order the guest's `tools` object lists them. */
  readonly names: readonly string[]
  call(index: number, json: string, settle: (reply: HostReply) => void): void
  /**
   * Optional (engine in a worker thread): sends the calls made since the last flush, together;
   * with it, `call` only buffers. The engine calls it after every sandbox entry that did not end
   * the run (nothing to send is a no-op); the calls of an entry that ended it are never sent.
   */
  flush?(): void
  /**
   * Optional (engine in a worker thread): blocks the calling thread until a reply may have
   * arrived, the host raised its attention flag (an abort), or `timeoutMs` passed, and calls
   * the `settle` of every reply that arrived, before it returns. Only called while the run waits
   * on nothing but replies.
   */
  wait?(timeoutMs: number): void
}

/** A {@link HostLink} over in-process bindings. */
export function bindingsLink(bindings: Readonly<Record<string, HostFunction>>, valueBytes: number): HostLink {
  const names = Object.keys(bindings)
  return {
    names,
    call: (index, json, settle) => {
      const name = names[index] as string
      void callBindingWithJson(bindings[name] as HostFunction, name, json, valueBytes).then(settle)
    },
  }
}

/**
 * {@link callBinding} for an argument given as JSON text: text that does not parse is an
 * `invalid` rejection (`the argument of tools.x is not JSON`) and the binding is not called.
 */
export function callBindingWithJson(binding: HostFunction, name: string, json: string, valueBytes: number): Promise<HostReply> {
  let arg: JsonValue
  try {
    arg = JSON.parse(json) as JsonValue
  } catch {
    return Promise.resolve({ rejection: { kind: 'invalid', message: `the argument of ${accessor(name)} is not JSON` } })
  }
  return callBinding(binding, name, arg, valueBytes)
}

/**
 * Invokes `binding` with `arg` and converts its settlement into a {@link HostReply}: a result
 * that is not JSON is a `tool` rejection (`tools.x returned a value that is not JSON`), one over
 * `valueBytes` UTF-8 bytes a `limit` rejection; a failure is a `tool` rejection carrying the
 * failure's `toolName` (when it is ToolCallError-like) and message clipped to `valueBytes`
 * characters. Never rejects.
 */
export async function callBinding(binding: HostFunction, name: string, arg: JsonValue, valueBytes: number): Promise<HostReply> {
  let payload: unknown
  try {
    payload = await binding(arg)
  } catch (error) {
    if (isParked(error)) return { parked: true }
    return { rejection: toolRejection(name, error, valueBytes) }
  }
  let text: string | undefined
  try {
    text = JSON.stringify(payload)
  } catch {
    text = undefined
  }
  if (typeof text !== 'string') return { rejection: { kind: 'tool', toolName: name, message: `${accessor(name)} returned a value that is not JSON` } }
  const bytes = Buffer.byteLength(text)
  if (bytes > valueBytes) {
    return { rejection: { kind: 'limit', message: `the result of ${accessor(name)} is ${bytes} bytes, over the valueBytes limit of ${valueBytes} bytes` } }
  }
  return { text }
}

/** The guest rejection of a failed binding (see {@link callBinding}). */
export function toolRejection(name: string, payload: unknown, maxChars: number): GuestRejection {
  const p = payload as { name?: unknown; toolName?: unknown; message?: unknown } | null | undefined
  if (p !== null && typeof p === 'object') {
    const toolName = p.name === 'ToolCallError' && typeof p.toolName === 'string' ? p.toolName : name
    const message = typeof p.message === 'string' ? p.message : safeString(p)
    return { kind: 'tool', toolName, message: clip(message, maxChars) }
  }
  return { kind: 'tool', toolName: name, message: clip(safeString(payload), maxChars) }
}

/** How a program addresses a tool: `tools.name` or `tools["a.b"]`. */
export function accessor(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? `tools.${name}` : `tools[${JSON.stringify(name)}]`
}

/** `String(value)`, or `unknown error` when that throws (a thrown value with a throwing `toString`). */
export function safeString(value: unknown): string {
  try {
    return String(value)
  } catch {
    return 'unknown error'
  }
}

/** `text` cut to `max` characters (UTF-16 code units) with a `… (truncated)` marker; unchanged when it fits. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (truncated)` : text
}
