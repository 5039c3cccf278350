/**
 * Type inference from DSL specs: the TypeScript type of the values a spec accepts
 * (`InferValue`) and of a parameters record's arguments (`InferArgs`), exact through
 * `MaxInferenceDepth` container levels.
 */
import type { JsonObject, JsonValue } from '../contracts'
import type { JsonLiteral, SchemaSpec } from './spec'

/** Container levels inferred exactly before widening to `JsonValue` (docs/design.md, "Definitions and schemas"). */
export type MaxInferenceDepth = 16

type Deeper<D extends readonly unknown[]> = [...D, unknown]
type Simplify<T> = { [K in keyof T]: T[K] } & {}
type DeepMutable<T> = JsonLiteral extends T ? JsonValue : MutableNode<T>
type MutableNode<T> = T extends readonly unknown[]
  ? { -readonly [K in keyof T]: DeepMutable<T[K]> }
  : T extends object
    ? { -readonly [K in keyof T]: DeepMutable<T[K]> }
    : T

type RequiredKeys<P> = { [K in keyof P]-?: P[K] extends { readonly required: true } ? K : never }[keyof P]
type OptionalKeys<P> = Exclude<keyof P, RequiredKeys<P>>

type InferProperties<P, D extends readonly unknown[]> = Simplify<
  { -readonly [K in RequiredKeys<P>]: InferValue<P[K], D> } & { -readonly [K in OptionalKeys<P>]?: InferValue<P[K], D> }
>

type InferObject<S, D extends readonly unknown[]> = S extends { readonly properties: infer P }
  ? S extends { readonly additionalProperties: true | SchemaSpec }
    ? InferProperties<P, D> & { [key: string]: JsonValue }
    : InferProperties<P, D>
  : S extends { readonly additionalProperties: false }
    ? { [key: string]: never }
    : S extends { readonly additionalProperties: infer A extends SchemaSpec }
      ? { [key: string]: InferValue<A, D> }
      : JsonObject

type InferByType<S, T, D extends readonly unknown[]> = T extends 'string'
  ? string
  : T extends 'number' | 'integer'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'array'
          ? D['length'] extends MaxInferenceDepth
            ? JsonValue
            : S extends { readonly items: infer I }
              ? InferValue<I, Deeper<D>>[]
              : JsonValue[]
          : T extends 'object'
            ? D['length'] extends MaxInferenceDepth
              ? JsonValue
              : InferObject<S, Deeper<D>>
            : JsonValue

/**
 * The TypeScript type of the values a spec accepts: `const` → that literal, `enum` → the
 * literal union, `oneOf` → the union of its branches, `string`/`number`/`integer`/`boolean`/
 * `null` → the primitive, `array` → `T[]` (`JsonValue[]` without `items`), `object` → its
 * properties (required keys required, others optional; `JsonObject` without `properties`),
 * `json` → `JsonValue`; the unspecific `SchemaSpec` itself → `JsonValue`. Exact through {@link MaxInferenceDepth} (16) nested containers (arrays
 * and objects); a 17th nested container is `JsonValue`. `D` counts the containers entered.
 */
export type InferValue<S, D extends readonly unknown[] = []> = SchemaSpec extends S ? JsonValue : InferNode<S, D>

type InferNode<S, D extends readonly unknown[]> = S extends { readonly const: infer C }
  ? DeepMutable<C>
  : S extends { readonly enum: readonly (infer E)[] }
    ? E
    : S extends { readonly oneOf: readonly (infer B)[] }
      ? InferValue<B, D>
      : S extends { readonly type: infer T }
        ? InferByType<S, T, D>
        : JsonValue

/**
 * The arguments type of a parameters record: `required: true` properties are required keys,
 * all others optional. The arguments object counts as the first container level.
 */
export type InferArgs<P> = InferProperties<P, [unknown]>
