/**
 * Supported JSON Schema: registration-time checks and cached validation through ajv, for both
 * DSL projections and raw (MCP-style) schemas.
 *
 * Source: docs/design.md, "Packages" (`src/json-schema.ts`, "Supported JSON Schema validation") and
 * docs/design.md, "Definitions and schemas": raw schemas are accepted as they come (`$ref`/`$defs`, `anyOf`/`allOf`,
 * `type` arrays, `format`, `pattern`, draft-07 and 2020-12); validation is ajv, compiled once
 * and cached, non-strict for foreign schemas, with `useDefaults`, `coerceTypes` and
 * `removeAdditional` off.
 *
 * The implementation is in `json-schema/`, one concept a file, and this file is its entry: the
 * public types (`json-schema/types.ts`), the ajv instances and meta-schemas
 * (`json-schema/ajv.ts`), JSON pointers and local `$ref`s (`json-schema/pointer.ts`), the schema
 * scan and dialect detection, whose rules that file's comment gives (`json-schema/scan.ts`),
 * `checkSchema` (`json-schema/check.ts`), the validator cache (`json-schema/validator.ts`), and
 * ajv errors → issues with `formatIssues` (`json-schema/issues.ts`).
 */
export type { SchemaProblem, ValidationIssue, Validator, SchemaDialect, ValidatorCacheStats } from './json-schema/types'
export { resolveJsonPointer, resolveLocalRef } from './json-schema/pointer'
export { detectDialect } from './json-schema/scan'
export { checkSchema } from './json-schema/check'
export { getValidator, validatorCacheStats } from './json-schema/validator'
export { formatIssues } from './json-schema/issues'
