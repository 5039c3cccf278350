/**
 * Turns what a parser collected into a {@link ParsedToolCalls}: unique call ids, names mapped
 * back, the cut decision (bug case B22, emissions E10/E11), leaked-markup recovery (E19) and
 * the assistant turn.
 */
import { deepFreeze, quoteText, type JsonValue, type RawToolCall } from '@deepseek-ai/dsh-tools'
import { classifyArguments } from './arguments'
import { detectLeakedMarkup } from './markup'
import { recoverTextCalls } from './recover'
import type { AssistantPart, CallIdChange, FinishInfo, FinishKind, ParseIssue, ParseOptions, ParsedToolCalls, RecoveredCall, TruncatedCall, WireProvider } from './types'

/** A call as a parser collected it. */
export interface PendingCall {
  /** The id as emitted (anything: checked here). */
  readonly id: unknown
  /** JSON pointer of the id field in the emission. */
  readonly idPointer: string
  /** The provider-side name. */
  readonly wireName: string
  readonly arguments: string | JsonValue
  /**
   * For object arguments (no text to inspect): whether this call may have been the one being
   * written when an output limit hit (the last block of an Anthropic response).
   */
  readonly lastAtLimit?: boolean
  /** Replaces the `missing <field>; minted one` issue (the legacy `function_call`). */
  readonly missingNote?: string
  /** The Responses item id, kept for the assistant turn. */
  readonly itemId?: string
  /** Gemini's `thoughtSignature` on the call's part. */
  readonly signature?: string
  /** The call's arguments are known to be incomplete (a streamed call whose announced parts never came). */
  readonly incomplete?: boolean
}

/** A part of the assistant turn as a parser collected it; calls refer to `calls` by index. */
export type DraftPart = Exclude<AssistantPart, { type: 'call' }> | { readonly type: 'call'; readonly index: number }

/** What {@link finalizeCalls} needs besides the calls. */
export interface FinalizeInput {
  readonly provider: WireProvider
  readonly calls: readonly PendingCall[]
  readonly text: string
  readonly reasoning?: string
  /** The turn in emission order; absent: reasoning, then text, then the calls. */
  readonly parts?: readonly DraftPart[]
  readonly finish: FinishInfo
  /** The provider's name for its finish field, for messages (`finish_reason`, `stop_reason`, …). */
  readonly finishField: string
  /** The provider's name for its id field, for issues (`call id`, `tool_use id`, …). */
  readonly idField: string
  /** Prefix of minted ids (`call_`, `toolu_`, `gemini_call_`). */
  readonly mintPrefix: string
  /** `suffix` (default): a repeated id becomes `<id>_2`; `mint`: it gets a minted id (Gemini). */
  readonly duplicates?: 'suffix' | 'mint'
  /** Whether a missing id is an issue (not for Gemini, which usually sends none). */
  readonly reportMissing?: boolean
  readonly issues: readonly ParseIssue[]
  readonly options?: ParseOptions | undefined
}

/** Prefix of ids minted for calls recovered from text (`text_call_0`, …). */
export const RECOVERED_CALL_ID_PREFIX = 'text_call_'

/**
 * Decides the status and builds the parse result. The response is cut when the finish is an
 * output limit, when a stream ended without a finish (`missing`), or when any call's argument
 * text is an incomplete JSON prefix whatever the finish says (a translating proxy may relabel
 * `length` as `tool_use`: emission E11, a response cut mid-arguments). A cut response executes nothing. A response without
 * structured calls whose text carries tool-call markup is `recovered` or `malformed-markup`
 * (emission E19: calls written as text instead of structured calls) unless `options.recoverMarkup` is `false`.
 */
