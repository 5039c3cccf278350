/**
 * The shared per-call stages (docs/design.md, "Packages"; docs/design.md, "The batch and the pipeline"):
 *
 *   prepare → tools/pre-execute → guards → tools/execute (wrappers → body) → output validation
 *   → render → tools/post-execute → finalizeContent → tools/result
 *
 * Each stage is a named function that runs at most once per call. The batch runner
 * (`batch.ts`) decides when each stage runs; this file decides what it does.
 */
import type {
  AnyToolDefinition,
  ApprovalService,
  ContentBlock,
  DraftResult,
  JsonObject,
  JsonSchemaNode,
  JsonValue,
  PolicyDecision,
  PostDecision,
  RawToolCall,
  ResultContext,
  Scope,
  SessionLog,
  Agent,
  ToolErrorCode,
  ToolErrorInfo,
  ToolExecution,
  ToolGuard,
  ToolResult,
  ToolResultMeta,
} from './contracts'
import type { ResolvedToolSet } from './executor'
import type { ToolResultEvent } from './events'
import {
  describeThrown,
  errorContent,
  infoFromThrown,
  isAbortLike,
  typeLabel,
  messages,
  quoteText,
} from './errors'
import { snapshotJson, type JsonProblem } from './json'
import { copyPlain, freezeParsedArguments } from './json-freeze'
import { walkJson } from './json-walk'
import { formatIssues } from './json-schema'
import { FoundTool } from './found-tool'
import { repairArguments, type RepairModes } from './repair'
import { capContent, type ContentLimits } from './content'
import { isThenable, runOnce, runRepeatable, type Listener } from './chains'
import { fuseSignals } from './signals'
import type { AbortWatch } from './abort-watch'
import { capMessage, capPointer } from './limits'
import type { UnknownKeysMode } from './unknown-keys'
import { findUnsafeIntegers, stripInvisibleEdges, substituteDigits, withUnsafeIntegers, type UnsafeInteger } from './argument-text'
import { checkProgress, ProgressChannel, type ToolProgress, type ToolProgressEvent } from './progress'

export type { Listener } from './chains'

/** Scope-filtered listeners and guards for one scope, collected once per runner. */
export interface StageHooks {
  readonly pre: readonly Listener[]
  readonly execute: readonly Listener[]
  readonly post: readonly Listener[]
  readonly result: readonly Listener[]
  readonly progress: readonly Listener[]
  readonly guards: readonly ToolGuard[]
  readonly approval: ApprovalService | undefined
}

/** What the registry supplies to the stages. */
export interface PipelineHost {
  /** The executable definition for `name` in `scope` under `toolSet`, or the names a model may call instead. */
  lookup(name: string, scope: Scope, toolSet: ResolvedToolSet | undefined): FoundTool | { readonly available: readonly string[] }
  hooks(scope: Scope): StageHooks
  readonly config: PipelineConfig
  /** Reports a contained failure (a throwing `tools/result` listener, a log append). */
  report(stage: string, error: unknown): void
}

/** Registry-level pipeline configuration (validated by the registry). */
export interface PipelineConfig {
  /** Raw argument strings longer than this many UTF-8 bytes are rejected before parsing. Default 1 MiB. */
  readonly maxArgumentBytes: number
  /** Opt-in schema-guided argument repair; all modes off by default. */
  readonly repair: RepairModes
  /** Model-facing content caps applied to rendered results (bug case B18: one huge result must not flood the context). */
  readonly contentLimits: ContentLimits
  /** Whether input schemas that say nothing about extra keys are closed at registration. */
  readonly unknownKeys: UnknownKeysMode
  /** Minimum spacing of two `tools/progress` events of one call, in ms (`0`: no throttling). Default 100. */
  readonly progressIntervalMs: number
}

/** The per-runner context every stage sees. */
export interface RunContext {
  readonly host: PipelineHost
  readonly hooks: StageHooks
  readonly scope: Scope
  readonly agent: Agent | undefined
  readonly log: SessionLog | undefined
  readonly toolSet: ResolvedToolSet | undefined
  readonly signal: AbortSignal
  /** `signal.aborted` for the per-call checks, a plain field while the runner's batch runs (`abort-watch.ts`). */
  readonly abort: AbortWatch
  readonly parent: ToolExecution | undefined
  readonly batchId: string | undefined
  readonly admit: ((name: string, known: boolean) => string | undefined) | undefined
  readonly local: ((name: string) => AnyToolDefinition | undefined) | undefined
}

/** The execution view; `signal` is writable only while the `tools/execute` stage runs. */
class Execution implements ToolExecution {
  readonly callId: string
  readonly name: string
  readonly arguments: Readonly<JsonObject>
  readonly rawArguments: string | JsonValue
  readonly definition: AnyToolDefinition
  readonly scope: Scope
  readonly agent?: Agent
  readonly log?: SessionLog
  readonly parent?: ToolExecution
  readonly batchId?: string
  #signal: AbortSignal
  /** Created on first read: most calls never need one (a `Symbol()` per call costs ~5 % of a trivial call). */
  #token: symbol | undefined
  readonly #run: RunContext
  /** Created on the first delivered report; `null` once closed. */
  #progress: ProgressChannel | null | undefined
  /** Set by the pipeline around the `tools/execute` stage. */
  writable = false
  /** Contexts the body attached. */
  attached: ResultContext[] | undefined
  /** What `annotate` recorded (read once, when the result is built). */
  annotations: Map<string, JsonValue> | undefined

  constructor(call: RawToolCall, args: Readonly<JsonObject>, definition: AnyToolDefinition, run: RunContext) {
    this.callId = call.callId
    this.name = call.name
    this.arguments = args
    this.rawArguments = call.arguments
    this.definition = definition
    this.scope = run.scope
    if (run.agent !== undefined) this.agent = run.agent
    if (run.log !== undefined) this.log = run.log
    if (run.parent !== undefined) this.parent = run.parent
    if (run.batchId !== undefined) this.batchId = run.batchId
    this.#signal = run.signal
    this.#token = undefined
    this.#run = run
  }

