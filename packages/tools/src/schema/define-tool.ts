/**
 * `defineTool` from the DSL: its input and output types, the projection of `parameters` and
 * `output.schema` (a `SchemaSpecError` becomes a `ToolDefinitionError` naming the tool), and the
 * frozen definition; a Standard Schema `parameters` is handed to `defineStandardTool`.
 */
import type { ContentBlock, JsonValue, ToolBodyGenerator, ToolBodyResult, ToolDefinition, ToolExecution } from '../contracts'
import { callbackMembers } from '../define-members'
import { defineStandardTool, isStandardSchema, type AnyStandardSchema, type DefineStandardShortToolInput, type DefineStandardToolInput, type StandardArgs, type StandardToolDefinition } from '../standard-schema'
import { deepFreeze } from '../json'
import { ToolDefinitionError, requireFunction } from './definition-error'
import { OUTPUT_SHAPE_PROBLEM, SHORT_FORM_OUTPUT, type NoOutput, type ShortToolReturn, type ShortToolValue } from './short-form'
import type { InferArgs, InferValue } from './infer'
import { isRecord, projectParameters, projectSchema, SchemaSpecError } from './projection'
import type { ParametersSpec, SchemaSpec } from './spec'

/** The output declaration `defineTool` accepts: a spec for the canonical value and its rendering. */
export interface DslToolOutput<A, O extends SchemaSpec> {
  readonly schema: O
  /** Pure: the model-facing content of a successful value. */
  render(args: A, value: InferValue<O>): readonly ContentBlock[]
  /** Pure: non-model presentation metadata recorded with the result. */
  presentationMeta?(args: A, value: InferValue<O>): JsonValue | undefined
}

/**
 * The callbacks and flags both `defineTool` forms (DSL spec or Standard Schema) accept and copy
 * onto the definition (`ToolDefinition` documents each member). `A`: the arguments every callback
 * but `execute` receives (as sent; `presentCall`/`presentResult` only get them soft-validated
 * against the projected JSON Schema, and are not called otherwise); `E`: what `execute` receives;
 * `V`: the canonical (JSON) value.
 */
export interface DefineToolCallbacks<A, E, V extends JsonValue>
  extends Pick<ToolDefinition<A, V>, 'timeoutMs' | 'isConcurrencySafe' | 'idempotent' | 'version' | 'durability' | 'presentCall' | 'presentResult' | 'finalizeContent' | 'projectContent' | 'deferLoading' | 'resultBudget'> {
  /**
   * Returns only the declared JSON value — or nothing (`undefined`/`void`), recorded as `null`,
   * when the declared value admits `null` ({@link ToolBodyResult}); must observe `exec.signal`.
   * An async generator ({@link ToolBodyGenerator}) yields preliminary results and returns the value.
   */
  execute(args: E, exec: ToolExecution): ToolBodyResult<V> | Promise<ToolBodyResult<V>> | ToolBodyGenerator<V>
}

/** What `defineTool` accepts (docs/design.md, "Definitions and schemas"). */
export interface DefineToolInput<P extends ParametersSpec, O extends SchemaSpec> extends DefineToolCallbacks<InferArgs<P>, InferArgs<P>, InferValue<O>> {
  readonly name: string
  readonly description: string
  readonly parameters: P
  /**
   * Unknown argument keys: `true` closes the arguments object (projected
   * `additionalProperties: false`: a call with a key `parameters` does not declare is
   * `INVALID_ARGS`, naming the closest declared key); `false` keeps it open even under the
   * registry option `unknownKeys: 'reject'` (projected `additionalProperties: true`); absent
   * says nothing (open, unless the registry rejects unknown keys). Nested objects close with
   * `additionalProperties: false` on their spec.
   */
  readonly closed?: boolean
  readonly output: DslToolOutput<InferArgs<P>, O>
}

/**
 * `defineTool` without an output declaration (the short form): `{ name, description, parameters,
 * execute }` plus any optional callback. The value type is inferred from `execute`'s return type
 * ({@link ShortToolValue}); the output schema is `{}` (any JSON value) and the model reads
 * `renderJsonValue` of the value: a string as itself, `null` (a body that returned
 * nothing) as `(no output)`, any other JSON value as JSON text (indented by 2). The value stays
 * the canonical result (`result.value`, PTC sub-calls, `structuredContent`).
 */
export interface DefineShortToolInput<P extends ParametersSpec, R extends ShortToolReturn>
  extends Omit<DefineToolCallbacks<InferArgs<P>, InferArgs<P>, ShortToolValue<R>>, 'execute'> {
  readonly name: string
  readonly description: string
  readonly parameters: P
  /** As {@link DefineToolInput.closed}. */
  readonly closed?: boolean
  /** Absent in the short form; declare `{ schema, render }` (the full form) to render the value yourself. */
  readonly output?: NoOutput
  /** Returns a JSON value or nothing, or is an async generator that yields preliminary results and returns it; must observe `exec.signal`. */
  execute(args: InferArgs<P>, exec: ToolExecution): R | Promise<R> | AsyncGenerator<JsonValue, R, undefined>
}

/** The definition `defineTool` returns. `Value` is the inferred output (a JSON value). */
export type DslToolDefinition<P extends ParametersSpec, O extends SchemaSpec> = ToolDefinition<InferArgs<P>, InferValue<O>>