export function finalizeCalls(input: FinalizeInput): ParsedToolCalls {
  const { provider, finish } = input
  const nameMap = input.options?.nameMap
  const issues: ParseIssue[] = [...input.issues]
  const callIdChanges: CallIdChange[] = []
  const ids = assignCallIds(input, issues, callIdChanges)
  const states = input.calls.map((call, i) => {
    if (call.incomplete === true) return 'incomplete'
    if (typeof call.arguments === 'string') {
      const state = classifyArguments(call.arguments)
      // '' at the very end of a limit-cut response: the arguments never started.
      if (state === 'empty' && (finish.kind === 'length' || finish.kind === 'missing') && i === input.calls.length - 1) return 'incomplete'
      return state
    }
    return call.lastAtLimit === true && finish.kind === 'length' ? 'incomplete' : 'complete'
  })
  const cut = finish.kind === 'length' || finish.kind === 'missing' || states.includes('incomplete')
  const leakedMarkup = input.calls.length === 0 ? detectLeakedMarkup(input.text) : []
  const reasoning = input.reasoning ?? ''
  const drafts: readonly DraftPart[] = input.parts ?? [
    ...(reasoning !== '' ? [{ type: 'reasoning' as const, text: reasoning }] : []),
    ...(input.text !== '' ? [{ type: 'text' as const, text: input.text }] : []),
    ...input.calls.map((_, index) => ({ type: 'call' as const, index })),
  ]
  const nameOf = (wire: string): string => (nameMap ? nameMap.toOriginal(wire) : wire)
  const callPart = (call: PendingCall, i: number): AssistantPart => ({
    type: 'call',
    callId: ids[i] as string,
    wireName: call.wireName,
    arguments: call.arguments,
    ...(typeof call.id === 'string' && call.id !== '' ? { emittedId: call.id } : {}),
    ...(call.itemId !== undefined ? { itemId: call.itemId } : {}),
    ...(call.signature !== undefined ? { signature: call.signature } : {}),
  })
  const base = {
    provider,
    text: input.text,
    reasoning,
    finish: { ...finish },
    leakedMarkup,
    issues,
    callIdChanges,
    turn: drafts.map((part): AssistantPart => (part.type === 'call' ? callPart(input.calls[part.index] as PendingCall, part.index) : part)),
  }

  if (!cut && leakedMarkup.length > 0 && input.options?.recoverMarkup !== false) {
    const recovery = recoverTextCalls(input.text)
    const withoutText = base.turn.filter((part) => part.type !== 'text')
    if (recovery.errors.length > 0 || recovery.calls.length === 0) {
      // Stray tokens only (e.g. a lone harmony `<|call|>`): still markup, still not an answer.
      const markupErrors =
        recovery.errors.length > 0 ? recovery.errors : leakedMarkup.map((leak) => ({ marker: leak.marker, offset: leak.offset, message: `${leak.marker} markup near ${quoteText(leak.excerpt)} holds no complete tool call` }))
      return deepFreeze({ ...base, status: 'malformed-markup' as const, calls: [] as const, truncated: [] as const, markupErrors })
    }
    const used = new Set<string>()
    const recovered: RecoveredCall[] = []
    const calls: RawToolCall[] = []
    const turn: AssistantPart[] = [...withoutText, ...(recovery.prose !== '' ? [{ type: 'text' as const, text: recovery.prose }] : [])]
    recovery.calls.forEach((call, i) => {
      const callId = mintCallId(RECOVERED_CALL_ID_PREFIX, i, used)
      recovered.push({ callId, marker: call.marker, offset: call.offset, end: call.end })
      calls.push({ callId, name: nameOf(call.name), arguments: call.arguments })
      turn.push({ type: 'call', callId, wireName: call.name, arguments: JSON.stringify(call.arguments) })
    })
    return deepFreeze({ ...base, turn, status: 'recovered' as const, calls, truncated: [] as const, recovered })
  }

  if (!cut) {
    const calls: RawToolCall[] = input.calls.map((call, i) => ({ callId: ids[i] as string, name: nameOf(call.wireName), arguments: call.arguments }))
    return deepFreeze({ ...base, status: 'complete' as const, calls, truncated: [] as const })
  }
  const evidence = describeFinish(finish, input.finishField)
  const truncated: TruncatedCall[] = input.calls.map((call, i) => {
    const name = nameOf(call.wireName)
    const incomplete = states[i] === 'incomplete'
    // The model reads the message: it names the tool as the model emitted it (the provider name).
    const shown = quoteText(call.wireName)
    const message = incomplete
      ? `arguments were truncated at the model's output limit: the JSON arguments of ${shown} end before the value is complete (${evidence}${
          finish.kind === 'length' || finish.kind === 'missing' ? '' : ', but the JSON is incomplete'
        }), so the call was not executed. Re-issue the call with shorter arguments, for example by splitting large content across several calls.`
      : `the response was cut at the model's output limit (${evidence}) before the batch of tool calls was complete, so this call to ${shown} was not executed although its arguments were complete. Re-issue the call.`
    return { callId: ids[i] as string, name, arguments: call.arguments, reason: incomplete ? ('arguments-incomplete' as const) : ('response-cut' as const), message }
  })
  return deepFreeze({ ...base, status: 'truncated' as const, calls: [] as const, truncated })
}