  get token(): symbol {
    return (this.#token ??= Symbol(this.callId))
  }

  reportProgress(update: ToolProgress): void {
    const checked = checkProgress(this.name, update)
    let channel = this.#progress
    if (channel === null) return
    if (channel === undefined) {
      const run = this.#run
      if (run.hooks.progress.length === 0) return
      channel = this.#progress = new ProgressChannel(this, {
        listeners: run.hooks.progress as readonly ((event: ToolProgressEvent) => unknown)[],
        intervalMs: run.host.config.progressIntervalMs,
        report: (error) => run.host.report('tools/progress', error),
      })
    }
    channel.report(checked)
  }

  annotate(key: string, value: JsonValue): void {
    if (typeof key !== 'string' || key === '') throw new TypeError(`annotate on "${this.name}" takes a non-empty string key, got ${typeof key === 'string' ? 'an empty string' : typeLabel(key)}`)
    const snap = snapshotJson(value)
    if (!snap.ok) throw new TypeError(`annotate("${key}") on "${this.name}": ${describeProblem(snap.problem)}`)
    ;(this.annotations ??= new Map()).set(key, snap.value)
  }

  /** Delivers a pending progress update and ignores later reports (the body settled). */
  closeProgress(): void {
    this.#progress?.close()
    this.#progress = null
  }

  get signal(): AbortSignal {
    return this.#signal
  }

  attachContext(context: ResultContext): void {
    if (!isContext(context)) throw new TypeError(`attachContext on "${this.name}" takes { source: string, content: ContentBlock[] }`)
    ;(this.attached ??= []).push(freezeContext(context))
  }

  set signal(value: AbortSignal) {
    if (!this.writable) throw new TypeError(`exec.signal of "${this.name}" can only be replaced inside a tools/execute wrapper`)
    if (!(value instanceof AbortSignal)) throw new TypeError(`exec.signal of "${this.name}" must be an AbortSignal`)
    this.#signal = value
  }
}

/** A failure before an execution view existed, or at any later stage. */
interface Failure {
  readonly message: string
  readonly info: ToolErrorInfo
}

/** The per-call state the stages pass along. */
export interface CallState {
  readonly index: number
  readonly call: RawToolCall
  /** `finalizeContent` snapshotted at prepare. */
  finalize: AnyToolDefinition['finalizeContent'] | undefined
  /** The resolved tool once prepare found it: its definition, its arguments' JSON Schema and its validators. */
  tool: FoundTool | undefined
  exec: Execution | undefined
  parallel: boolean
  /** Set once the call reached stage 2 (post-execute runs for it). */
  reachedPolicy: boolean
  /** Set by the runner once the call's dispatch stage ended (or the call never needed one). */
  dispatched: boolean
  repairs: readonly string[] | undefined
  draft: Draft | undefined
}

/** A draft outcome. */
export type Draft =
  | { readonly isError: false; readonly value: JsonValue; readonly content: readonly ContentBlock[]; readonly contexts?: readonly ResultContext[] }
  | { readonly isError: true; readonly failure: Failure; readonly content: readonly ContentBlock[]; readonly contexts?: readonly ResultContext[] }

const EMPTY_OBJECT: Readonly<JsonObject> = Object.freeze({})
const NO_UNSAFE: readonly UnsafeInteger[] = Object.freeze([])
/** Codes after which a body's output (values, attached contexts) never reaches the model. */
const CANCELLED: ReadonlySet<string> = new Set(['ABORTED', 'ABORTED_BEFORE_DISPATCH', 'TOOL_TIMEOUT'])
const ALLOW: PolicyDecision = Object.freeze({ type: 'allow' })
const ACCEPT: PostDecision = Object.freeze({ type: 'accept' })
/** Shared resolved promises of the default decisions, handed out by the innermost `next()`. */
const ALLOW_PROMISE: Promise<PolicyDecision> = Promise.resolve(ALLOW)
const ACCEPT_PROMISE: Promise<PostDecision> = Promise.resolve(ACCEPT)

function fail(code: ToolErrorCode, message: string, name = 'ToolError', reason?: string): Draft {
  const info: ToolErrorInfo = reason === undefined ? { name, code } : { name, code, reason }
  return failFromInfo(message, info)
}

/**
 * Every failure message is capped here, so `error.message` and the content agree: at
 * `MAX_ERROR_MESSAGE_CHARS` for the pipeline's own texts and policy texts, at `max` for a
 * thrown error's message (see {@link thrownCap}).
 */
function failFromInfo(message: string, info: ToolErrorInfo, max?: number): Draft {
  const capped = capMessage(message, max)
  return { isError: true, failure: { message: capped, info }, content: errorContent(capped) }
}

/**
 * The cap of a thrown error's message: the content cap of successful results
 * (`contentLimits.maxChars`, default 25,000; `0` disables it), since a body's own error text —
 * a PTC run's captured output, a command's stderr — is that tool's output.
 */
function thrownCap(run: RunContext): number {
  const max = run.host.config.contentLimits.maxChars
  return max === 0 ? Number.POSITIVE_INFINITY : max
}

/**
 * A policy outcome (denial, unanswered ask, rejected approval): `message` may be the author's
 * text, so the tool's name travels in `info.toolName`. An author-supplied `info` wins, with
 * `toolName` added when it has none.
 */
function policyOutcome(tool: string, message: string, name: string, reason?: string, info?: ToolErrorInfo): Draft {
  return failFromInfo(message, policyInfo(tool, info, reason === undefined ? { name, code: 'TOOL_DENIED' } : { name, code: 'TOOL_DENIED', reason }))
}

/** A policy author's `info` (with `toolName` added when it has none), or the library's with `toolName`. */
function policyInfo(tool: string, authored: ToolErrorInfo | undefined, fallback: ToolErrorInfo): ToolErrorInfo {
  if (authored !== undefined) return authored.toolName === undefined ? { ...authored, toolName: tool } : authored
  return { ...fallback, toolName: tool }
}

/** The cancellation drafts: identical for every call, so shared (drafts are never mutated). */
const ABORTED_BEFORE: Draft = Object.freeze(fail('ABORTED_BEFORE_DISPATCH', messages.abortedBeforeDispatch()))
const ABORTED_DRAFT: Draft = Object.freeze(fail('ABORTED', messages.aborted()))

/** A throwing or malformed policy, guard or approval: fails closed with `code`. */
function policyError(code: 'TOOL_DENIED' | 'TOOL_BLOCKED', tool: string, stage: string, problem: string): Draft {
  return fail(code, messages.policyFailed(tool, stage, problem), 'PolicyError')
}

/** `<pointer> <message>` of a value that is not lossless JSON (`(root)` for the root; long pointers elided). */
function describeProblem(problem: JsonProblem): string {
  return `${problem.pointer === '' ? '(root)' : capPointer(problem.pointer)} ${problem.message}`
}

/** Frozen copies {@link normalizeEntry} took of object arguments: prepare need not copy them again. */
const SUBMITTED_SNAPSHOTS = new WeakSet<object>()

