/**
 * The PTC executor (docs/design.md, "PTC executor" and "What the model sees"): the model sees
 * one tool, `run_code`, plus a prompt section holding a generated TypeScript SDK for every
 * visible tool. `run_code` itself runs through the complete pipeline (policies, guards and
 * wrappers apply to it); its body runs the program in the sandbox runtime, and every SDK call
 * re-enters the pipeline as a sub-call.
 */
import {
  checkConfigObject,
  getValidator,
  MAX_TIMER_MS,
  showConfigValue,
  ToolError,
  validateMaxParallel,
  type AnyToolDefinition,
  type DescribeInput,
  type ExecutorBatch,
  type ExecutorDescription,
  type JsonObject,
  type JsonValue,
  type ToolDefinition,
  type ToolExecution,
  type ToolExecutor,
  type ToolResult,
  type ToolSchema,
} from '@deepseek-ai/dsh-tools'
import { createBridge, type SubCallSuspension } from './bridge'
import { checkPtcRunState, PTC_REPLAY_DIVERGED, PTC_STATE_VERSION, Replayer, type PtcRunState, type SubCallDecision } from './replay'
import { RUN_LIMIT_KEYS, validateLimits } from './limits'
import { renderRunOutput } from './render'
import { accessor } from './runtime/host-call'
import { createQuickJsRuntime } from './runtime/quickjs'
import type { CodeLanguageFlavour, CodeRuntime, RunLimits } from './runtime/types'
import { generateSdk, type SdkTool } from './sdk'
import { coreSuspension } from './core-suspension'

const CORE_SUSPENSION = coreSuspension()

/** The name of the one tool the model sees under PTC. */
export const RUN_CODE = 'run_code'

/** Configuration of the PTC executor. */
export interface PtcExecutorConfig {
  /** Sub-calls that are parallel-safe overlap up to this bound (integer 1–1000, default 10). */
  readonly maxParallelSubCalls?: number
  /** Model-direct `run_code` calls of one batch overlap up to this bound (integer 1–1000, default 1: programs run one at a time). */
  readonly maxParallelRuns?: number
  /** Sandbox limits (compute ms, wall ms, memory bytes, output bytes, value bytes, sub-calls, stack bytes); see `RunLimits` and `DEFAULT_RUN_LIMITS`. */
  readonly limits?: Partial<RunLimits>
  /**
   * The runtime; default: TypeScript type-stripped with esbuild, run in QuickJS (WebAssembly).
   * Its `flavour` (when it has one) supplies the SDK and the `run_code` texts, e.g. the Python
   * runtime of `@deepseek-ai/dsh-code-runtime-python`; a given runtime is not disposed by the executor.
   */
  readonly runtime?: CodeRuntime
  /** Declarative deadline of `run_code` in ms (enforced when the timeout policy is mounted). */
  readonly timeoutMs?: number
  /**
   * Whether the `PtcExecutor` plugin pays the runtime's start-up (the default runtime: engine
   * worker boot, WebAssembly compile, a warm-up program with sub-calls and a wait of at most
   * 300 ms for V8's background compilation, ~0.3–1 s once per process, see
   * `QuickJsCodeRuntime.warmUp`; a given runtime: its `warmUp`, when it has one) at plugin start
   * instead of on the first `run_code`. Default `true`.
   */
  readonly warmUp?: boolean
  /**
   * Suspension of programs whose sub-call approval is deferred (see {@link PtcSuspension} and
   * `replay.ts`). Absent: {@link coreSuspension}, for the `run_code` calls of a batch that can
   * suspend (`ctx.tools.executeSuspendable`, `ctx.tools.resume`); in any other batch a deferred
   * sub-call fails closed and programs never suspend.
   */
  readonly suspension?: PtcSuspension
}

/**
 * Where the PTC executor meets the core's suspension API: the sub-call hooks of
 * {@link SubCallSuspension}, plus how a `run_code` call learns it is being resumed and how its
 * body ends when its program suspends.
 */
