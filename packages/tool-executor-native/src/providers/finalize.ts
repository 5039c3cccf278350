/**
 * Turns what a parser collected into a {@link ParsedToolCalls}: names mapped back, the cut
 * decision (bug case B22, emissions E10/E11) and leaked-markup detection (E19).
 */
import { deepFreeze, type JsonValue, type RawToolCall } from '@deepseek-ai/dsh-tools'
import { classifyArguments } from './arguments'
import { detectLeakedMarkup } from './markup'
import type { NameMap } from './names'
import type { FinishInfo, FinishKind, ParseIssue, ParsedToolCalls, TruncatedCall, WireProvider } from './types'

/** A call as a parser collected it. */
export interface PendingCall {
  readonly callId: string
  /** The provider-side name. */
  readonly wireName: string
  readonly arguments: string | JsonValue
  /**
   * For object arguments (no text to inspect): whether this call may have been the one being
   * written when an output limit hit (the last block of an Anthropic response).
   */
  readonly lastAtLimit?: boolean
}

/** What {@link finalizeCalls} needs besides the calls. */
export interface FinalizeInput {
  readonly provider: WireProvider
  readonly calls: readonly PendingCall[]
  readonly text: string
  readonly finish: FinishInfo
  /** The provider's name for its finish field, for messages (`finish_reason`, `stop_reason`, …). */
  readonly finishField: string
  readonly issues: readonly ParseIssue[]
  readonly nameMap?: NameMap | undefined
}

/**
 * Decides whether the response was cut and builds the parse result. The response is cut when
 * the finish is an output limit, when a stream ended without a finish (`missing`), or when any
 * call's argument text is an incomplete JSON prefix whatever the finish says (a translating
 * proxy may relabel `length` as `tool_use`: E11). A cut response executes nothing.
 */
export function finalizeCalls(input: FinalizeInput): ParsedToolCalls {
  const { provider, finish, nameMap } = input
  const states = input.calls.map((call, i) => {
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
  const base = {
    provider,
    text: input.text,
    finish: Object.freeze({ ...finish }),
    leakedMarkup: Object.freeze(leakedMarkup),
    issues: Object.freeze(input.issues.map((issue) => Object.freeze({ ...issue }))),
  }
  const nameOf = (wire: string): string => (nameMap ? nameMap.toOriginal(wire) : wire)
  if (!cut) {
    const calls: RawToolCall[] = input.calls.map((call) => Object.freeze({ callId: call.callId, name: nameOf(call.wireName), arguments: deepFreeze(call.arguments) }))
    return Object.freeze({ ...base, status: 'complete' as const, calls: Object.freeze(calls), truncated: Object.freeze([]) as readonly [] })
  }
  const evidence = describeFinish(finish, input.finishField)
  const truncated: TruncatedCall[] = input.calls.map((call, i) => {
    const name = nameOf(call.wireName)
    const incomplete = states[i] === 'incomplete'
    const message = incomplete
      ? `arguments were truncated at the model's output limit: the JSON arguments of ${JSON.stringify(name)} end before the value is complete (${evidence}${
          finish.kind === 'length' || finish.kind === 'missing' ? '' : ', but the JSON is incomplete'
        }), so the call was not executed. Re-issue the call with shorter arguments, for example by splitting large content across several calls.`
      : `the response was cut at the model's output limit (${evidence}) before the batch of tool calls was complete, so this call to ${JSON.stringify(name)} was not executed although its arguments were complete. Re-issue the call.`
    return Object.freeze({ callId: call.callId, name, arguments: deepFreeze(call.arguments), reason: incomplete ? ('arguments-incomplete' as const) : ('response-cut' as const), message })
  })
  return Object.freeze({ ...base, status: 'truncated' as const, calls: Object.freeze([]) as readonly [], truncated: Object.freeze(truncated) })
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

/**
 * The call id of an emitted call: `id` when it is a non-empty string (a repeat is kept, and
 * reported as `duplicate <field> "<id>"`), otherwise a {@link mintCallId} id (reported as
 * `missing <field>; minted one`). `field` names the provider's id field; `pointer` points at it.
 */
export function takeCallId(id: unknown, field: string, pointer: string, prefix: string, index: number, used: Set<string>, issues: ParseIssue[]): string {
  if (typeof id !== 'string' || id === '') {
    issues.push({ pointer, message: `missing ${field}; minted one` })
    return mintCallId(prefix, index, used)
  }
  if (used.has(id)) issues.push({ pointer, message: `duplicate ${field} ${JSON.stringify(id)}` })
  used.add(id)
  return id
}
