/**
 * The short form of `defineTool` (no `output` declaration): the value type it infers from the
 * body's return type and the output every such definition shares. Shared by the DSL and the
 * Standard Schema forms.
 */
import type { ContentBlock, JsonValue, ToolDefinition } from '../contracts'
import { renderJsonValue } from './define-raw-tool'

/**
 * The canonical value of a tool declared without `output` (the short form), from its body's
 * return type `R`: `R` without `undefined`/`void`, plus `null` when the body may return nothing
 * (the pipeline records nothing as `null`), a literal widened to its primitive. `async () => 'hi'`
 * → `string`; a `void` body → `null`.
 */
export type ShortToolValue<R> = Widen<Exclude<R, void | undefined>> | (undefined extends R ? null : never) extends infer V extends JsonValue ? V : never

/** A literal type widened to its primitive (`'ok'` → `string`, `` `Hello, ${string}` `` → `string`, `3` → `number`, `true` → `boolean`), as TypeScript widens a function's return type. */
type Widen<T> = T extends string ? string : T extends number ? number : T extends boolean ? boolean : T

/**
 * What a short-form body may return: a JSON value, or nothing. A body typed to return anything
 * else (a `Date`, a `Map`, a class instance) does not compile: the value must be JSON.
 */
export type ShortToolReturn = JsonValue | void | undefined

/** The output every short-form definition shares: any JSON value, rendered by {@link renderJsonValue}. */
export const SHORT_FORM_OUTPUT: ToolDefinition<unknown, JsonValue>['output'] = Object.freeze({
  schema: Object.freeze({}),
  render: (_args: unknown, value: JsonValue) => renderJsonValue(value),
})

/**
 * The refusal for an `output` that is neither absent nor an object: the two forms `defineTool`
 * accepts (shared with the Standard Schema form).
 */
export const OUTPUT_SHAPE_PROBLEM = 'must be an output declaration { schema, render }, or absent (the value is shown as itself or as JSON text)'

/**
 * The type of `output` in the short form's input: only `undefined` (absent) fits, since `schema`
 * is `never`. It is not plain `undefined` so that a full-form `render` written without parameters
 * (`render: () => [{ type: 'text', text: 'ok' }]`) keeps its literal block types while TypeScript
 * tries the short-form overloads first: a full form then matches its own overload, and a mistake in
 * it is reported against the full form.
 */
export interface NoOutput {
  readonly schema: never
  render(...args: never[]): readonly ContentBlock[]
}
