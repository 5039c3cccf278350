/**
 * The definition members both `defineTool` forms (DSL spec in schema/define-tool.ts, Standard
 * Schema in standard-schema.ts) copy from their input. Internal: not re-exported from the package
 * index.
 */
import type { JsonSchemaNode, JsonValue, PresentableResult, ToolDefinition, ToolExecution } from './contracts'
import { softPresentCall, softPresentResult } from './presentation'
import type { DefineToolCallbacks } from './schema'

/**
 * The optional members of a definition built from `input`: `timeoutMs`, `isConcurrencySafe`,
 * `finalizeContent`, `version` and `resultBudget` as given; `idempotent` and `deferLoading` only when `true`, `durability` only when `'workflow'`; `presentCall`
 * and `presentResult` run on arguments soft-validated against `parameters` (the projected JSON
 * Schema); `projectContent` calls the author's function on `input`. Absent members stay absent.
 */
export function callbackMembers<A, V extends JsonValue>(
  input: DefineToolCallbacks<A, never, V>,
  parameters: JsonSchemaNode,
): Omit<Partial<ToolDefinition<A, V>>, 'name' | 'description' | 'parameters' | 'output' | 'execute'> {
  const { presentCall, presentResult } = input
  return {
    ...(input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs }),
    ...(input.isConcurrencySafe === undefined ? {} : { isConcurrencySafe: input.isConcurrencySafe }),
    ...(input.idempotent === true ? { idempotent: true } : {}),
    ...(input.version === undefined ? {} : { version: input.version }),
    ...(input.durability === 'workflow' ? { durability: 'workflow' as const } : {}),
    ...(presentCall === undefined ? {} : { presentCall: (args: A) => softPresentCall(parameters, (valid) => presentCall(valid as A), args) }),
    ...(presentResult === undefined
      ? {}
      : {
          presentResult: (args: A, result: PresentableResult) =>
            softPresentResult(parameters, (valid, settled) => presentResult(valid as A, settled), args, result),
        }),
    ...(input.finalizeContent === undefined ? {} : { finalizeContent: input.finalizeContent }),
    ...(input.projectContent === undefined
      ? {}
      : { projectContent: (args: A, value: V, exec: ToolExecution) => input.projectContent?.(args, value, exec) }),
    ...(input.deferLoading === true ? { deferLoading: true } : {}),
    ...(input.resultBudget === undefined ? {} : { resultBudget: input.resultBudget }),
  }
}