/**
 * A batch entry {@link normalizeEntry} found malformed: the call that stands in for it (its
 * result's `callId`) and what is wrong with it. A well-formed entry is its call alone, with no
 * wrapper object per call.
 */
export class MalformedEntry {
  constructor(
    readonly call: RawToolCall,
    readonly problem: string,
  ) {}
}

/** Normalises a raw batch entry to its call; a malformed one becomes a {@link MalformedEntry} (`lookUp` turns it into an `INVALID_ARGS` draft). */
export function normalizeEntry(entry: unknown, index: number): RawToolCall | MalformedEntry {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
    return new MalformedEntry({ callId: `invalid-call-${index}`, name: '', arguments: '' }, `expected an object with callId, name and arguments, got ${typeLabel(entry)}`)
  }
  const record = entry as Record<string, unknown>
  const callId = typeof record.callId === 'string' && record.callId !== '' ? record.callId : undefined
  const name = typeof record.name === 'string' ? record.name : undefined
  let args = record.arguments === undefined ? '' : record.arguments
  if (args !== null && typeof args === 'object') {
    // Arguments the provider sent as an object: the caller still holds it, so the call keeps a
    // frozen copy taken now — the session log, `exec.rawArguments`, observers and the body all
    // see what was submitted. A value that is not lossless JSON stays as given: prepare names
    // its problem (`INVALID_ARGS`).
    const snap = snapshotJson(args)
    if (snap.ok) {
      args = snap.value
      if (snap.value !== null && typeof snap.value === 'object') SUBMITTED_SNAPSHOTS.add(snap.value)
    }
  }
  const call: RawToolCall = { callId: callId ?? `invalid-call-${index}`, name: name ?? '', arguments: args as string | JsonValue }
  if (callId === undefined) return new MalformedEntry(call, `callId must be a non-empty string, got ${typeLabel(record.callId)}`)
  if (name === undefined) return new MalformedEntry(call, `name must be a string, got ${typeLabel(record.name)}`)
  return call
}

/** JSON.parse messages that mean the text ended early rather than being malformed (bug case B22). */
function isTruncation(parseError: string, raw: string): boolean {
  if (parseError.includes('Unexpected end of JSON input') || parseError.startsWith('Unterminated string')) return true
  const at = /at position (\d+)/.exec(parseError)
  return at !== null && Number(at[1]) >= raw.trimEnd().length
}

/**
 * Stage 1 — prepare, in three steps: {@link lookUp} resolves the tool, {@link createState}
 * makes the call's state, and {@link prepareArguments} parses, snapshots, validates and checks
 * the arguments and the caller's signal. The runner looks a batch's calls up at submission and
 * prepares each call's arguments when it reaches policy (docs/pipeline.md, "Ordering").
 *
 * This step resolves a normalised call's tool in the scope (and pinned tool set). Returns the
 * tool, or the failure draft of a malformed entry (`problem`, from {@link normalizeEntry}) or an
 * unknown tool.
 */
export function lookUp(call: RawToolCall, problem: string | undefined, index: number, run: RunContext): FoundTool | Draft {
  if (problem !== undefined) return fail('INVALID_ARGS', messages.malformedCall(index, problem))
  const localDefinition = run.local?.(call.name)
  const found = localDefinition !== undefined ? new FoundTool(localDefinition, localDefinition.parameters) : run.host.lookup(call.name, run.scope, run.toolSet)
  const hint = localDefinition === undefined ? run.admit?.(call.name, 'definition' in found) : undefined
  if (!('definition' in found)) return fail('UNKNOWN_TOOL', hint === undefined ? messages.unknownTool(call.name, found.available) : messages.unknownTool(call.name, [], hint))
  if (hint !== undefined) return fail('UNKNOWN_TOOL', messages.unknownTool(call.name, [], hint))
  return found
}

/** The state of call `index`: failed with {@link lookUp}'s draft, or holding the found tool (then {@link prepareArguments} must run before policy). */
export function createState(call: RawToolCall, index: number, found: FoundTool | Draft): CallState {
  // Every field from the start: one object shape for every call (no transitions as stages fill it).
  if ('definition' in found) {
    return { index, call, finalize: found.definition.finalizeContent, tool: found, exec: undefined, parallel: false, reachedPolicy: false, dispatched: false, repairs: undefined, draft: undefined }
  }
  return { index, call, finalize: undefined, tool: undefined, exec: undefined, parallel: false, reachedPolicy: false, dispatched: false, repairs: undefined, draft: found }
}

/**
 * The second half of stage 1, for a state whose tool {@link lookUp} found: parse, snapshot, validate
 * and check the arguments, then — unless `aborted` (whether the caller's signal had aborted
 * when the call was submitted) — create the call's execution. Sets `state.draft` on failure.
 */
