/**
 * Shared helpers of the assistant-turn builders: the parsed turn's parts, the text of a turn,
 * and call arguments as a string or an object, whichever the provider's history needs.
 */
import type { JsonObject, JsonValue } from '@deepseek-ai/dsh-tools'
import { classifyArguments, parseArgumentsText } from './arguments'
import { isObject } from './schema/json'
import type { AssistantPart, ParsedToolCalls } from './types'

/** A call part of a turn. */
export type CallPart = Extract<AssistantPart, { type: 'call' }>

/** The visible text of the turn's `text` parts, joined. */
export function turnText(parsed: ParsedToolCalls): string {
  return parsed.turn.map((part) => (part.type === 'text' ? part.text : '')).join('')
}

/** Arguments as JSON text: a string as emitted, an object serialized. */
export function argumentsText(args: string | JsonValue): string {
  return typeof args === 'string' ? args : JSON.stringify(args)
}

/**
 * Arguments as an object: an object as emitted; a string decoded when it is a complete JSON
 * object; `{}` otherwise (empty, cut or malformed text: the call's result says what was wrong).
 */
export function argumentsObject(args: string | JsonValue): JsonObject {
  if (isObject(args)) return args
  if (typeof args === 'string' && classifyArguments(args) === 'complete') {
    const value = parseArgumentsText(args) as JsonValue
    if (isObject(value)) return value
  }
  return {}
}
