/**
 * The public types of the JSON Schema support: schema problems, validation issues, validators,
 * dialects and the validator cache counters.
 */
/**
 * A problem found in a schema itself by {@link checkSchema}.
 * `pointer` is a JSON pointer (RFC 6901) into the SCHEMA (`''` = the schema root), e.g.
 * `/properties/path/type`.
 */
export interface SchemaProblem {
  readonly pointer: string
  readonly message: string
}

/**
 * One violation found by a {@link Validator}. `pointer` is a JSON pointer into the validated
 * INSTANCE (`''` = the root value; a missing or extra property is named by its own pointer,
 * e.g. `/a/b`); `message` is a human sentence without the pointer (e.g. `is required`,
 * `must be integer (got string)`); `keyword` is the JSON Schema keyword that failed
 * (`required`, `type`, `anyOf`, …, or `schema` when the schema itself could not be compiled).
 */
export interface ValidationIssue {
  readonly pointer: string
  readonly message: string
  readonly keyword: string
}

/**
 * A compiled validator: returns the issues of `value`, or a shared frozen empty array when the
 * value is valid (so `issues.length === 0` is the validity test). Never throws.
 */
export type Validator = (value: unknown) => readonly ValidationIssue[]

/** The JSON Schema dialects this module validates with. */
export type SchemaDialect = 'draft-07' | '2019-09' | '2020-12'

/** Counters of the validator cache (see {@link validatorCacheStats}). */
export interface ValidatorCacheStats {
  /** Validators created (one per structurally distinct schema). */
  readonly validators: number
  /** ajv compilations run (each validator compiles at most once, on first use). */
  readonly compiles: number
  /** Compilations ajv rejected (those validators report one `schema` issue at `''`). */
  readonly compileFailures: number
  /** `getValidator` calls answered by schema object identity. */
  readonly identityHits: number
  /** `getValidator` calls answered by an identical schema registered under another object. */
  readonly structuralHits: number
}