export function prepareArguments(state: CallState, run: RunContext, aborted: boolean): void {
  const definition = state.tool!.definition
  const call = state.call
  const name = definition.name

  // Parse.
  let args: unknown
  let parsed = false
  /** The JSON text parsed (`parsed`): the arguments without tolerated invisible edges. */
  let raw = ''
  let unsafe: readonly UnsafeInteger[] = NO_UNSAFE
  if (typeof call.arguments === 'string') {
    const limit = run.host.config.maxArgumentBytes
    const given = call.arguments
    if (given.length > limit || (given.length * 3 > limit && Buffer.byteLength(given) > limit)) {
      state.draft = fail('INVALID_ARGS', messages.argumentsTooLarge(name, Buffer.byteLength(given), limit))
      return
    }
    // A byte-order mark or zero-width space around the JSON is tolerated and noted (meta.repairs).
    raw = given
    // The common text starts with `{` and ends with `}`: nothing to strip, nothing blank.
    if (given.charCodeAt(0) !== 0x7b || given.charCodeAt(given.length - 1) !== 0x7d) {
      const stripped = stripInvisibleEdges(given)
      raw = stripped.text
      if (stripped.notes.length > 0) state.repairs = stripped.notes
    }
    if (raw.charCodeAt(0) !== 0x7b && raw.trim() === '') args = EMPTY_OBJECT
    else {
      try {
        args = JSON.parse(raw)
        parsed = true
      } catch (error) {
        const problem = describeThrown(error)
        state.draft = fail('INVALID_ARGS', isTruncation(problem, raw) ? messages.argumentsTruncated(name, raw.length) : messages.argumentsNotJson(name, problem))
        return
      }
    }
  } else args = call.arguments
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    state.draft = fail('INVALID_ARGS', messages.argumentsNotObject(name, typeLabel(args)))
    return
  }
  // Lossless snapshot and deep freeze (a fresh JSON.parse result is frozen in place).
  if (parsed) {
    // Integers JSON.parse rounded: their exact digits go in as strings; validation decides. The
    // freeze stops at the first number beyond ±MAX_SAFE_INTEGER (±Infinity included: 309 digits
    // parse to it), and only then is the text scanned for such integer literals (a number like
    // 1e20 is one too, but no literal's; nor is one whose duplicate key JSON.parse overrode).
    let frozen = freezeParsedArguments(args, false)
    if (frozen === 'unsafe-number') {
      const found = findUnsafeIntegers(raw)
      if (found.length > 0) unsafe = substituteDigits(args as JsonValue, found)
      frozen = freezeParsedArguments(args, true)
    }
    if (frozen !== 'frozen') {
      // The full walk names the problem (a non-finite number, nesting past the limit).
      const snap = snapshotJson(args, { copy: false })
      if (!snap.ok) {
        state.draft = fail('INVALID_ARGS', messages.argumentsNotLossless(name, describeProblem(snap.problem)))
        return
      }
    }
  } else if (args !== EMPTY_OBJECT && !SUBMITTED_SNAPSHOTS.has(args)) {
    const snap = snapshotJson(args, { copy: true })
    if (!snap.ok) {
      state.draft = fail('INVALID_ARGS', messages.argumentsNotLossless(name, describeProblem(snap.problem)))
      return
    }
    args = snap.value
  }

  // Validate (and, when enabled, repair then re-validate).
  if (definition.validateArguments !== false) {
    const validate = state.tool!.argumentsValidator()
    let issues = validate(args)
    if (issues.length > 0) {
      const modes = run.host.config.repair
      if (modes.jsonStrings === true || modes.numericStrings === true || modes.nullAsAbsent === true) {
        const repaired = repairArguments(state.tool!.parameters, args as JsonValue, modes)
        if (repaired.repairs.length > 0) {
          issues = validate(repaired.value)
          if (issues.length === 0) {
            const snap = snapshotJson(repaired.value)
            if (!snap.ok) {
              // A repair decoded something JSON cannot carry (e.g. 1e999): never run on it.
              state.draft = fail('INVALID_ARGS', messages.argumentsNotLossless(name, describeProblem(snap.problem)))
              return
            }
            args = snap.value
            state.repairs = state.repairs === undefined ? repaired.repairs : [...state.repairs, ...repaired.repairs]
          }
        }
      }
      if (issues.length > 0) {
        state.draft = fail('INVALID_ARGS', messages.argumentsInvalid(name, formatIssues(unsafe.length === 0 ? issues : withUnsafeIntegers(issues, unsafe))))
        return
      }
    }
  } else if (unsafe.length > 0) {
    // No schema to say a string is welcome there: never pass a rounded or retyped number.
    state.draft = fail('INVALID_ARGS', messages.argumentsInvalid(name, formatIssues(withUnsafeIntegers([], unsafe, true))))
    return
  }

  if (definition.checkArguments !== undefined) {
    let problem: string | undefined
    try {
      problem = definition.checkArguments(args as Readonly<JsonObject>)
    } catch (error) {
      // The tool's own validator broke: its defect, not something the model can fix.
      state.draft = fail('TOOL_FAILED', messages.argumentCheckFailed(name, describeThrown(error)))
      return
    }
    if (problem !== undefined) {
      state.draft = fail('INVALID_ARGS', messages.argumentsInvalid(name, problem))
      return
    }
  }

  if (aborted) {
    state.draft = ABORTED_BEFORE
    return
  }

  const frozenArgs = args as Readonly<JsonObject>
  state.exec = new Execution(call, frozenArgs, definition, run)
  try {
    state.parallel = definition.isConcurrencySafe?.(frozenArgs) === true
  } catch {
    state.parallel = false
  }
}

function isDecision(value: unknown): value is PolicyDecision {
  if (value === null || typeof value !== 'object') return false
  const d = value as { type?: unknown; reason?: unknown }
  return d.type === 'allow' || (d.type === 'deny' && typeof d.reason === 'string') || (d.type === 'ask' && (d.reason === undefined || typeof d.reason === 'string'))
}

/**
 * Stage 2 — policy: the `tools/pre-execute` waterfall (allow / deny / ask → approval), then the
 * monotonic guards. Sets `state.draft` when the call must not dispatch. Never throws or rejects.
 *
 * Returns `undefined` when the stage finished synchronously (no listener, or every listener
 * answered without waiting), else a promise of its end.
 */
export function policy(state: CallState, run: RunContext): void | Promise<void> {
  const exec = state.exec!
  state.reachedPolicy = true
  if (run.hooks.pre.length === 0) return decide(state, run, ALLOW)
  let raw: unknown
  try {
    raw = runOnce(run.hooks.pre, [exec], ALLOW, ALLOW_PROMISE)
  } catch (error) {
    preExecuteFailed(state, error)
    return
  }
  if (!isThenable(raw)) return decide(state, run, raw)
  return Promise.resolve(raw).then((decision) => decide(state, run, decision), (error: unknown) => preExecuteFailed(state, error))
}

/** A `tools/pre-execute` listener threw or rejected: the call fails closed. */
function preExecuteFailed(state: CallState, error: unknown): void {
  state.draft = policyError('TOOL_DENIED', state.exec!.name, 'tools/pre-execute', describeThrown(error))
}

/** The rest of stage 2 once the waterfall answered `raw`. */
function decide(state: CallState, run: RunContext, raw: unknown): void | Promise<void> {
  const name = state.exec!.name
  if (!isDecision(raw)) {
    state.draft = policyError('TOOL_DENIED', name, 'tools/pre-execute', `a tools/pre-execute listener returned ${describeValue(raw)} instead of allow, deny or ask`)
    return
  }
  const decision = raw
  if (decision.type === 'deny') {
    state.draft = policyOutcome(name, messages.denied(name, decision.reason), 'PolicyDenied', undefined, decision.info)
    return
  }
  if (run.abort.isAborted) {
    state.draft = ABORTED_BEFORE
    return
  }
  if (decision.type === 'ask') return ask(state, run, decision.reason)
  guard(state, run)
}