export interface PtcSuspension extends SubCallSuspension {
  /** The state and decisions when `exec` (a `run_code` call) is being resumed; `undefined` for a first run. */
  resumeOf(exec: ToolExecution): { readonly state: unknown; readonly decisions: ReadonlyMap<string, SubCallDecision> } | undefined
  /**
   * Ends the body of `exec`, whose program suspended with `state` (pending sub-calls in
   * `state.pending`); `deferred` holds the registry's descriptions of the calls deferred in this
   * run (what `submit` returned). Must throw.
   */
  suspend(state: PtcRunState, exec: ToolExecution, deferred: readonly unknown[]): never
}

/** The fields of {@link PtcExecutorConfig}, in the order an unknown-key message lists them. */
const PTC_CONFIG_KEYS = ['maxParallelSubCalls', 'maxParallelRuns', 'limits', 'runtime', 'timeoutMs', 'warmUp', 'suspension'] as const satisfies readonly (keyof PtcExecutorConfig)[]

/** The PTC executor: a {@link ToolExecutor} whose runtime can be started ahead of the first run. */
export interface PtcToolExecutor extends ToolExecutor {
  /**
   * Starts the runtime (the default one, or a given one with a `warmUp` method) and compiles the
   * `run_code` argument validator, so the first `run_code` is fast.
   */
  warmUp(): Promise<void>
}

/**
 * The canonical value of a `run_code` call (execution-local; the model sees the rendering):
 * `{ logs: string[], value?: JsonValue, notes?: string[] }` — the printed lines, the returned
 * value, and the notes on work the program left pending (cancelled), when there were any.
 */
export type RunCodeValue = JsonObject

/** The `run_code` parameters JSON Schema (both fields required). */
export const RUN_CODE_PARAMETERS = Object.freeze({
  type: 'object',
  properties: {
    code: {
      type: 'string',
      description:
        'The program: TypeScript or JavaScript run as the body of an async function. Use top-level await to call tools (`await tools.name(args)`), console.log to print, and return a value. Only the printed lines and the returned value come back to you.',
    },
    description: { type: 'string', description: 'A short label for what this program does (a few words, shown to the user).' },
  },
  required: ['code', 'description'],
  additionalProperties: false,
})

/** The model-facing description of `run_code`. */
export const RUN_CODE_DESCRIPTION =
  'Run a program that calls the tools of the SDK described in the system prompt and returns only its output. Both `code` (the program) and `description` (a short label) are required. Batch many tool calls in one program, filter and aggregate their results in code, and print or return only what you need.'

/**
 * The TypeScript flavour: {@link generateSdk}, {@link RUN_CODE_DESCRIPTION} and the `code`
 * description of {@link RUN_CODE_PARAMETERS}. Used for every runtime without a `flavour`.
 */
export const TYPESCRIPT_FLAVOUR: CodeLanguageFlavour = Object.freeze({
  renderSdk: generateSdk,
  runCodeDescription: RUN_CODE_DESCRIPTION,
  codeDescription: RUN_CODE_PARAMETERS.properties.code.description,
  callExample: (name: string) => `await ${accessor(name)}(args)`,
})

/** The `run_code` parameters of `flavour` ({@link RUN_CODE_PARAMETERS} itself for the TypeScript one). */
function runCodeParameters(flavour: CodeLanguageFlavour): typeof RUN_CODE_PARAMETERS {
  if (flavour.codeDescription === RUN_CODE_PARAMETERS.properties.code.description) return RUN_CODE_PARAMETERS
  return Object.freeze({
    ...RUN_CODE_PARAMETERS,
    properties: { ...RUN_CODE_PARAMETERS.properties, code: { type: 'string', description: flavour.codeDescription } },
  })
}

/** The SDK view of the definitions (schemas from `schemas` when given, else the definitions'). */
function sdkTools(definitions: readonly AnyToolDefinition[], schemas?: readonly ToolSchema[]): SdkTool[] {
  return definitions.map((d, i) => ({ name: d.name, description: d.description, parameters: schemas?.[i]?.parameters ?? d.parameters, outputSchema: d.output.schema }))
}

