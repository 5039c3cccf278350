/**
 * Standard Schema input for `defineTool`: `parameters` (and optionally `output.schema`) may be
 * any Standard Schema (https://standardschema.dev) object — zod 4, valibot, ArkType, … The core
 * depends on no schema library: only the types of `@standard-schema/spec` are used.
 *
 * - **Model-facing JSON Schema** comes from the library's own converter, looked up in this
 *   order: the tool's `toJsonSchema` option (e.g. `z.toJSONSchema`, or `toJsonSchema` of
 *   `@valibot/to-json-schema`); the schema's own `toJsonSchema()` method (ArkType); the Standard
 *   JSON Schema interface `schema['~standard'].jsonSchema` (zod ≥ 4.2, ArkType, valibot wrapped
 *   in `toStandardJsonSchema`). Target draft-07; the top-level `$schema` key is dropped. A schema
 *   the library cannot express (a `Date`, a `bigint`, a transform on output…) is a
 *   {@link ToolDefinitionError} at `defineTool`, naming the tool, the pointer and the library's
 *   reason.
 * - **Arguments** are validated by the library itself at the prepare stage (before policy):
 *   its issues become the usual `INVALID_ARGS` result, `Invalid arguments for tool "x": /a/0:
 *   <library message>; …` (every issue, JSON pointers). The body receives the library's output
 *   value (defaults and transforms applied); policies, logs and `render` see the arguments as
 *   the model sent them. A schema whose validation is asynchronous (an async refinement) is
 *   validated just before the body instead, with the same `INVALID_ARGS` shape. Texts thrown
 *   from inside the body (these, and the output check's) name the tool as the pipeline's own
 *   texts do: through the batch's `nameMap` when there is one (read from the execution view).
 * - **Output**: a Standard Schema `output.schema` validates the body's value with the library
 *   (`INVALID_TOOL_OUTPUT` on issues); its JSON Schema (the library's `output` side) is what PTC
 *   SDK types and the registry's own output check use.
 */
import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec'
import type {
  ContentBlock,
  JsonObject,
  JsonValue,
  ToolDefinition,
  ToolExecution,
} from './contracts'
import { describeThrown, messages, ToolError } from './errors'
import { deepFreeze, escapePointer, snapshotJson } from './json'
import { callbackMembers } from './define-members'
import { ToolDefinitionError } from './schema/definition-error'
import { Execution } from './pipeline/execution'
import { isBodyGenerator } from './pipeline/preliminary'
import type { DefineToolCallbacks } from './schema/define-tool'
import type { InferValue } from './schema/infer'
import { projectSchema } from './schema/projection'
import type { SchemaSpec } from './schema/spec'
import { OUTPUT_SHAPE_PROBLEM, SHORT_FORM_OUTPUT, type NoOutput, type ShortToolReturn, type ShortToolValue } from './schema/short-form'

/** Any Standard Schema (the `~standard` property with `validate`). */
export type AnyStandardSchema = StandardSchemaV1<unknown, unknown>

/** The JSON Schema dialect requested from converters (widest provider support). */
export const STANDARD_JSON_SCHEMA_TARGET = 'draft-07'

/** The value type a tool declares with `output.schema`: a Standard Schema's output, or the DSL's. */
export type StandardOutputValue<O> = O extends AnyStandardSchema
  ? StandardSchemaV1.InferOutput<O> extends JsonValue
    ? StandardSchemaV1.InferOutput<O>
    : JsonValue
  : O extends SchemaSpec
    ? InferValue<O>
    : JsonValue

/** The arguments as the model sent them (what policies, `render` and presentation see). */
export type StandardArgs<S extends AnyStandardSchema> = StandardSchemaV1.InferInput<S>

/** The output declaration of a Standard Schema tool. */
export interface StandardToolOutput<A, O> {
  /** A Standard Schema or a DSL spec of the canonical value. */
  readonly schema: O
  /** Pure: the model-facing content of a successful value. */
  render(args: A, value: StandardOutputValue<O>): readonly ContentBlock[]
  /** Pure: non-model presentation metadata recorded with the result. */
  presentationMeta?(args: A, value: StandardOutputValue<O>): JsonValue | undefined
}

/**
 * What `defineTool` accepts when `parameters` is a Standard Schema. Members mean what they mean
 * for the DSL form; `execute` receives the library's parsed output (`InferOutput`), every other
 * callback the arguments as sent (`InferInput`).
 */
