/**
 * A sub-call's host side in the Python runtime: the binding invoked and its settlement encoded
 * for the worker (`callHost`).
 */
import type { JsonValue } from '@deepseek-ai/dsh-tools'
import { clip, isParked, safeString, type HostFunction } from '@deepseek-ai/dsh-tool-executor-ptc'

/**
 * Invokes a binding and encodes its settlement for the worker: `T<json>`,
 * `E<{kind, toolName, message}>`, or `P` when the binding parked the call (`SubCallParked`: its
 * approval was deferred; the program's call stays pending and the run may suspend), with the TypeScript runtime's checks and texts (a result that
 * is not JSON, one over `valueBytes`, a failure's message clipped to `valueBytes` characters).
 */
export async function callHost(binding: HostFunction, name: string, py: string, arg: JsonValue, valueBytes: number): Promise<string> {
  let payload: unknown
  try {
    payload = await binding(arg)
  } catch (error) {
    if (isParked(error)) return 'P'
    const p = error as { name?: unknown; toolName?: unknown; message?: unknown } | null | undefined
    const toolName = p !== null && typeof p === 'object' && p.name === 'ToolCallError' && typeof p.toolName === 'string' ? p.toolName : name
    const message = p !== null && typeof p === 'object' && typeof p.message === 'string' ? p.message : safeString(error)
    return `E${JSON.stringify({ kind: 'tool', toolName, message: clip(message, valueBytes) })}`
  }
  let text: string | undefined
  try {
    text = JSON.stringify(payload)
  } catch {
    text = undefined
  }
  if (typeof text !== 'string') return `E${JSON.stringify({ kind: 'tool', toolName: name, message: `${py} returned a value that is not JSON` })}`
  const bytes = Buffer.byteLength(text)
  if (bytes > valueBytes) return `E${JSON.stringify({ kind: 'limit', message: `the result of ${py} is ${bytes} bytes, over the valueBytes limit of ${valueBytes} bytes` })}`
  return `T${text}`
}