function project<T>(toolName: string, prefix: string, run: () => T): T {
  try {
    return run()
  } catch (error) {
    if (error instanceof SchemaSpecError) {
      throw new ToolDefinitionError(toolName, `${prefix}${error.pointer}`, error.message.slice(error.message.indexOf(': ') + 2))
    }
    throw error
  }
}

/**
 * Builds a typed tool definition from the DSL (docs/design.md, "Definitions and schemas"), or from a
 * Standard Schema (zod 4, valibot, ArkType…) passed as `parameters` — see
 * {@link defineStandardTool} for that form. `parameters` is
 * projected with {@link projectParameters}, `output.schema` with {@link projectSchema} (both
 * deep-frozen); `source: 'dsl'`; `deferLoading` is kept only when `true`; optional members
 * are present only when given. `presentCall`/`presentResult` are wrapped so they receive
 * soft-validated arguments (invalid or old logged arguments → `undefined`) and never throw.
 * The returned definition is frozen. Throws {@link ToolDefinitionError} naming the tool and a
 * pointer for a spec outside the DSL or a missing `execute`/`output.render`. Name rules,
 * `timeoutMs` and duplicate checks belong to `register()`.
 */
export function defineTool<S extends AnyStandardSchema, R extends ShortToolReturn>(
  input: DefineStandardShortToolInput<S, R>,
): ToolDefinition<StandardArgs<S>, ShortToolValue<R>>
export function defineTool<const P extends ParametersSpec, R extends ShortToolReturn>(input: DefineShortToolInput<P, R>): ToolDefinition<InferArgs<P>, ShortToolValue<R>>
export function defineTool<S extends AnyStandardSchema, const O extends AnyStandardSchema | SchemaSpec>(
  input: DefineStandardToolInput<S, O>,
): StandardToolDefinition<S, O>
export function defineTool<const P extends ParametersSpec, const O extends SchemaSpec>(input: DefineToolInput<P, O>): DslToolDefinition<P, O>
export function defineTool(input: DefineToolInput<ParametersSpec, SchemaSpec> | DefineShortToolInput<ParametersSpec, ShortToolReturn>): ToolDefinition<never, JsonValue> {
  // A Standard Schema (zod, valibot, ArkType…) instead of the DSL: see standard-schema.ts.
  if (isStandardSchema(input.parameters)) return defineStandardTool(input as unknown as DefineStandardToolInput<AnyStandardSchema, unknown>) as ToolDefinition<never, JsonValue>
  const name = String(input.name)
  if (input.output !== undefined && !isRecord(input.output)) throw new ToolDefinitionError(name, '/output', OUTPUT_SHAPE_PROBLEM)
  requireFunction(name, '/execute', input.execute)
  if (input.output !== undefined) requireFunction(name, '/output/render', input.output.render)
  if (input.closed !== undefined && typeof input.closed !== 'boolean') throw new ToolDefinitionError(name, '/closed', `must be a boolean (got ${typeof input.closed})`)
  const parameters = deepFreeze(project(name, '/parameters', () => projectParameters(input.parameters, input.closed)))
  const definition = input.output === undefined ? shortDefinition(name, input as DefineShortToolInput<ParametersSpec, ShortToolReturn>, parameters) : fullDefinition(name, input as DefineToolInput<ParametersSpec, SchemaSpec>, parameters)
  return definition as ToolDefinition<never, JsonValue>
}

/** The full form's frozen definition: `output.schema` projected, `render` and `presentationMeta` wrapped. */
function fullDefinition<P extends ParametersSpec, O extends SchemaSpec>(name: string, input: DefineToolInput<P, O>, parameters: ToolDefinition['parameters']): DslToolDefinition<P, O> {
  const outputSchema = deepFreeze(project(name, '/output/schema', () => projectSchema(input.output.schema)))
  type Args = InferArgs<P>
  type Value = InferValue<O>
  const source = input.output
  const output: DslToolDefinition<P, O>['output'] = Object.freeze({
    schema: outputSchema,
    render: (args: Args, value: Value) => source.render(args, value),
    ...(source.presentationMeta === undefined
      ? {}
      : { presentationMeta: (args: Args, value: Value) => source.presentationMeta?.(args, value) }),
  })
  const definition: DslToolDefinition<P, O> = {
    name,
    description: input.description,
    parameters,
    output,
    execute: (args: Args, exec: ToolExecution) => input.execute(args, exec),
    source: 'dsl',
    ...callbackMembers(input, parameters),
  }
  return Object.freeze(definition)
}

/** The short form's frozen definition (the DSL's `parameters` already projected). */
function shortDefinition<P extends ParametersSpec>(
  name: string,
  input: DefineShortToolInput<P, ShortToolReturn>,
  parameters: ToolDefinition['parameters'],
): ToolDefinition<InferArgs<P>, JsonValue> {
  const definition: ToolDefinition<InferArgs<P>, JsonValue> = {
    name,
    description: input.description,
    parameters,
    output: SHORT_FORM_OUTPUT,
    execute: (args: InferArgs<P>, exec: ToolExecution) => input.execute(args, exec),
    source: 'dsl',
    ...callbackMembers(input, parameters),
  }
  return Object.freeze(definition)
}
