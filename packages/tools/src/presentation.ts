/**
 * Tool-card render intents: safe calls of a definition's `presentCall` / `presentResult`.
 *
 * Design: docs/design.md, "Presentation": both methods are pure and display-only; a UI
 * calls them during live streaming and during session-log replay, so the helpers here
 * soft-validate the arguments before calling: a malformed or older logged shape yields
 * `undefined` rather than a throw, since display must never crash a replay. `undefined` tells a UI to fall back
 * to a generic presentation (title = tool name, raw args, raw result content).
 */
import type {
  AnyToolDefinition,
  JsonSchemaNode,
  PresentableResult,
  ToolCallPresentation,
  ToolResultPresentation,
} from './contracts'
import { getValidator } from './json-schema'

/**
 * Logged arguments may be the model's raw JSON text: a string is parsed once; unparsable text
 * yields `undefined`.
 */
function materialize(args: unknown): { readonly ok: true; readonly value: unknown } | { readonly ok: false } {
  if (typeof args !== 'string') return { ok: true, value: args }
  try {
    return { ok: true, value: JSON.parse(args) as unknown }
  } catch {
    return { ok: false }
  }
}

function argsPass(schema: JsonSchemaNode | undefined, args: unknown): boolean {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return false
  return schema === undefined || getValidator(schema)(args).length === 0
}

function isCallPresentation(value: unknown): value is ToolCallPresentation {
  return typeof value === 'object' && value !== null && typeof (value as { title?: unknown }).title === 'string'
}

function isResultPresentation(value: unknown): value is ToolResultPresentation {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * Runs `present(args)` only when `args` (an object, or JSON text of one) is valid against
 * `schema` (skipped when `schema` is `undefined`); returns its descriptor, or `undefined` when
 * the args are invalid, the callback throws, or it returns something without a string `title`.
 * Used by `defineTool` to wrap an author's `presentCall`.
 */
export function softPresentCall(
  schema: JsonSchemaNode | undefined,
  present: (args: unknown) => ToolCallPresentation | undefined,
  args: unknown,
): ToolCallPresentation | undefined {
  const input = materialize(args)
  if (!input.ok || !argsPass(schema, input.value)) return undefined
  try {
    const presentation = present(input.value)
    return isCallPresentation(presentation) ? presentation : undefined
  } catch {
    return undefined
  }
}

/**
 * As {@link softPresentCall} for `present(args, result)`; a descriptor must be an object.
 * Used by `defineTool` to wrap an author's `presentResult`.
 */
export function softPresentResult(
  schema: JsonSchemaNode | undefined,
  present: (args: unknown, result: PresentableResult) => ToolResultPresentation | undefined,
  args: unknown,
  result: PresentableResult,
): ToolResultPresentation | undefined {
  const input = materialize(args)
  if (!input.ok || !argsPass(schema, input.value)) return undefined
  try {
    const presentation = present(input.value, result)
    return isResultPresentation(presentation) ? presentation : undefined
  } catch {
    return undefined
  }
}

/**
 * The pending-call descriptor a UI shows for `args` (logged or live; an object or its JSON
 * text): `def.presentCall(args)` when the definition has one and the args validate against
 * `def.parameters` (validation is skipped for a definition with `validateArguments: false`);
 * otherwise, or when it throws, `undefined` (generic presentation). Pure; never throws.
 */
export function safePresentCall(def: AnyToolDefinition, args: unknown): ToolCallPresentation | undefined {
  const present = def.presentCall
  if (typeof present !== 'function') return undefined
  const schema = def.validateArguments === false ? undefined : def.parameters
  return softPresentCall(schema, (valid) => present.call(def, valid), args)
}

/**
 * The completed-call descriptor a UI shows for `args` and `result` (`{ content, isError }`):
 * `def.presentResult(args, result)` under the same rules as {@link safePresentCall}. Pure;
 * never throws.
 */
export function safePresentResult(
  def: AnyToolDefinition,
  args: unknown,
  result: PresentableResult,
): ToolResultPresentation | undefined {
  const present = def.presentResult
  if (typeof present !== 'function') return undefined
  const schema = def.validateArguments === false ? undefined : def.parameters
  return softPresentResult(schema, (valid, settled) => present.call(def, valid, settled), args, result)
}
