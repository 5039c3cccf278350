/**
 * The `CodeRuntime` seam (docs/design.md, "PTC executor": the runtime sits behind a small seam —
 * language, isolation, `run` — so other runtimes, a Python one, can plug in).
 */
import type { JsonValue } from '@deepseek-ai/dsh-tools'
import type { RunLimits } from '../limits'
import type { SdkTool } from '../sdk'

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
  /**
   * The tools behind `bindings` as the SDK describes them (name, description, argument and
   * output schemas), in the order of `bindings`. The PTC executor always passes it; a runtime
   * whose SDK renames things (a Python runtime maps sanitised identifiers back to tool and
   * argument names) reads it, others may ignore it.
   */
  readonly tools?: readonly SdkTool[]
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
  /**
   * Work the program left pending when it ended (it returned or threw) and that was cancelled:
   * one line each, starting `note: ` (a sub-call not awaited, a timer that had not fired, a
   * Python task). Absent when there was none. Rendered after the output (`renderRunOutput`).
   */
  readonly notes?: readonly string[]
  readonly stats?: RunStats
}

/**
 * What the model reads about a runtime's language: the SDK text and the texts of `run_code`.
 * The PTC executor takes it from {@link CodeRuntime.flavour}; a runtime without one gets the
 * TypeScript flavour (`TYPESCRIPT_FLAVOUR`: `generateSdk` and the TypeScript descriptions).
 */
export interface CodeLanguageFlavour {
  /**
   * The SDK text for the visible tools (the `ptc/sdk` prompt section). Must be pure and
   * deterministic (the same set in any order gives byte-identical text) and must not throw.
   */
  renderSdk(tools: readonly SdkTool[]): string
  /** The model-facing description of `run_code`. */
  readonly runCodeDescription: string
  /** The description of `run_code`'s `code` parameter (the language and the result rule). */
  readonly codeDescription: string
  /**
   * How a program calls `name`, quoted in the hint a model-direct call of a known tool gets
   * (`call run_code with a program that does \`<callExample>\``), e.g. `await tools.name(args)`.
   * `visible` (when given) names every tool of the SDK the program sees, in any order, so a
   * language that renames tools can name the function its SDK shows for `name`.
   */
  callExample(name: string, visible?: readonly string[]): string
}

/**
 * A sandbox that runs programs. `language` names the accepted source language, `isolation` how
 * the program is separated from the host (`wasm`: a WebAssembly interpreter in-process;
 * `process`: another OS process; `none`: no isolation).
 */
export interface CodeRuntime {
  readonly language: 'typescript' | 'javascript' | 'python' | (string & {})
  readonly isolation: 'wasm' | 'process' | 'none' | (string & {})
  /** Runs one program. Never rejects. */
  run(input: RunInput): Promise<RunOutput>
  /**
   * Optional: the SDK flavour and `run_code` texts of this runtime's language. Absent → the
   * TypeScript flavour (the default runtime's texts, byte for byte).
   */
  readonly flavour?: CodeLanguageFlavour
  /**
   * Optional: pays the runtime's start-up ahead of the first run (`memoryBytes`: the run limit
   * the executor will use). The `PtcExecutor` plugin awaits it at plugin start unless
   * `warmUp: false`. A rejection fails the plugin start.
   */
  warmUp?(memoryBytes?: number): Promise<void>
}