/**
 * Refuses a `runtime` that is not a {@link CodeRuntime} (checked when the executor is made, not
 * at the first `run_code`, where it would fail every call): `language` and `isolation` strings,
 * a `run` function, and when present a `warmUp` function and a `flavour` with `renderSdk` and
 * `callExample` functions and `runCodeDescription` and `codeDescription` strings. The text names
 * the first bad field and shows its value (`…: flavour must be an object, got "python"`).
 */
function checkRuntime(runtime: unknown): void {
  const fail = (field: string, kind: string, value: unknown): never => {
    throw new RangeError(`runtime must be a CodeRuntime ({ language, isolation, run(input), flavour?, warmUp?() }): ${field === '' ? '' : `${field} `}must be ${kind}, got ${showConfigValue(value)}`)
  }
  if (runtime === null || typeof runtime !== 'object' || Array.isArray(runtime)) fail('', 'an object', runtime)
  const r = runtime as Record<string, unknown>
  if (typeof r.run !== 'function') fail('run', 'a function', r.run)
  if (typeof r.language !== 'string') fail('language', 'a string', r.language)
  if (typeof r.isolation !== 'string') fail('isolation', 'a string', r.isolation)
  if (r.warmUp !== undefined && typeof r.warmUp !== 'function') fail('warmUp', 'a function', r.warmUp)
  const flavour = r.flavour
  if (flavour === undefined) return
  if (flavour === null || typeof flavour !== 'object' || Array.isArray(flavour)) fail('flavour', 'an object ({ renderSdk(tools), runCodeDescription, codeDescription, callExample(name) })', flavour)
  const f = flavour as Record<string, unknown>
  if (typeof f.renderSdk !== 'function') fail('flavour.renderSdk', 'a function', f.renderSdk)
  if (typeof f.runCodeDescription !== 'string') fail('flavour.runCodeDescription', 'a string', f.runCodeDescription)
  if (typeof f.codeDescription !== 'string') fail('flavour.codeDescription', 'a string', f.codeDescription)
  if (typeof f.callExample !== 'function') fail('flavour.callExample', 'a function', f.callExample)
}

/**
 * The checked resume input of a `run_code` call, `undefined` for a first run.
 *
 * @throws ToolError `PTC_STATE_INVALID` naming the field for a state that is not a
 *   {@link PtcRunState}, of another language, or of another program.
 */
function resumeInput(suspension: PtcSuspension | undefined, exec: ToolExecution, program: string, language: string): { state: PtcRunState; decisions: ReadonlyMap<string, SubCallDecision> } | undefined {
  const resumed = suspension?.resumeOf(exec)
  if (resumed === undefined) return undefined
  const problem = checkPtcRunState(resumed.state)
  if (problem !== undefined) throw new ToolError('PTC_STATE_INVALID', `the run_code state is malformed: ${problem}`)
  const state = resumed.state as PtcRunState
  if (state.language !== language) throw new ToolError('PTC_STATE_INVALID', `the run_code state is for a ${state.language} runtime, this executor runs ${language}`)
  if (state.program !== program) throw new ToolError('PTC_STATE_INVALID', 'the run_code state holds another program than the call being resumed')
  return { state, decisions: resumed.decisions }
}

/**
 * Creates a PTC executor. Mount it with `ctx.tools.mount(createPtcExecutor(config))` or use the
 * `PtcExecutor` plugin.
 *
 * @throws RangeError naming the field for an invalid `maxParallelSubCalls`, `maxParallelRuns`,
 *   `timeoutMs`, `warmUp` (not a boolean: `warmUp must be a boolean, got "no"`), `runtime`
 *   (not a `CodeRuntime`: `runtime must be a CodeRuntime ({ language, isolation, run(input),
 *   flavour?, warmUp?() }): run must be a function, got undefined`, naming the first bad field
 *   and its value) or limit; for
 *   an unknown key, here or in `limits` (`ptc executor config: /limits/wallMS is not a known
 *   option (expected computeMs, …; did you mean "wallMs"?)`); and for a config or `limits` that
 *   is not an object (`ptc executor config: /limits must be an object, got 5`).
 */