/** An `ask` decision: the approval service answers, then the guards run. */
async function ask(state: CallState, run: RunContext, reason: string | undefined): Promise<void> {
  const exec = state.exec!
  const name = exec.name
  const approval = run.hooks.approval
  if (approval === undefined) {
    state.draft = policyOutcome(name, messages.askWithoutApproval(name, reason), 'PolicyDenied', reason === undefined ? undefined : 'no approval service is available')
    return
  }
  try {
    const answer = await approval.request(reason === undefined ? { exec, signal: run.signal } : { exec, reason, signal: run.signal })
    // A rejection is a denial and stays more specific than a concurrent abort.
    if (answer?.type !== 'approve') {
      const rejection = answer?.type === 'reject' ? answer.reason : undefined
      state.draft = policyOutcome(name, messages.approvalRejected(name, rejection), 'ApprovalRejected', rejection)
      return
    }
    if (run.abort.isAborted) {
      state.draft = ABORTED_BEFORE
      return
    }
  } catch (error) {
    if (run.abort.isAborted) state.draft = ABORTED_BEFORE
    else state.draft = policyError('TOOL_DENIED', name, 'approval', describeThrown(error))
    return
  }
  guard(state, run)
}

/** The monotonic guards (synchronous), then a last look at the caller's signal. */
function guard(state: CallState, run: RunContext): void {
  const exec = state.exec!
  const name = exec.name
  for (const guard of run.hooks.guards) {
    let verdict: unknown
    try {
      verdict = guard(exec)
    } catch (error) {
      state.draft = policyError('TOOL_DENIED', name, 'guard', describeThrown(error))
      return
    }
    if (verdict === undefined) continue
    if (typeof verdict === 'string') {
      state.draft = policyOutcome(name, messages.denied(name, verdict), 'GuardDenied')
      return
    }
    // Guards are synchronous: anything else (a promise from an async guard) fails closed.
    if (isThenable(verdict)) verdict.then(undefined, (error: unknown) => run.host.report('guard', error))
    state.draft = policyError('TOOL_DENIED', name, 'guard', `a guard returned ${isThenable(verdict) ? 'a promise (guards must be synchronous)' : describeValue(verdict)} instead of a string or undefined`)
    return
  }
  // A guard may have aborted the caller; with none, the signal was read just before (decide).
  if (run.hooks.guards.length > 0 && run.abort.isAborted) state.draft = ABORTED_BEFORE
}

/** Contains a listener's or log's asynchronous failure: it is reported, never unhandled. */
function contain(value: unknown, host: PipelineHost, stage: string): void {
  if (isThenable(value)) value.then(undefined, (error: unknown) => host.report(stage, error))
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'undefined'
  if (value !== null && typeof value === 'object' && 'type' in value) return `{ type: ${JSON.stringify((value as { type: unknown }).type)} }`
  return typeLabel(value)
}

function isContent(value: unknown): value is readonly ContentBlock[] {
  if (!Array.isArray(value)) return false
  for (const block of value) {
    if (block === null || typeof block !== 'object') return false
    const b = block as { type?: unknown; text?: unknown; data?: unknown; mimeType?: unknown }
    if (b.type === 'text') {
      if (typeof b.text !== 'string') return false
    } else if (b.type === 'image') {
      if (typeof b.data !== 'string' || typeof b.mimeType !== 'string') return false
    } else return false
  }
  return true
}

function isContext(value: unknown): value is ResultContext {
  return value !== null && typeof value === 'object' && typeof (value as { source?: unknown }).source === 'string' && isContent((value as { content?: unknown }).content)
}

function freezeContext(context: ResultContext): ResultContext {
  return Object.freeze({ source: context.source, content: freezeContent(context.content) })
}

function freezeContent(content: readonly ContentBlock[]): readonly ContentBlock[] {
  if (Object.isFrozen(content) && content.every((b) => Object.isFrozen(b))) return content
  const out = new Array<ContentBlock>(content.length)
  for (let i = 0; i < content.length; i++) out[i] = frozenBlock(content[i]!)
  return Object.freeze(out)
}

/**
 * A frozen copy of one block. The common `{ type: 'text', text }` (those two own enumerable
 * string keys, in that order, nothing enumerable inherited) is rebuilt as a literal, which V8
 * copies and freezes in about half the time of the generic {@link shallowCopy}; any other block
 * is copied as it is. Own symbol keys are not looked at: such a block loses them (the generic
 * copy keeps them). Checking for them (`Object.getOwnPropertySymbols`) costs more than the
 * literal saves; a symbol is no content the model can see.
 */
function frozenBlock(block: ContentBlock): ContentBlock {
  if (block.type === 'text') {
    let keys = 0
    for (const key in block) {
      if (keys === 0 ? key !== 'type' : keys !== 1 || key !== 'text') {
        keys = -1
        break
      }
      keys++
    }
    if (keys === 2) return Object.freeze({ type: 'text', text: block.text })
  }
  return Object.freeze(shallowCopy(block))
}

/**
 * `{ ...value }` for objects about to be frozen: `Object.freeze` of a spread copy is ~15× slower
 * in V8 than of an `Object.assign` copy (docs/benchmarks.md, "Optimisations"). An own
 * `__proto__` key keeps the spread, which defines it as data where `Object.assign` would set the
 * prototype.
 */
function shallowCopy<T extends object>(value: T): T {
  return Object.hasOwn(value, '__proto__') ? { ...value } : Object.assign({}, value)
}

const BLOCKED_INFO: ToolErrorInfo = Object.freeze({ name: 'PolicyBlocked', code: 'TOOL_BLOCKED' })

/** Why a body's `undefined` is not a result when its output schema does not admit `null`. */
const NO_VALUE_PROBLEM = '(root) is undefined: the body returned nothing, and the output schema does not admit null'

/**
 * Validates, freezes and renders a canonical value. Returns a success or failure draft.
 * Results follow JSON: an `undefined` object member is dropped, an `undefined` array element is
 * `null`, and a root `undefined` (a body that returned nothing) is `null` when the output
 * schema admits `null` — the work happened, so it is a success (rendered as the tool renders
 * `null`; the default raw rendering shows `(no output)`).
 */