export interface DefineStandardToolInput<S extends AnyStandardSchema, O>
  extends DefineToolCallbacks<StandardArgs<S>, StandardSchemaV1.InferOutput<S>, StandardOutputValue<O>> {
  readonly name: string
  readonly description: string
  /** A Standard Schema of the arguments object (zod 4, valibot, ArkType, …). */
  readonly parameters: S
  readonly output: StandardToolOutput<StandardArgs<S>, O>
  /**
   * Converts this tool's Standard Schemas to JSON Schema when they carry no converter of their
   * own, e.g. `toJsonSchema` from `@valibot/to-json-schema` or zod's `z.toJSONSchema`. Called with
   * the schema only. Must throw for what it cannot express.
   */
  toJsonSchema?(schema: S | Extract<O, AnyStandardSchema>): object
}

/**
 * The short form with a Standard Schema `parameters`: no `output`; the value type is inferred from
 * `execute`'s return type ({@link ShortToolValue}) and shown as the DSL's short form shows it
 * (`DefineShortToolInput`).
 */
export interface DefineStandardShortToolInput<S extends AnyStandardSchema, R extends ShortToolReturn>
  extends Omit<DefineToolCallbacks<StandardArgs<S>, StandardSchemaV1.InferOutput<S>, ShortToolValue<R>>, 'execute'> {
  readonly name: string
  readonly description: string
  /** A Standard Schema of the arguments object (zod 4, valibot, ArkType, …). */
  readonly parameters: S
  /** Absent in the short form. */
  readonly output?: NoOutput
  /** As {@link DefineStandardToolInput.toJsonSchema} (for `parameters` only). */
  toJsonSchema?(schema: S): object
  /** Receives the library's parsed output; returns a JSON value or nothing (or yields preliminary results and returns it). */
  execute(args: StandardSchemaV1.InferOutput<S>, exec: ToolExecution): R | Promise<R> | AsyncGenerator<JsonValue, R, undefined>
}

/** The definition a Standard Schema tool becomes. */
export type StandardToolDefinition<S extends AnyStandardSchema, O> = ToolDefinition<StandardArgs<S>, StandardOutputValue<O>>

/** Whether `value` implements Standard Schema v1 (`~standard.version === 1` with a `validate` function). */
export function isStandardSchema(value: unknown): value is AnyStandardSchema {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false
  const props = (value as { '~standard'?: unknown })['~standard']
  return typeof props === 'object' && props !== null && (props as { version?: unknown }).version === 1 && typeof (props as { validate?: unknown }).validate === 'function'
}

function vendorOf(schema: AnyStandardSchema): string {
  const vendor = schema['~standard'].vendor
  return typeof vendor === 'string' && vendor !== '' ? vendor : 'Standard Schema'
}

/** A converter's message, on one line (ArkType throws a multi-line object dump with a `code`). */
function converterProblem(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code
  const message = describeThrown(error).replace(/\s+/g, ' ').trim()
  return typeof code === 'string' && message.startsWith('{') ? `unsupported ${code}` : message
}

/**
 * The JSON Schema of one side of a Standard Schema, from the converter lookup described in the
 * file header. Returns a detached, deep-frozen JSON object without `$schema`.
 *
 * @throws ToolDefinitionError (`INVALID_TOOL_DEFINITION`) at `pointer` when no converter is
 *   found, the converter throws, or it returns something that is not a JSON object.
 */
export function standardJsonSchema(
  tool: string,
  pointer: string,
  schema: AnyStandardSchema,
  io: 'input' | 'output',
  convert?: (schema: never) => object,
): JsonObject {
  const vendor = vendorOf(schema)
  const own = (schema as { toJsonSchema?: unknown }).toJsonSchema
  const standard = (schema['~standard'] as Partial<StandardJSONSchemaV1.Props>).jsonSchema
  let raw: unknown
  try {
    if (convert !== undefined) raw = convert(schema as never)
    else if (typeof own === 'function' && io === 'input') raw = (own as (options: object) => unknown).call(schema, { target: STANDARD_JSON_SCHEMA_TARGET })
    else if (standard !== undefined && typeof standard[io] === 'function') raw = standard[io]({ target: STANDARD_JSON_SCHEMA_TARGET })
    else {
      throw new ToolDefinitionError(
        tool,
        pointer,
        `the ${vendor} schema has no JSON Schema converter: pass toJsonSchema (e.g. toJsonSchema of @valibot/to-json-schema) or wrap the schema with the library's Standard JSON Schema adapter`,
      )
    }
  } catch (error) {
    if (error instanceof ToolDefinitionError) throw error
    throw new ToolDefinitionError(tool, pointer, `the ${vendor} schema cannot be expressed as JSON Schema: ${converterProblem(error)}`)
  }
  const snap = snapshotJson(raw)
  if (!snap.ok || snap.value === null || typeof snap.value !== 'object' || Array.isArray(snap.value)) {
    throw new ToolDefinitionError(tool, pointer, `the ${vendor} JSON Schema converter returned ${snap.ok ? 'a non-object' : 'a value that is not JSON'}`)
  }
  const json = { ...(snap.value as JsonObject) }
  delete json.$schema
  return deepFreeze(json)
}

