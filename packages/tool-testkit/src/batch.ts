/**
 * Raw-batch builders: calls exactly as a model would emit them (docs/design.md, "Testkit").
 */
import type { JsonValue, RawToolCall } from '@deepseek-ai/dsh-tools'

let counter = 0

/**
 * A raw call whose arguments are the JSON text of `args` (or `args` itself when it is already
 * a string — use that for malformed or empty arguments).
 *
 * @example call('read', { path: 'a' }, 'c1') // { callId: 'c1', name: 'read', arguments: '{"path":"a"}' }
 */
export function call(name: string, args: JsonValue | string = {}, callId?: string): RawToolCall {
  return { callId: callId ?? `call_${++counter}`, name, arguments: typeof args === 'string' ? args : JSON.stringify(args) }
}

/**
 * A raw call whose arguments are an already-parsed JSON value, as providers that send objects
 * emit them (Anthropic `tool_use.input`, Gemini `functionCall.args`).
 *
 * @example objectCall('read', { path: 'a' }, 'c1') // { callId: 'c1', name: 'read', arguments: { path: 'a' } }
 */
export function objectCall(name: string, args: JsonValue, callId?: string): RawToolCall {
  return { callId: callId ?? `call_${++counter}`, name, arguments: args }
}

/**
 * `n` calls of `name`, ids `<prefix>0…`, arguments from `args(i)`.
 *
 * @example calls('echo', 3, (i) => ({ text: String(i) })) // ids c0, c1, c2
 */
export function calls(name: string, n: number, args: (i: number) => JsonValue = () => ({}), prefix = 'c'): RawToolCall[] {
  return Array.from({ length: n }, (_, i) => call(name, args(i), `${prefix}${i}`))
}

/**
 * Resets the automatic id counter (for deterministic ids across tests).
 *
 * @example resetCallIds(); call('echo').callId // 'call_1'
 */
export function resetCallIds(): void {
  counter = 0
}