function settleValue(state: CallState, value: unknown, run: RunContext): Draft {
  const exec = state.exec!
  const definition = exec.definition
  const name = definition.name
  const validate = state.tool!.outputValidator()
  let frozen: JsonValue
  if (value === undefined) {
    if (validate !== null && validate(null).length > 0) return fail('INVALID_TOOL_OUTPUT', messages.invalidOutput(name, NO_VALUE_PROBLEM))
    frozen = null
  } else {
    // What snapshotJson(value, { dropUndefined: true }) does, without its options and result
    // objects on the common path: plain JSON is copied in one lean pass; anything else goes to
    // the full walk, which copies what it can and names the problem (each getter read as often).
    let copied: JsonValue | undefined
    try {
      copied = copyPlain(value, 0, true)
    } catch {
      copied = undefined
    }
    if (copied === undefined) {
      const snap = walkJson(value, true, true)
      if (!snap.ok) return fail('INVALID_TOOL_OUTPUT', messages.invalidOutput(name, describeProblem(snap.problem)))
      frozen = snap.value
    } else frozen = copied
    if (validate !== null) {
      const issues = validate(frozen)
      if (issues.length > 0) return fail('INVALID_TOOL_OUTPUT', messages.invalidOutput(name, formatIssues(issues)))
    }
  }
  let content: unknown
  try {
    content = definition.projectContent?.(exec.arguments, frozen, exec) ?? definition.output.render(exec.arguments, frozen)
  } catch (error) {
    return fail('TOOL_FAILED', messages.renderFailed(name, describeThrown(error)))
  }
  if (!isContent(content)) return fail('TOOL_FAILED', messages.renderFailed(name, 'render must return an array of text or image blocks'))
  return { isError: false, value: frozen, content: freezeContent(capContent(content, run.host.config.contentLimits)) }
}

/**
 * Stage 3 — dispatch: the `tools/execute` waterfall around the body, then output validation and
 * rendering. The caller's signal is re-fused before the body. Never throws or rejects.
 *
 * Returns `false` when the stage finished synchronously (a synchronous body and wrappers that
 * did not wait); else `true`, and `end` is called once the stage has ended, from the callback
 * that settled it (no promise of its own: the runner goes on in the same microtask).
 */
export function dispatch(state: CallState, run: RunContext, end: DispatchEnd): boolean {
  const waiting = dispatchBody(state, run, end)
  // A body that waited keeps its contexts in the callback that settled it (one promise, not two).
  if (!waiting) keepContexts(state)
  return waiting
}

/**
 * How {@link dispatch} reports the end of a stage that waited: `defect` tells whether settling
 * it hit a defect (never expected), then `error` is what was thrown.
 */
export type DispatchEnd = (state: CallState, defect: boolean, error: unknown) => void

/** Closes the call's progress channel and attaches the contexts the body attached, unless the call was cancelled or timed out. */
function keepContexts(state: CallState): void {
  state.exec?.closeProgress()
  const attached = state.exec?.attached
  const draft = state.draft
  // Nothing a cancelled or timed-out body produced reaches the model, contexts included.
  if (attached !== undefined && draft !== undefined && !(draft.isError && CANCELLED.has(draft.failure.info.code))) {
    state.draft = { ...draft, contexts: Object.freeze([...attached]) }
  }
}

function dispatchBody(state: CallState, run: RunContext, end: DispatchEnd): boolean {
  const exec = state.exec!
  const caller = run.signal
  if (run.abort.isAborted) {
    state.draft = ABORTED_BEFORE
    return false
  }
  if (run.hooks.execute.length === 0) {
    // No wrapper: nothing can replace the signal, the body runs at once on the execution view.
    let out: unknown
    try {
      out = exec.definition.execute(exec.arguments, exec)
    } catch (error) {
      bodyFailed(state, run, caller, error, true)
      return false
    }
    if (isThenable(out)) {
      settleWhenDone(out, state, run, caller, STARTED, end)
      return true
    }
    bodyReturned(state, run, out, true)
    return false
  }
  let bodyStarted = false
  // Returns the body's value, or a thenable of it; throws what the body throws.
  const body = (): unknown => {
    if (run.abort.isAborted) throw bodyStarted ? (caller.reason as unknown) : new AbortedBeforeBody()
    const current = exec.signal
    // A wrapper replaced the signal (a deadline): the body's signal follows it and the caller's.
    const fused = current === caller ? undefined : fuseSignals(current, caller)
    bodyStarted = true
    const view: ToolExecution = fused === undefined ? exec : withSignal(exec, fused.signal)
    // Only wrappers may replace the signal: the body sees it read-only.
    exec.writable = false
    let out: unknown
    try {
      out = exec.definition.execute(exec.arguments, view)
    } catch (error) {
      fused?.dispose()
      exec.writable = true
      throw error
    }
    if (isThenable(out)) {
      return Promise.resolve(out).finally(() => {
        fused?.dispose()
        exec.writable = true
      })
    }
    fused?.dispose()
    exec.writable = true
    return out
  }
  let out: unknown
  exec.writable = true
  try {
    out = runRepeatable(run.hooks.execute, exec, body)
  } catch (error) {
    bodyFailed(state, run, caller, error, bodyStarted)
    return false
  }
  if (isThenable(out)) {
    settleWhenDone(out, state, run, caller, () => bodyStarted, end)
    return true
  }
  bodyReturned(state, run, out, bodyStarted)
  return false
}

const STARTED = (): boolean => true

/**
 * Settles the call when the `tools/execute` stage's thenable does: the draft, then the contexts
 * the body attached, then `end`, in one callback (one promise per waiting call). `started`
 * tells, at that moment, whether the body had started.
 */
function settleWhenDone(out: PromiseLike<unknown>, state: CallState, run: RunContext, caller: AbortSignal, started: () => boolean, end: DispatchEnd): void {
  void Promise.resolve(out).then(
    (value) => {
      try {
        bodyReturned(state, run, value, started())
        keepContexts(state)
      } catch (error) {
        end(state, true, error)
        return
      }
      end(state, false, undefined)
    },
    (error: unknown) => {
      try {
        bodyFailed(state, run, caller, error, started())
        keepContexts(state)
      } catch (defect) {
        end(state, true, defect)
        return
      }
      end(state, false, undefined)
    },
  )
}

/** The `tools/execute` stage threw or rejected with `error`. */
function bodyFailed(state: CallState, run: RunContext, caller: AbortSignal, error: unknown, bodyStarted: boolean): void {
  state.exec!.writable = false
  if (error instanceof AbortedBeforeBody || (!bodyStarted && caller.aborted && isAbortLike(error, caller))) {
    state.draft = ABORTED_BEFORE
  } else if (caller.aborted && isAbortLike(error, caller)) {
    state.draft = ABORTED_DRAFT
  } else if (isAbortLike(error, undefined)) {
    // The body's own operation was cancelled (its internal deadline, a closed stream): a cancellation, not a crash.
    state.draft = failFromInfo(describeThrown(error), { name: 'AbortError', code: 'ABORTED' }, thrownCap(run))
  } else {
    state.draft = failFromInfo(describeThrown(error), infoFromThrown(error, 'TOOL_FAILED'), thrownCap(run))
  }
}