/** `/a/0` for a Standard Schema issue path (segments may be keys or `{ key }`). */
function pointerOf(path: StandardSchemaV1.Issue['path']): { pointer: string; dotted: string } {
  if (path === undefined || path.length === 0) return { pointer: '', dotted: '' }
  let pointer = ''
  let dotted = ''
  for (const segment of path) {
    const key = typeof segment === 'object' && segment !== null ? segment.key : segment
    const text = typeof key === 'symbol' ? key.toString() : String(key)
    pointer += `/${escapePointer(text)}`
    dotted += typeof key === 'number' ? `[${text}]` : dotted === '' ? text : `.${text}`
  }
  return { pointer, dotted }
}

/**
 * Formats a library's issues like the registry's own: `pointer: message` joined by `; `, the
 * root as `(root)`. A message that already starts with the path (ArkType: `a.b[1] must be…`)
 * loses that prefix.
 */
export function formatStandardIssues(issues: readonly StandardSchemaV1.Issue[]): string {
  return issues
    .map((issue) => {
      const { pointer, dotted } = pointerOf(issue.path)
      const message = dotted !== '' && issue.message.startsWith(`${dotted} `) ? issue.message.slice(dotted.length + 1) : issue.message
      return `${pointer === '' ? '(root)' : pointer}: ${message}`
    })
    .join('; ')
}

function isThenable<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function'
}

/**
 * Builds the definition for a Standard Schema tool (what `defineTool` does when `parameters` is
 * one). See the file header for conversion and validation.
 *
 * @throws ToolDefinitionError naming the tool and pointer (`/parameters`, `/output/schema`,
 *   `/execute`, `/output/render`) for a missing function, an unconvertible schema, or
 *   parameters that do not describe an object.
 */
