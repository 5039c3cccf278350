/**
 * The typed schema DSL, `defineTool`, `defineRawTool` and the model-facing JSON Schema
 * projection.
 *
 * Design: docs/design.md, "Definitions and schemas" (string, number, integer, boolean, null, array, object,
 * author-only json and exact-one oneOf; `InferValue` exact through 16 container levels, then
 * `JsonValue`), and the typed-parameters contract (per-property `required: true`,
 * `default` never applied, extra keys allowed, an object/array without properties/items only
 * type-checks); the projection is total and deterministic.
 *
 * The implementation is in `schema/`, one concept a file, and this file is its entry: the spec
 * types (`schema/spec.ts`), type inference (`schema/infer.ts`), the projection to JSON Schema
 * (`schema/projection.ts`), `ToolDefinitionError` (`schema/definition-error.ts`), `defineTool`
 * (`schema/define-tool.ts`) and `defineRawTool` (`schema/define-raw-tool.ts`).
 */
export type {
  JsonLiteral,
  SpecAnnotations,
  StringSpec,
  NumberSpec,
  BooleanSpec,
  NullSpec,
  ArraySpec,
  ObjectSpec,
  JsonSpec,
  OneOfSpec,
  EnumSpec,
  ConstSpec,
  SchemaSpec,
  ParametersSpec,
} from './schema/spec'
export type { MaxInferenceDepth, InferValue, InferArgs } from './schema/infer'
export { SchemaSpecError, projectSchema, projectParameters } from './schema/projection'
export { ToolDefinitionError } from './schema/definition-error'
export { defineTool, type DslToolOutput, type DefineToolCallbacks, type DefineToolInput, type DefineShortToolInput, type DslToolDefinition } from './schema/define-tool'
export { SHORT_FORM_OUTPUT, type ShortToolReturn, type ShortToolValue } from './schema/short-form'
export { NULL_RESULT_TEXT, renderJsonValue, defineRawTool, type DefineRawToolInput } from './schema/define-raw-tool'