/** The `tools/execute` stage returned `value`. */
function bodyReturned(state: CallState, run: RunContext, value: unknown, bodyStarted: boolean): void {
  const exec = state.exec!
  exec.writable = false
  if (run.abort.isAborted) {
    // Nothing a body returns after the abort reaches the model.
    state.draft = bodyStarted ? ABORTED_DRAFT : ABORTED_BEFORE
    return
  }
  state.draft = settleValue(state, value, run)
}

class AbortedBeforeBody extends Error {}

/** A read-only view of `exec` with another signal, for the body. */
function withSignal(exec: Execution, signal: AbortSignal): ToolExecution {
  // Assigned rather than spread (same keys, same order): see `shallowCopy`.
  const view: { -readonly [K in keyof ToolExecution]: ToolExecution[K] } = {
    callId: exec.callId,
    token: exec.token,
    name: exec.name,
    arguments: exec.arguments,
    rawArguments: exec.rawArguments,
    definition: exec.definition,
    scope: exec.scope,
    signal,
    attachContext: (context: ResultContext) => exec.attachContext(context),
    reportProgress: (update: ToolProgress) => exec.reportProgress(update),
    annotate: (key: string, value: JsonValue) => exec.annotate(key, value),
  }
  if (exec.agent !== undefined) view.agent = exec.agent
  if (exec.log !== undefined) view.log = exec.log
  if (exec.parent !== undefined) view.parent = exec.parent
  if (exec.batchId !== undefined) view.batchId = exec.batchId
  return Object.freeze(view)
}

function toDraftResult(draft: Draft): DraftResult {
  return draft.isError
    ? { isError: true, error: draft.failure, content: draft.content }
    : { isError: false, value: draft.value, content: draft.content }
}

function isPostDecision(value: unknown): value is PostDecision {
  if (value === null || typeof value !== 'object') return false
  const d = value as { type?: unknown; feedback?: unknown }
  return d.type === 'accept' || (d.type === 'block' && (typeof d.feedback === 'string' || isContent(d.feedback)))
}

/** The message of block feedback: text blocks joined with `\n`, any other block as `[<type> content]`. */
function feedbackMessage(feedback: readonly ContentBlock[]): string {
  return feedback.map((block) => (block.type === 'text' ? block.text : `[${block.type} content]`)).join('\n')
}

/**
 * A block: the feedback is the content, verbatim (a string is one text block) within the
 * content caps of rendered results; empty feedback gives the library message as `Error: …`
 * content. See `PostDecision`.
 */
function blockDraft(tool: string, feedback: string | readonly ContentBlock[], info: ToolErrorInfo | undefined, limits: ContentLimits): Draft {
  const blocks: readonly ContentBlock[] = typeof feedback === 'string' ? (feedback === '' ? [] : [{ type: 'text', text: feedback }]) : feedback
  const withTool = policyInfo(tool, info, BLOCKED_INFO)
  const message = feedbackMessage(blocks)
  if (message.trim() === '' && blocks.every((block) => block.type === 'text')) return failFromInfo(messages.blocked(tool), withTool)
  return { isError: true, failure: { message: capMessage(message), info: withTool }, content: freezeContent(capContent(blocks, limits)) }
}

/**
 * Stage 4 — post-execute: the `tools/post-execute` waterfall for every call that reached
 * stage 2 (denials included). Accept may replace content or value (never both); block turns
 * the outcome into a valueless `TOOL_BLOCKED` failure. Never throws or rejects.
 *
 * Returns `undefined` when the stage finished synchronously, else a promise of its end.
 */
export function postExecute(state: CallState, run: RunContext): void | Promise<void> {
  if (!state.reachedPolicy || run.hooks.post.length === 0) return
  const exec = state.exec!
  let raw: unknown
  try {
    raw = runOnce(run.hooks.post, [exec, toDraftResult(state.draft!)], ACCEPT, ACCEPT_PROMISE)
  } catch (error) {
    postExecuteFailed(state, error)
    return
  }
  if (!isThenable(raw)) return applyPost(state, run, raw)
  return Promise.resolve(raw).then((decision) => applyPost(state, run, decision), (error: unknown) => postExecuteFailed(state, error))
}

/** A `tools/post-execute` listener threw or rejected: the result is blocked. */
function postExecuteFailed(state: CallState, error: unknown): void {
  state.draft = policyError('TOOL_BLOCKED', state.exec!.name, 'tools/post-execute', describeThrown(error))
}

/** The rest of stage 4 once the waterfall answered `raw`. */
function applyPost(state: CallState, run: RunContext, raw: unknown): void {
  const exec = state.exec!
  const draft = state.draft!
  const name = exec.name
  if (!isPostDecision(raw)) {
    state.draft = policyError('TOOL_BLOCKED', name, 'tools/post-execute', `a tools/post-execute listener returned ${describeValue(raw)} instead of accept or block (with feedback: a string or content blocks)`)
    return
  }
  const decision = raw
  if (decision.type === 'block') {
    state.draft = blockDraft(name, decision.feedback, decision.info, run.host.config.contentLimits)
    return
  }
  const { content, value, contexts } = decision
  if (content !== undefined && value !== undefined) {
    state.draft = policyError('TOOL_BLOCKED', name, 'tools/post-execute', 'a decision may replace content or value, not both')
    return
  }
  let next: Draft = draft
  if (value !== undefined) {
    if (draft.isError) {
      state.draft = policyError('TOOL_BLOCKED', name, 'tools/post-execute', 'a failed call has no value to replace')
      return
    }
    next = settleValue(state, value, run)
    if (draft.contexts !== undefined) next = { ...next, contexts: draft.contexts }
  } else if (content !== undefined) {
    if (!isContent(content)) {
      state.draft = policyError('TOOL_BLOCKED', name, 'tools/post-execute', 'replacement content must be an array of text or image blocks')
      return
    }
    next = { ...draft, content: freezeContent(content) }
  }
  if (contexts !== undefined && (!Array.isArray(contexts) || !contexts.every(isContext))) {
    state.draft = policyError('TOOL_BLOCKED', name, 'tools/post-execute', 'contexts must be an array of { source: string, content: ContentBlock[] }')
    return
  }
  if (contexts !== undefined && contexts.length > 0) next = { ...next, contexts: Object.freeze([...(draft.contexts ?? []), ...contexts.map(freezeContext)]) }
  state.draft = next
}

