/**
 * The `CodeRuntime` seam (docs/design.md, "PTC executor": the runtime sits behind a small seam —
 * language, isolation, `run` — so other runtimes, a Python one, can plug in).
 */
import type { JsonValue } from '@deepseek-ai/dsh-tools'
import type { RunLimits } from '../limits'

export type { RunLimits } from '../limits'

/**
 * A host function the program reaches as `tools.<name>(args)` (a sub-call). It receives a JSON
 * copy of the program's argument (`{}` when the program passes none) and resolves to a JSON
 * value that the program receives as a fresh copy.
 *
 * A rejection with a {@link ToolCallErrorLike} surfaces in the program as a thrown
 * `ToolCallError` instance carrying `toolName` and `message`; any other rejection surfaces as a
 * `ToolCallError` with the binding's name and the rejection's message.
 */
export type HostFunction = (arg: JsonValue) => Promise<JsonValue>

/** The rejection shape a {@link HostFunction} uses to report a failed tool call. */
export interface ToolCallErrorLike {
  readonly name: 'ToolCallError'
  readonly toolName: string
  readonly message: string
}

/**
 * How a run failed (docs/design.md, "What the model sees": `Error: code run failed (<kind>): <message>`).
 *
 * - `exception`: the program threw (or rejected) and did not catch it; also syntax errors and
 *   stack overflows.
 * - `timeout`: `computeMs` or `wallMs` ran out.
 * - `abort`: the caller's `signal` aborted.
 * - `memory`: the program ran out of its `memoryBytes`.
 * - `output-limit`: printed lines plus the rendered return value exceed `outputBytes`.
 * - `invalid-output`: the return value is not JSON (function, symbol, BigInt, cycle, NaN, a getter
 *   that throws while it is read).
 */
export type RunErrorKind = 'exception' | 'timeout' | 'abort' | 'memory' | 'output-limit' | 'invalid-output'

/** A run failure: its kind and a one-line, model-facing message. */
export interface RunError {
  readonly kind: RunErrorKind
  readonly message: string
}

/** What one run consumed (diagnostics for logs and benchmarks; not model-facing). */
export interface RunStats {
  /** Sub-calls forwarded to host functions. */
  readonly subCalls: number
  /** CPU time spent inside the sandbox (ms). */
  readonly computeMs: number
  /** Wall time from the start of `run` to settlement (ms). */
  readonly wallMs: number
}

/** The input of one run. */
export interface RunInput {
  /** The program source (TypeScript or JavaScript for the default runtime), run as an async function body. */
  readonly program: string
  /** Host functions by tool name; exposed to the program as `tools.<name>` / `tools["a.b"]`. */
  readonly bindings: Readonly<Record<string, HostFunction>>
  /** Aborting it settles the run as `abort`. Its listener is removed when the run settles. */
  readonly signal: AbortSignal
  /** Limits of this run (see `validateLimits`). */
  readonly limits: RunLimits
  /**
   * Called once, synchronously, the moment the run settles (return, throw, limit, abort), before
   * `run` resolves. From then on no further sub-call is forwarded to `bindings`; the caller uses
   * this hook to abort sub-calls still in flight. A throw from it is ignored.
   */
  readonly onSettle?: () => void
}

/**
 * The result of one run. `run` never rejects: failures are the `error` field. `logs` holds the
 * printed lines in order (also on failure); `value` is the JSON return value (absent for
 * `undefined` and on failure).
 */
export interface RunOutput {
  readonly value?: JsonValue
  readonly logs: readonly string[]
  readonly error?: RunError
  readonly stats?: RunStats
}

/**
 * A sandbox that runs programs. `language` names the accepted source language, `isolation` how
 * the program is separated from the host (`wasm`: a WebAssembly interpreter in-process;
 * `process`: another OS process; `none`: no isolation).
 */
export interface CodeRuntime {
  readonly language: 'typescript' | 'javascript' | (string & {})
  readonly isolation: 'wasm' | 'process' | 'none' | (string & {})
  /** Runs one program. Never rejects. */
  run(input: RunInput): Promise<RunOutput>
}