export function defineStandardTool<S extends AnyStandardSchema, O>(input: DefineStandardToolInput<S, O>): StandardToolDefinition<S, O> {
  type Args = StandardArgs<S>
  type Value = StandardOutputValue<O>
  const name = String(input.name)
  const short = input.output === undefined
  if (!short && (typeof input.output !== 'object' || input.output === null)) throw new ToolDefinitionError(name, '/output', OUTPUT_SHAPE_PROBLEM)
  for (const [pointer, fn] of [['/execute', input.execute], ...(short ? [] : [['/output/render', input.output.render] as const])] as const) {
    if (typeof fn !== 'function') throw new ToolDefinitionError(name, pointer, `must be a function (got ${typeof fn})`)
  }
  const convert = input.toJsonSchema?.bind(input) as ((schema: never) => object) | undefined
  const schema = input.parameters
  const parameters = standardJsonSchema(name, '/parameters', schema, 'input', convert)
  if (parameters.type !== 'object') {
    throw new ToolDefinitionError(name, '/parameters', `must describe an object (the ${vendorOf(schema)} schema converts to type ${JSON.stringify(parameters.type ?? null)})`)
  }
  const outputSpec = short ? undefined : input.output.schema
  const outputSchema = outputSpec === undefined
    ? SHORT_FORM_OUTPUT.schema
    : isStandardSchema(outputSpec)
    ? standardJsonSchema(name, '/output/schema', outputSpec, 'output', convert)
    : deepFreeze(projectSchema(outputSpec as SchemaSpec))
  const validateOutput = isStandardSchema(outputSpec) ? outputSpec['~standard'].validate : undefined

  const validate = schema['~standard'].validate
  /** Parsed output values by the (frozen) argument object the pipeline validated at prepare. */
  const parsed = new WeakMap<object, { readonly value: unknown }>()
  const checkArguments = (args: Readonly<JsonObject>): string | undefined => {
    const result = validate(args)
    if (isThenable(result)) {
      result.then(undefined, () => undefined) // validated again, awaited, before the body
      return undefined
    }
    if (result.issues !== undefined) return formatStandardIssues(result.issues)
    parsed.set(args, { value: result.value })
    return undefined
  }
  const body = input.execute
  /** The name the texts thrown below give the tool: the shown name of the call (`Execution.shownName`), else the definition's. */
  const shown = (exec: ToolExecution): string => Execution.shownName(exec) ?? name
  /** The body's value checked against a Standard Schema output (nothing is checked as `null`, as the pipeline records it). */
  const checked = async (value: unknown, exec: ToolExecution): Promise<Value | void> => {
    if (validateOutput !== undefined) {
      // `z.null()` admits a body that returns nothing, as `{ type: 'null' }` does.
      const result = await validateOutput(value === undefined ? null : value)
      if (result.issues !== undefined) throw new ToolError('INVALID_TOOL_OUTPUT', messages.invalidOutput(shown(exec), formatStandardIssues(result.issues)))
    }
    return value as Value | void
  }
  /** A generator body stays a generator (its yields are preliminary results); its return value is checked. */
  async function* checkedGenerator(generator: AsyncGenerator<JsonValue, unknown, undefined>, exec: ToolExecution): AsyncGenerator<JsonValue, Value | void, undefined> {
    return await checked(yield* generator, exec)
  }
  const settle = (out: unknown, exec: ToolExecution): Promise<Value | void> | AsyncGenerator<JsonValue, Value | void, undefined> =>
    isBodyGenerator(out) ? checkedGenerator(out as AsyncGenerator<JsonValue, unknown, undefined>, exec) : Promise.resolve(out).then((value) => checked(value, exec))
  /** Validates arguments the pipeline could not validate synchronously at prepare; resolves with the parsed value. */
  const validateNow = async (args: Args, exec: ToolExecution): Promise<StandardSchemaV1.InferOutput<S>> => {
    let result: StandardSchemaV1.Result<unknown>
    try {
      result = await validate(args)
    } catch (error) {
      throw new ToolError('TOOL_FAILED', messages.argumentCheckFailed(shown(exec), describeThrown(error)))
    }
    if (result.issues !== undefined) throw new ToolError('INVALID_ARGS', messages.argumentsInvalid(shown(exec), formatStandardIssues(result.issues)))
    return result.value as StandardSchemaV1.InferOutput<S>
  }
  /**
   * Arguments the pipeline could not validate synchronously at prepare (an async validator, or a
   * call from outside the pipeline): validated here, then the body. A body written as an async
   * generator function stays a generator (validation runs at its first step, so its yields are
   * preliminary results as usual); another body that returns a generator is drained here, its
   * yields unseen (README, Known limitations).
   */
  async function* validateThenStream(args: Args, exec: ToolExecution): AsyncGenerator<JsonValue, Value | void, undefined> {
    const out = settle(body(await validateNow(args, exec), exec), exec)
    return isBodyGenerator(out) ? yield* out : await out
  }
  const validateThenRun = async (args: Args, exec: ToolExecution): Promise<Value | void> => {
    const out = settle(body(await validateNow(args, exec), exec), exec)
    if (!isBodyGenerator(out)) return out
    for (;;) {
      const step = await out.next()
      if (step.done === true) return step.value
    }
  }
  /** Whether the body is written as an `async function*` (known before it runs, unlike a function that returns a generator). */
  const bodyIsGenerator = Object.prototype.toString.call(body) === '[object AsyncGeneratorFunction]'
  const execute = (args: Args, exec: ToolExecution): Promise<Value | void> | AsyncGenerator<JsonValue, Value | void, undefined> => {
    const entry = parsed.get(args as object)
    if (entry === undefined) return bodyIsGenerator ? validateThenStream(args, exec) : validateThenRun(args, exec)
    return settle(body(entry.value as StandardSchemaV1.InferOutput<S>, exec), exec)
  }
  const source = input.output
  const definition: StandardToolDefinition<S, O> = {
    name,
    description: input.description,
    parameters,
    output: short ? (SHORT_FORM_OUTPUT as StandardToolDefinition<S, O>['output']) : Object.freeze({
      schema: outputSchema,
      render: (args: Args, value: Value) => source.render(args, value),
      ...(source.presentationMeta === undefined ? {} : { presentationMeta: (args: Args, value: Value) => source.presentationMeta?.(args, value) }),
    }),
    execute,
    validateArguments: false,
    checkArguments,
    source: 'standard',
    ...callbackMembers(input, parameters),
  }
  return Object.freeze(definition)
}