/**
 * Stage 5 — finalize: the snapshotted `finalizeContent` exactly once, then the frozen result.
 * A throwing finalizer turns the outcome into a `TOOL_FAILED` failure (not finalized again).
 */
export function finalize(state: CallState): ToolResult {
  // A policy stage may have reported progress for a call that never dispatched: close it here too.
  state.exec?.closeProgress()
  let draft = state.draft!
  const finalizeContent = state.finalize
  if (finalizeContent !== undefined) {
    try {
      const content: unknown = finalizeContent.call(state.tool?.definition, draft.content, { callId: state.call.callId, toolName: state.call.name, isError: draft.isError })
      // `undefined` keeps the content: a finalizer may observe without transforming.
      if (content !== undefined) {
        if (!isContent(content)) throw new TypeError(`finalizeContent must return an array of text or image blocks, or undefined to keep the content (got ${describeValue(content)})`)
        draft = { ...draft, content: freezeContent(content) }
      }
    } catch (error) {
      draft = fail('TOOL_FAILED', messages.renderFailed(state.call.name, `finalizeContent threw: ${describeThrown(error)}`))
    }
  }
  const meta = resultMeta(state, draft)
  // Built as literals (same keys, same order) rather than by spreading: V8 makes object spread
  // of these shapes cost microseconds per result (docs/benchmarks.md, "Optimisations"). The
  // common success carries its metadata in the literal: a property added afterwards moves the
  // object to a new shape and an out-of-object property store, before the freeze.
  if (!draft.isError && draft.contexts === undefined && meta !== undefined) {
    return Object.freeze({ callId: state.call.callId, content: draft.content, isError: false, value: draft.value, meta }) as ToolResult
  }
  const result: Record<string, unknown> = draft.isError
    ? { callId: state.call.callId, content: draft.content, isError: true, error: Object.freeze({ message: draft.failure.message, info: Object.freeze(shallowCopy(draft.failure.info)) }) }
    : { callId: state.call.callId, content: draft.content, isError: false, value: draft.value }
  if (draft.contexts !== undefined) result.contexts = draft.contexts
  if (meta !== undefined) result.meta = meta
  return Object.freeze(result) as unknown as ToolResult
}

/** `{ toolName }` metadata shared by every result of a definition that records nothing else. */
const plainMeta = new WeakMap<AnyToolDefinition, ToolResultMeta>()

function resultMeta(state: CallState, draft: Draft): ToolResultMeta | undefined {
  const definition = state.tool?.definition
  if (definition === undefined) return undefined
  let presentation: JsonValue | undefined
  if (!draft.isError && definition.output.presentationMeta !== undefined && state.exec !== undefined) {
    try {
      const p = definition.output.presentationMeta(state.exec.arguments, draft.value)
      if (p !== undefined) {
        const snap = snapshotJson(p)
        if (snap.ok) presentation = snap.value
      }
    } catch {
      presentation = undefined
    }
  }
  const annotations = state.exec?.annotations
  if (presentation === undefined && state.repairs === undefined && annotations === undefined) {
    // The common case: only the tool name, one frozen object per definition.
    let plain = plainMeta.get(definition)
    if (plain === undefined) plainMeta.set(definition, (plain = Object.freeze({ toolName: definition.name })))
    return plain
  }
  // Assigned rather than spread (same keys, same order): see `shallowCopy`.
  const meta: { toolName: string; presentation?: JsonValue; repairs?: readonly string[]; annotations?: Readonly<Record<string, JsonValue>> } = { toolName: definition.name }
  if (presentation !== undefined) meta.presentation = presentation
  if (state.repairs !== undefined) meta.repairs = state.repairs
  if (annotations !== undefined) {
    // Detached: a late annotate() (after the result was built) changes nothing.
    meta.annotations = Object.freeze(Object.fromEntries(annotations))
    state.exec!.annotations = undefined
  }
  return Object.freeze(meta)
}

/** Stage 6 — observe: `tools/result` listeners (each throw contained) and the session log. */
export function observe(state: CallState, result: ToolResult, run: RunContext): void {
  if (run.hooks.result.length > 0) {
    const event: { -readonly [K in keyof ToolResultEvent]: ToolResultEvent[K] } = { call: state.call, scope: run.scope }
    if (state.exec !== undefined) event.exec = state.exec
    if (run.batchId !== undefined) event.batchId = run.batchId
    if (run.parent !== undefined) event.parent = run.parent
    for (const listener of run.hooks.result) {
      try {
        contain((listener as (r: ToolResult, e: ToolResultEvent) => unknown)(result, event), run.host, 'tools/result')
      } catch (error) {
        run.host.report('tools/result', error)
      }
    }
  }
  if (run.log !== undefined && run.parent === undefined) {
    try {
      appendLog(run.log, run.host, {
        type: 'tool/result',
        callId: result.callId,
        name: state.call.name,
        isError: result.isError,
        content: result.content,
        ...(result.isError ? { error: result.error } : {}),
        ...(result.meta?.presentation === undefined ? {} : { presentation: result.meta.presentation }),
      })
    } catch (error) {
      run.host.report('session log', error)
    }
  }
}

/** Appends to a session log; a throw or a rejected promise is reported, never propagated. */
export function appendLog(log: SessionLog, host: PipelineHost, event: Parameters<SessionLog['append']>[0]): void {
  try {
    contain(log.append(event), host, 'session log')
  } catch (error) {
    host.report('session log', error)
  }
}

function defectMessage(name: string, error: unknown): string {
  return capMessage(`Tool ${quoteText(name)} failed inside the pipeline: ${describeThrown(error)}`)
}

/** The state of a call whose prepare stage hit a defect: a `TOOL_FAILED` draft, nothing else runs. */
export function defectState(entry: unknown, index: number, error: unknown): CallState {
  const normalized = normalizeEntry(entry, index)
  const call = normalized instanceof MalformedEntry ? normalized.call : normalized
  return createState(call, index, failFromInfo(defectMessage(call.name, error), { name: 'InternalError', code: 'TOOL_FAILED' }))
}

/** The result of a call whose stages hit a defect (never expected; reported by the runner). */
export function internalFailure(state: CallState, error: unknown): ToolResult {
  const message = defectMessage(state.call.name, error)
  return Object.freeze({ callId: state.call.callId, isError: true, error: Object.freeze({ message, info: Object.freeze({ name: 'InternalError', code: 'TOOL_FAILED' }) }), content: errorContent(message) })
}
