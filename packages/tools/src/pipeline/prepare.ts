/**
 * Stage 1 — prepare (internal): a batch entry normalised to its call, the tool looked up, the
 * call's state created, and its arguments parsed, snapshotted, validated and checked.
 */
import type { JsonObject, JsonValue, RawToolCall } from '../contracts'
import { describeThrown, typeLabel, messages } from '../errors'
import { snapshotJson } from '../json'
import { freezeParsedArguments } from '../json-freeze'
import { formatIssues } from '../json-schema'
import { FoundTool } from '../found-tool'
import { repairArguments } from '../repair'
import { findUnsafeIntegers, stripInvisibleEdges, substituteDigits, withUnsafeIntegers, type UnsafeInteger } from '../argument-text'
import { ABORTED_BEFORE, describeProblem, fail } from './drafts'
import { Execution } from './execution'
import { shownName, shownNames } from './shown-name'
import type { CallState, Draft, RunContext } from './types'

const EMPTY_OBJECT: Readonly<JsonObject> = Object.freeze({})
const NO_UNSAFE: readonly UnsafeInteger[] = Object.freeze([])

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
  const found = localDefinition !== undefined ? new FoundTool(localDefinition, localDefinition.parameters) : lookUpInRegistry(call.name, run)
  const hint = localDefinition === undefined ? run.admit?.(call.name, 'definition' in found, (name) => shownName(name, run)) : undefined
  if (!('definition' in found)) return fail('UNKNOWN_TOOL', hint === undefined ? messages.unknownTool(shownName(call.name, run), shownNames(found.available, run)) : messages.unknownTool(shownName(call.name, run), [], hint))
  if (hint !== undefined) return fail('UNKNOWN_TOOL', messages.unknownTool(shownName(call.name, run), [], hint))
  return found
}

/**
 * `run.host.lookup` for the runner's scope and tool set, reusing the runner's last answer for the
 * same name while nothing it depends on changed: the registry's version (every registration,
 * disposal and restriction bumps it) and the set (until it is disposed). Only a found tool is kept.
 */
function lookUpInRegistry(name: string, run: RunContext): FoundTool | { readonly available: readonly string[] } {
  const set = run.toolSet
  const current = run.host.version === run.version && (set === undefined || !set.disposed)
  if (current && name === run.lastName) return run.lastFound!
  const found = run.host.lookup(name, run.scope, set)
  if (current && 'definition' in found) {
    run.lastName = name
    run.lastFound = found
  }
  return found
}

/**
 * With a resolved tool set: `undefined` while the set still admits the registration the call was
 * looked up as; once the set was disposed, or a restriction or same-name registration changed
 * what it admits, the call's `UNKNOWN_TOOL` draft — a call that has not started never runs a
 * tool its step's set no longer admits (docs/cancellation.md, "A step's tool set"). Without a
 * set (or for an executor-local definition) the tool found at submission stays the call's.
 */
export function revokedBySet(state: CallState, run: RunContext): Draft | undefined {
  const set = run.toolSet
  // Nothing changed since the runner was created (so since this call was looked up): still admitted.
  if (set === undefined || (!set.disposed && run.host.version === run.version)) return undefined
  const name = state.call.name
  if (run.local?.(name) !== undefined) return undefined
  const found = run.host.lookup(name, run.scope, set)
  if (found === state.tool) return undefined
  return fail('UNKNOWN_TOOL', messages.unknownTool(shownName(name, run), 'available' in found ? shownNames(found.available, run) : []))
}

/** The state of call `index`: failed with {@link lookUp}'s draft, or holding the found tool (then {@link prepareArguments} must run before policy). */
export function createState(call: RawToolCall, index: number, found: FoundTool | Draft): CallState {
  // Every field from the start: one object shape for every call (no transitions as stages fill it).
  if ('definition' in found) {
    return { index, call, finalize: found.definition.finalizeContent, tool: found, exec: undefined, parallel: false, reachedPolicy: false, dispatched: false, repairs: undefined, draft: undefined, prebuilt: undefined, writable: false, attached: undefined, annotations: undefined, suspended: undefined }
  }
  return { index, call, finalize: undefined, tool: undefined, exec: undefined, parallel: false, reachedPolicy: false, dispatched: false, repairs: undefined, draft: found, prebuilt: undefined, writable: false, attached: undefined, annotations: undefined, suspended: undefined }
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
  if (run.toolSet !== undefined) {
    const revoked = revokedBySet(state, run)
    if (revoked !== undefined) {
      state.draft = revoked
      return
    }
  }

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
      state.draft = fail('INVALID_ARGS', messages.argumentsTooLarge(shownName(name, run), Buffer.byteLength(given), limit))
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
        state.draft = fail('INVALID_ARGS', isTruncation(problem, raw) ? messages.argumentsTruncated(shownName(name, run), raw.length) : messages.argumentsNotJson(shownName(name, run), problem))
        return
      }
    }
  } else args = call.arguments
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    state.draft = fail('INVALID_ARGS', messages.argumentsNotObject(shownName(name, run), typeLabel(args)))
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
        state.draft = fail('INVALID_ARGS', messages.argumentsNotLossless(shownName(name, run), describeProblem(snap.problem)))
        return
      }
    }
  } else if (args !== EMPTY_OBJECT && !SUBMITTED_SNAPSHOTS.has(args)) {
    const snap = snapshotJson(args, { copy: true })
    if (!snap.ok) {
      state.draft = fail('INVALID_ARGS', messages.argumentsNotLossless(shownName(name, run), describeProblem(snap.problem)))
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
              state.draft = fail('INVALID_ARGS', messages.argumentsNotLossless(shownName(name, run), describeProblem(snap.problem)))
              return
            }
            args = snap.value
            state.repairs = state.repairs === undefined ? repaired.repairs : [...state.repairs, ...repaired.repairs]
          }
        }
      }
      if (issues.length > 0) {
        state.draft = fail('INVALID_ARGS', messages.argumentsInvalid(shownName(name, run), formatIssues(unsafe.length === 0 ? issues : withUnsafeIntegers(issues, unsafe))))
        return
      }
    }
  } else if (unsafe.length > 0) {
    // No schema to say a string is welcome there: never pass a rounded or retyped number.
    state.draft = fail('INVALID_ARGS', messages.argumentsInvalid(shownName(name, run), formatIssues(withUnsafeIntegers([], unsafe, true))))
    return
  }

  if (definition.checkArguments !== undefined) {
    let problem: string | undefined
    try {
      problem = definition.checkArguments(args as Readonly<JsonObject>)
    } catch (error) {
      // The tool's own validator broke: its defect, not something the model can fix.
      state.draft = fail('TOOL_FAILED', messages.argumentCheckFailed(shownName(name, run), describeThrown(error)))
      return
    }
    if (problem !== undefined) {
      state.draft = fail('INVALID_ARGS', messages.argumentsInvalid(shownName(name, run), problem))
      return
    }
  }

  if (aborted) {
    state.draft = ABORTED_BEFORE
    return
  }

  const frozenArgs = args as Readonly<JsonObject>
  state.exec = new Execution(state, frozenArgs, definition, run)
  try {
    state.parallel = definition.isConcurrencySafe?.(frozenArgs) === true
  } catch {
    state.parallel = false
  }
}