/**
 * One unique id per call (see {@link CallIdChange}): an emitted id is kept the first time;
 * a repeat becomes `<id>_<n>` (or a minted id for `duplicates: 'mint'`), a missing one is
 * minted; new ids skip every id present in the response.
 */
function assignCallIds(input: FinalizeInput, issues: ParseIssue[], changes: CallIdChange[]): string[] {
  const emittedOf = (id: unknown): string | undefined => (typeof id === 'string' && id !== '' ? id : undefined)
  // Every emitted id, then every new id as it is made: a new id never collides with either.
  const taken = new Set<string>()
  for (const call of input.calls) {
    const id = emittedOf(call.id)
    if (id !== undefined) taken.add(id)
  }
  const kept = new Set<string>()
  return input.calls.map((call, index) => {
    const emitted = emittedOf(call.id)
    if (emitted !== undefined && !kept.has(emitted)) {
      kept.add(emitted)
      return emitted
    }
    let callId: string
    if (emitted === undefined || input.duplicates === 'mint') {
      callId = mintCallId(input.mintPrefix, index, taken)
    } else {
      let n = 2
      while (taken.has(`${emitted}_${n}`)) n++
      callId = `${emitted}_${n}`
      taken.add(callId)
    }
    if (emitted === undefined) {
      if (call.missingNote !== undefined) issues.push({ pointer: call.idPointer, message: call.missingNote })
      else if (input.reportMissing !== false) issues.push({ pointer: call.idPointer, message: `missing ${input.idField}; minted one` })
    } else {
      issues.push({ pointer: call.idPointer, message: `duplicate ${input.idField} ${quoteText(emitted)}; this call is ${quoteText(callId)} in the batch, its result and the assistant turn` })
    }
    changes.push({ index, pointer: call.idPointer, emitted, callId, reason: emitted === undefined ? 'missing' : 'duplicate' })
    return callId
  })
}

function describeFinish(finish: FinishInfo, field: string): string {
  if (finish.kind === 'missing') return 'the stream ended without a finish reason'
  return finish.raw === undefined ? `no ${field}` : `${field} ${JSON.stringify(finish.raw)}`
}

/**
 * The normalized finish of a provider's finish-reason string: `kinds` maps each known reason to
 * its kind, an unknown one is `other`; a missing reason is `other` without `raw`.
 */
export function finishFromTable(reason: string | null | undefined, kinds: ReadonlyMap<string, FinishKind>): FinishInfo {
  if (typeof reason !== 'string') return { kind: 'other' }
  return { kind: kinds.get(reason) ?? 'other', raw: reason }
}

/** Mints `<prefix><n>` for the first n from `index` not in `used`, and adds it to `used`. */
export function mintCallId(prefix: string, index: number, used: Set<string>): string {
  let n = index
  while (used.has(`${prefix}${n}`)) n++
  const id = `${prefix}${n}`
  used.add(id)
  return id
}
