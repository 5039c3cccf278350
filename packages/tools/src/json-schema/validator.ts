/**
 * `getValidator` and its cache: validators cached by schema identity and by structure, compiled
 * lazily with ajv on first use, a validator that reports the compile failure for a schema ajv
 * rejects, the cache counters (`validatorCacheStats`), and the compiled function behind a
 * validator once it has compiled (`compiledValidator`, internal: `FoundTool` calls it directly).
 */
import type AjvCore from 'ajv/dist/core.js'
import type { ValidateFunction } from 'ajv'
import type { JsonSchemaNode, JsonValue } from '../contracts'
import { typeLabel } from '../errors'
import { capPointer, findDepthProblem, MAX_JSON_DEPTH } from '../limits'
import { ajvFor, createAjv } from './ajv'
import { mapErrors } from './issues'
import { isObject } from './pointer'
import { dialectOf, scanSchema, withoutDollarSchema } from './scan'
import type { ValidationIssue, Validator, ValidatorCacheStats } from './types'

const NO_ISSUES: readonly ValidationIssue[] = Object.freeze([])

/**
 * The data context handed to every top-level call of a compiled ajv function. Its generated code
 * destructures `{ instancePath = "", parentData, parentDataProperty, rootData = data } = {}`
 * (plus `dynamicAnchors = {}` with `$dynamicRef`) and only reads it, so one shared empty object
 * gives exactly the defaults — without the fresh `{}` the parameter default allocates on every
 * call (56 B per validation).
 */
const TOP_LEVEL = Object.freeze({}) as unknown as Parameters<ValidateFunction>[1]

const byIdentity = new WeakMap<object, Validator>()
const byStructure = new Map<string, Validator>()
const counters = { validators: 0, compiles: 0, compileFailures: 0, identityHits: 0, structuralHits: 0 }

/**
 * The validator of a schema: it returns a shared frozen empty array for a valid value, else every
 * violation as a frozen issue, in the order the schema declares what they point at
 * (`orderByDeclaration` in `issues.ts`). Cached by schema object identity (a `WeakMap`) and by structure
 * (its JSON text), so identical schemas share one compiled function and the same
 * `Validator` object is returned for the same schema. Compilation happens lazily on the
 * validator's first call. Schemas are treated as immutable once a validator exists (the
 * compiled function uses a detached JSON snapshot of the schema). If ajv cannot compile the
 * schema, the validator returns one issue `{ pointer: '', keyword: 'schema' }` whose message
 * explains that the schema itself is invalid; it never throws.
 */
export function getValidator(schema: JsonSchemaNode | JsonValue): Validator {
  if (typeof schema !== 'object' || schema === null) {
    return validatorForKey(JSON.stringify(schema) ?? String(schema), schema)
  }
  const known = byIdentity.get(schema)
  if (known !== undefined) {
    counters.identityHits++
    return known
  }
  let key: string | undefined
  try {
    key = JSON.stringify(schema)
  } catch {
    key = undefined
  }
  const validator = key === undefined ? createValidator(schema) : validatorForKey(key, schema)
  byIdentity.set(schema, validator)
  return validator
}

function validatorForKey(key: string, schema: unknown): Validator {
  const shared = byStructure.get(key)
  if (shared !== undefined) {
    counters.structuralHits++
    return shared
  }
  let snapshot: unknown
  try {
    snapshot = JSON.parse(key)
  } catch {
    snapshot = schema
  }
  const validator = createValidator(snapshot)
  byStructure.set(key, validator)
  return validator
}

/** The compiled function behind each lazily compiling validator, once its first call compiled it. */
const compiledOf = new WeakMap<Validator, Validator>()

function createValidator(schema: unknown): Validator {
  counters.validators++
  let compiled: Validator | undefined
  const validator = (value: unknown): readonly ValidationIssue[] => {
    if (compiled === undefined) {
      compiled = compile(schema)
      compiledOf.set(validator, compiled)
    }
    return compiled(value)
  }
  return validator
}

/**
 * The function a validator of {@link getValidator} calls once it has compiled (same answers,
 * without the lazy wrapper's call), or `undefined` before its first call. Internal: a per-call
 * caller that keeps a validator (`FoundTool`) swaps it in after the first validation.
 */
export function compiledValidator(validator: Validator): Validator | undefined {
  return compiledOf.get(validator)
}

function compile(schema: unknown): Validator {
  counters.compiles++
  try {
    if (typeof schema === 'boolean') {
      const fn = ajvFor('draft-07').compile(schema)
      return (value) => (fn(value, TOP_LEVEL) ? NO_ISSUES : freezeIssues(mapErrors(fn.errors ?? [], [schema], value)))
    }
    if (!isObject(schema)) throw new Error(`a schema must be an object or a boolean (got ${typeLabel(schema)})`)
    const deep = findDepthProblem(schema)
    if (deep !== undefined) throw new Error(`${capPointer(deep.pointer)} nests deeper than ${MAX_JSON_DEPTH} levels (MAX_JSON_DEPTH)`)
    const scan = scanSchema(schema)
    if (scan.cyclePointer !== undefined) throw new Error(`schema object contains itself at ${scan.cyclePointer}`)
    const dialect = dialectOf(schema, scan)
    const target = withoutDollarSchema(schema)
    // Schemas declaring `$id` register URIs inside ajv; they get a private instance so two
    // tools may reuse an id without clashing. The meta-schema check runs on the shared
    // instance (whose meta-schema validator is already compiled).
    let ajv = ajvFor(dialect)
    if (scan.hasId) {
      if (!ajv.validateSchema(target)) throw new Error(`schema is invalid: ${ajv.errorsText(ajv.errors)}`)
      ajv = createAjv(dialect, { validateSchema: false })
    }
    let fn: ReturnType<AjvCore['compile']>
    try {
      fn = ajv.compile(target)
    } finally {
      if (!scan.hasId) ajv.removeSchema(target)
    }
    return (value) => (fn(value, TOP_LEVEL) ? NO_ISSUES : freezeIssues(mapErrors(fn.errors ?? [], [target], value)))
  } catch (error) {
    counters.compileFailures++
    const message = error instanceof Error ? error.message : String(error)
    const issues = freezeIssues([
      { pointer: '', keyword: 'schema', message: `the schema itself is invalid and cannot be compiled: ${message}` },
    ])
    return () => issues
  }
}

function freezeIssues(issues: ValidationIssue[]): readonly ValidationIssue[] {
  for (const issue of issues) Object.freeze(issue)
  return Object.freeze(issues)
}

/** A snapshot of the validator cache counters (monotonic for the process; compare deltas). */
export function validatorCacheStats(): ValidatorCacheStats {
  return Object.freeze({ ...counters })
}
