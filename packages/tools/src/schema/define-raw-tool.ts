/**
 * `defineRawTool`: a definition from raw JSON Schemas (MCP and friends), with the default
 * rendering of its value (`renderJsonValue`, `NULL_RESULT_TEXT`).
 */
import type { ContentBlock, JsonObject, JsonSchemaNode, JsonValue, ToolDefinition } from '../contracts'
import { requireFunction } from './definition-error'

/** What `defineRawTool` accepts: an MCP-style tool with raw JSON Schemas; the body and flags are `ToolDefinition`'s members (documented there). */
export interface DefineRawToolInput
  extends Pick<ToolDefinition<JsonObject, JsonValue>, 'execute' | 'validateArguments' | 'checkArguments' | 'timeoutMs' | 'isConcurrencySafe' | 'idempotent' | 'version' | 'durability' | 'deferLoading' | 'finalizeContent' | 'resultBudget'> {
  readonly name: string
  readonly description: string
  /** The arguments' JSON Schema, used as it came (draft-07 or 2020-12). */
  readonly inputSchema: JsonSchemaNode
  /** The canonical value's JSON Schema; default `{}` (any JSON value). */
  readonly outputSchema?: JsonSchemaNode
  /** Pure rendering; default {@link renderJsonValue}. */
  render?(args: JsonObject, value: JsonValue): readonly ContentBlock[]
}

/**
 * What the model reads for a raw tool's `null` value — in particular for a body that returned
 * nothing (`undefined` becomes `null` where the output schema admits it).
 */
export const NULL_RESULT_TEXT = '(no output)'

/**
 * The default rendering of a raw tool's value: a string becomes one text block with it;
 * `null` becomes {@link NULL_RESULT_TEXT}; any other JSON value becomes one text block with
 * `JSON.stringify(value, null, 2)`.
 */
export function renderJsonValue(value: JsonValue): readonly ContentBlock[] {
  return [{ type: 'text', text: typeof value === 'string' ? value : value === null ? NULL_RESULT_TEXT : JSON.stringify(value, null, 2) }]
}

/**
 * Builds a definition from raw JSON Schemas (MCP and friends; docs/design.md, "Definitions and schemas"). `parameters` is `inputSchema` itself (not copied; treat it as immutable),
 * `output.schema` is `outputSchema` or `{}`, `output.render` is `render` or
 * {@link renderJsonValue}; `source: 'raw'`; `validateArguments` is kept only when `false`,
 * `deferLoading` only when `true`; `checkArguments` (run at prepare even with
 * `validateArguments: false`) as given. The returned definition is frozen. Throws
 * {@link ToolDefinitionError} when `execute` (or a given `render` or `checkArguments`) is not
 * a function.
 * Schema validity is checked by `register()` (`checkSchema`).
 */
export function defineRawTool(input: DefineRawToolInput): ToolDefinition<JsonObject, JsonValue> {
  const name = String(input.name)
  requireFunction(name, '/execute', input.execute)
  if (input.render !== undefined) requireFunction(name, '/render', input.render)
  if (input.checkArguments !== undefined) requireFunction(name, '/checkArguments', input.checkArguments)
  const render = input.render ?? ((_args: JsonObject, value: JsonValue) => renderJsonValue(value))
  const definition: ToolDefinition<JsonObject, JsonValue> = {
    name,
    description: input.description,
    parameters: input.inputSchema,
    output: Object.freeze({ schema: input.outputSchema ?? Object.freeze({}), render }),
    execute: input.execute,
    source: 'raw',
    ...(input.validateArguments === false ? { validateArguments: false } : {}),
    ...(input.checkArguments === undefined ? {} : { checkArguments: input.checkArguments }),
    ...(input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs }),
    ...(input.isConcurrencySafe === undefined ? {} : { isConcurrencySafe: input.isConcurrencySafe }),
    ...(input.idempotent === true ? { idempotent: true } : {}),
    ...(input.version === undefined ? {} : { version: input.version }),
    ...(input.durability === 'workflow' ? { durability: 'workflow' as const } : {}),
    ...(input.finalizeContent === undefined ? {} : { finalizeContent: input.finalizeContent }),
    ...(input.deferLoading === true ? { deferLoading: true } : {}),
    ...(input.resultBudget === undefined ? {} : { resultBudget: input.resultBudget }),
  }
  return Object.freeze(definition)
}
