/**
 * The trivial tool every system runs in the batch-overhead workload (docs/design.md, "Performance targets": a trivial
 * tool with a 3-field schema): `add({ a: integer, b: integer, label: string })` →
 * `{ sum: a + b, label }`. Each system declares it in its own idiom (our DSL, zod for the AI
 * SDK and the Agents SDK, a precompiled ajv validator for the floor); the calls and the body
 * are shared.
 */
import type { JsonObject } from '@deepseek-ai/dsh-tools'

/** The tool name every system registers. */
export const TOOL_NAME = 'add'
export const TOOL_DESCRIPTION = 'Adds two integers and echoes a label.'

/** A call as the scripted model emits it: an id, the tool name and the JSON argument text. */
export interface ScriptedCall {
  readonly id: string
  readonly name: string
  /** JSON text of the arguments, exactly as a provider would send it. */
  readonly arguments: string
}

/** The arguments of call `i`. */
export function argsOf(i: number): { a: number; b: number; label: string } {
  return { a: i, b: 2, label: `call-${i}` }
}

/** The value call `i` must produce. */
export function expectedOf(i: number): JsonObject {
  return { sum: i + 2, label: `call-${i}` }
}

/** `n` calls of the trivial tool, ids `call_0…`. */
export function scriptedCalls(n: number): ScriptedCall[] {
  return Array.from({ length: n }, (_, i) => ({ id: `call_${i}`, name: TOOL_NAME, arguments: JSON.stringify(argsOf(i)) }))
}

/** The shared body (synchronous, as trivial as a tool gets). */
export function addBody(args: { readonly a: number; readonly b: number; readonly label: string }): { sum: number; label: string } {
  return { sum: args.a + args.b, label: args.label }
}

/** The arguments' JSON Schema (what the floor compiles with ajv). */
export const ARGS_JSON_SCHEMA = {
  type: 'object',
  properties: { a: { type: 'integer' }, b: { type: 'integer' }, label: { type: 'string' } },
  required: ['a', 'b', 'label'],
} as const

/**
 * Throws unless `values[i]` deep-equals {@link expectedOf}(i) for every call: a system that
 * skipped or broke the work must not produce a figure.
 */
export function verifyOutputs(system: string, values: readonly unknown[], n: number): void {
  if (values.length !== n) throw new Error(`${system}: expected ${n} tool results, got ${values.length}`)
  for (let i = 0; i < n; i++) {
    const got = JSON.stringify(values[i])
    const want = JSON.stringify(expectedOf(i))
    if (got !== want) throw new Error(`${system}: result ${i} is ${got}, expected ${want}`)
  }
}

/** Whether a batch's calls may overlap (`parallel`) or must run one at a time (`sequential`). */
export type Variant = 'sequential' | 'parallel'

/** One prepared system: runs the same model step over and over. */
export interface StepSystem {
  /** System id (`floor`, `dsh`, `ai-sdk`, `agents-sdk`). */
  readonly id: string
  /** Runs one complete step (all calls) and resolves when every result is in. */
  step(): Promise<void>
  /** Runs one step and returns the tool values in call order (for verification). */
  outputs(): Promise<readonly unknown[]>
  dispose(): Promise<void>
}