export function createPtcExecutor(config: PtcExecutorConfig = {}): PtcToolExecutor {
  checkConfigObject('ptc executor config', config, PTC_CONFIG_KEYS)
  if (config.limits !== undefined) checkConfigObject('ptc executor config', config.limits, RUN_LIMIT_KEYS, '/limits')
  const maxParallelSubCalls = validateMaxParallel(config.maxParallelSubCalls, 'maxParallelSubCalls')
  const maxParallelRuns = validateMaxParallel(config.maxParallelRuns ?? 1, 'maxParallelRuns')
  const limits = validateLimits(config.limits ?? {})
  if (config.timeoutMs !== undefined && (!Number.isFinite(config.timeoutMs) || config.timeoutMs <= 0 || config.timeoutMs > MAX_TIMER_MS)) {
    throw new RangeError(`timeoutMs must be a positive finite number of ms up to ${MAX_TIMER_MS}, got ${showConfigValue(config.timeoutMs)}`)
  }
  if (config.warmUp !== undefined && typeof config.warmUp !== 'boolean') throw new RangeError(`warmUp must be a boolean, got ${showConfigValue(config.warmUp)}`)
  if (config.runtime !== undefined) checkRuntime(config.runtime)
  if (config.suspension !== undefined) {
    const s = config.suspension as unknown as Record<string, unknown> | null
    for (const key of ['runnerOptions', 'submit', 'resumeOf', 'suspend']) {
      if (s === null || typeof s !== 'object' || typeof s[key] !== 'function') {
        throw new RangeError(`suspension must be a PtcSuspension ({ runnerOptions, submit, resumeOf, suspend }): ${key} must be a function, got ${showConfigValue(s?.[key])}`)
      }
    }
  }
  const ownRuntime = config.runtime === undefined ? createQuickJsRuntime() : undefined
  const runtime: CodeRuntime = config.runtime ?? ownRuntime!
  const flavour = runtime.flavour ?? TYPESCRIPT_FLAVOUR
  const parameters = runCodeParameters(flavour)
  const runCodeSchema: ToolSchema = Object.freeze({ name: RUN_CODE, description: flavour.runCodeDescription, parameters })
  let sdkCache: { key: readonly AnyToolDefinition[]; text: string } | undefined

  const sdkFor = (definitions: readonly AnyToolDefinition[], schemas?: readonly ToolSchema[]): string => {
    const cached = sdkCache
    if (cached !== undefined && cached.key.length === definitions.length && cached.key.every((d, i) => d === definitions[i])) return cached.text
    const text = flavour.renderSdk(sdkTools(definitions, schemas))
    sdkCache = { key: [...definitions], text }
    return text
  }

  const runCode = (batch: ExecutorBatch): ToolDefinition<{ code: string; description: string }, RunCodeValue> => ({
    name: RUN_CODE,
    description: flavour.runCodeDescription,
    parameters,
    source: 'dsl',
    // In a durable batch the program runs in the workflow: each sub-call is a journaled step of its own.
    durability: 'workflow',
    ...(config.timeoutMs === undefined ? {} : { timeoutMs: config.timeoutMs }),
    isConcurrencySafe: () => maxParallelRuns > 1,
    output: {
      schema: {},
      render: (_args, value) => [{ type: 'text', text: renderRunOutput(value as { logs: string[]; value?: JsonValue; notes?: string[] }).text }],
    },
    async execute(args, exec): Promise<RunCodeValue> {
      if (exec.signal.aborted) throw exec.signal.reason
      const definitions = batch.definitions()
      // The registry's suspension when the batch can suspend (`exec.suspension`), unless the config brings its own.
      const suspension = config.suspension ?? (exec.suspension === undefined ? undefined : CORE_SUSPENSION)
      const resumed = resumeInput(suspension, exec, args.code, runtime.language)
      const replay = resumed === undefined ? undefined : new Replayer(resumed.state, resumed.decisions)
      const bridge = createBridge({
        exec,
        pipeline: batch.pipeline,
        definitions,
        toolSet: batch.toolSet,
        maxParallelSubCalls,
        ...(replay === undefined ? {} : { replay }),
        ...(suspension === undefined ? {} : { suspension }),
        ...(resumed === undefined ? {} : { decisions: resumed.decisions }),
        suspendable: runtime.suspendable === true,
      })
      let output
      try {
        output = await runtime.run({
          program: args.code,
          bindings: bridge.bindings,
          signal: bridge.signal,
          limits,
          onSettle: () => bridge.abort(),
          tools: sdkTools(definitions),
          ...(resumed === undefined ? {} : { determinism: resumed.state.determinism }),
        })
      } finally {
        await bridge.settle()
      }
      const kind = output.error?.kind
      const divergence = bridge.divergence() ?? (replay !== undefined && (kind === undefined || kind === 'exception') ? replay.unfinished() : undefined)
      if (divergence !== undefined && !exec.signal.aborted) throw new ToolError(PTC_REPLAY_DIVERGED, divergence)
      if (output.suspended !== undefined && suspension !== undefined) {
        const state: PtcRunState = { version: PTC_STATE_VERSION, language: runtime.language, program: args.code, journal: [...bridge.journal], pending: [...bridge.pending], determinism: output.suspended.determinism }
        suspension.suspend(state, exec, bridge.deferred)
      }
      if (output.error !== undefined) {
        if (output.error.kind === 'abort' && exec.signal.aborted) throw exec.signal.reason
        const rendered = renderRunOutput(output).text
        throw new ToolError('CODE_RUN_FAILED', rendered.startsWith('Error: ') ? rendered.slice('Error: '.length) : rendered)
      }
      const value: RunCodeValue = output.value === undefined ? { logs: [...output.logs] } : { logs: [...output.logs], value: output.value }
      if (output.notes !== undefined && output.notes.length > 0) value['notes'] = [...output.notes]
      return value
    },
  })

  return {
    name: 'ptc',
    async warmUp() {
      // The `run_code` argument validator too: ajv compiles it on first use (2–5 ms).
      getValidator(parameters)({ code: '', description: '' })
      await runtime.warmUp?.(limits.memoryBytes)
    },
    /** Unmounting releases the default runtime's idle workers and WebAssembly instances. */
    dispose() {
      ownRuntime?.dispose()
    },
    describe(input: DescribeInput): ExecutorDescription {
      return {
        tools: [runCodeSchema],
        sections: [{ id: 'ptc/sdk', title: 'Tool SDK for run_code', text: sdkFor(input.definitions, input.schemas) }],
      }
    },
    execute(batch: ExecutorBatch): Promise<readonly ToolResult[]> {
      let definition: ToolDefinition<{ code: string; description: string }, RunCodeValue> | undefined
      return batch.pipeline.runBatch(batch, {
        maxParallel: maxParallelRuns,
        local: (name) => (name === RUN_CODE ? (definition ??= runCode(batch)) : undefined),
        // Programs call tools by their registry names (the SDK's); `run_code` is named as the model
        // saw it: `shown` is the pipeline's name under the batch's nameMap (`run_code` itself
        // without a map, or when the map does not rename it or answers no name; a throwing map is
        // reported with stage `nameMap`, like the pipeline's own texts).
        admit: (name, known, shown) =>
          known
            ? `Tools are called from programs in this mode: call ${shown(RUN_CODE)} with a program that does \`${flavour.callExample(name, batch.definitions().map((d) => d.name))}\`.`
            : `Available tools: ${shown(RUN_CODE)}`,
      })
    },
  }
}
