/**
 * A resolved tool as the registry hands it to the pipeline: the definition, the JSON Schema its
 * arguments validate against, and the two validators, looked up on first use and then kept
 * (each, once it has compiled, as the compiled function its lazy wrapper calls).
 * One instance per registration, so a call pays no cache lookup for them (the validator cache of
 * `getValidator` is keyed by schema object in a `WeakMap`, ~20 ns a lookup); a definition an
 * executor supplies per call (`RunnerOptions.local`) gets a fresh one per call.
 */
import type { AnyToolDefinition, JsonSchemaNode, ToolResultMeta } from './contracts'
import { getValidator, type Validator } from './json-schema'
import { compiledValidator } from './json-schema/validator'

/** `{ toolName }` metadata shared by every result of a definition that records nothing else. */
const plainMetas = new WeakMap<AnyToolDefinition, ToolResultMeta>()

/** One registration's (or executor-local definition's) resolved tool; see the module comment. */
export class FoundTool {
  #arguments: Validator | undefined
  /** Whether {@link #arguments} is the compiled function itself (no lazy wrapper left to skip). */
  #argumentsDirect = false
  /** `null`: the output schema admits any JSON value, so output validation is skipped. */
  #output: Validator | null | undefined
  #outputDirect = false
  #plainMeta: ToolResultMeta | undefined

  constructor(
    readonly definition: AnyToolDefinition,
    readonly parameters: JsonSchemaNode,
  ) {}

  /**
   * The arguments' validator (`getValidator(parameters)`); once that has compiled, the compiled
   * function it calls (same answers, one call less per validation).
   */
  argumentsValidator(): Validator {
    const validator = (this.#arguments ??= getValidator(this.parameters))
    if (this.#argumentsDirect) return validator
    const compiled = compiledValidator(validator)
    if (compiled === undefined) return validator
    this.#argumentsDirect = true
    return (this.#arguments = compiled)
  }

  /** The output's validator, or `null` when the output schema admits any JSON value (compiled as {@link argumentsValidator}). */
  outputValidator(): Validator | null {
    if (this.#output === undefined) {
      const schema = this.definition.output.schema
      this.#output = isUnconstrained(schema) ? null : getValidator(schema)
    }
    const validator = this.#output
    if (validator === null || this.#outputDirect) return validator
    const compiled = compiledValidator(validator)
    if (compiled === undefined) return validator
    this.#outputDirect = true
    return (this.#output = compiled)
  }

  /**
   * The frozen `{ toolName }` metadata of a result that records nothing else: one object per
   * definition (kept here after the first result, so a call pays a field read, not a `WeakMap` lookup).
   */
  plainMeta(): ToolResultMeta {
    let meta = this.#plainMeta
    if (meta === undefined) {
      const definition = this.definition
      meta = plainMetas.get(definition)
      if (meta === undefined) plainMetas.set(definition, (meta = Object.freeze({ toolName: definition.name })))
      this.#plainMeta = meta
    }
    return meta
  }
}

/** Whether an output schema admits any JSON value: `true`, or an object with only annotations. */
function isUnconstrained(schema: unknown): boolean {
  if (schema === true) return true
  if (schema === null || typeof schema !== 'object') return false
  return Object.keys(schema).every((key) => key === 'description' || key === 'title' || key === '$schema')
}
