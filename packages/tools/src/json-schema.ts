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
 * Dialects: `$schema` selects the ajv class (draft-07 → `Ajv`, 2019-09 → `ajv/dist/2019`,
 * 2020-12 → `ajv/dist/2020`). Without a known `$schema`, 2019/2020-only keywords
 * (`prefixItems`, `$dynamicRef`, `$dynamicAnchor`, `unevaluated*`, `dependentRequired`,
 * `dependentSchemas`, `minContains`, `maxContains`, `$anchor`) select 2020-12 (`$recursiveRef` /
 * `$recursiveAnchor` select 2019-09); everything else is draft-07. An unknown `$schema`
 * (e.g. draft-04) is validated as draft-07.
 */
import AjvDraft07Import from 'ajv'
import Ajv2019Import from 'ajv/dist/2019.js'
import Ajv2020Import from 'ajv/dist/2020.js'
import type AjvCore from 'ajv/dist/core.js'
import type { ErrorObject, Options, ValidateFunction } from 'ajv'
import addFormatsImport from 'ajv-formats'
import type { JsonSchemaNode, JsonValue } from './contracts'
import { typeLabel } from './errors'
import { escapePointer } from './json'
import { capPointer, escapeInvisible, findDepthProblem, MAX_JSON_DEPTH } from './limits'
import { suggestKey } from './unknown-keys'

// ---------------------------------------------------------------------------------------------
// Public types
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// ajv instances
// ---------------------------------------------------------------------------------------------

type AjvClass = new (options: Options) => AjvCore
type FormatsPlugin = (ajv: AjvCore) => unknown

/** NodeNext/ESM interop: a CommonJS default import may be the function or the module object. */
function interopDefault<T>(mod: T | { readonly default: T }): T {
  if (typeof mod === 'function') return mod as T
  return (mod as { readonly default: T }).default
}

const AJV_CLASSES: Readonly<Record<SchemaDialect, AjvClass>> = {
  'draft-07': interopDefault(AjvDraft07Import as unknown as AjvClass),
  '2019-09': interopDefault(Ajv2019Import as unknown as AjvClass),
  '2020-12': interopDefault(Ajv2020Import as unknown as AjvClass),
}
const addFormats = interopDefault(addFormatsImport as unknown as FormatsPlugin)

/**
 * The regular-expression engine handed to ajv: ECMA-262 with the `u` flag (ajv's default), and
 * without it for foreign patterns that only compile in legacy mode (e.g. `[\w\-]`).
 */
function tolerantRegExp(pattern: string, flags: string): RegExp {
  try {
    return new RegExp(pattern, flags)
  } catch (error) {
    if (!flags.includes('u')) throw error
    return new RegExp(pattern, flags.replace('u', ''))
  }
}
tolerantRegExp.code = 'tolerantRegExp'

const AJV_OPTIONS: Options = {
  strict: false,
  allErrors: true,
  useDefaults: false,
  coerceTypes: false,
  removeAdditional: false,
  logger: false,
  code: { regExp: tolerantRegExp },
}

function createAjv(dialect: SchemaDialect, overrides: Options = {}): AjvCore {
  const ajv = new AJV_CLASSES[dialect]({ ...AJV_OPTIONS, ...overrides })
  addFormats(ajv)
  return ajv
}

const sharedAjv = new Map<SchemaDialect, AjvCore>()
function ajvFor(dialect: SchemaDialect): AjvCore {
  let ajv = sharedAjv.get(dialect)
  if (ajv === undefined) {
    ajv = createAjv(dialect)
    sharedAjv.set(dialect, ajv)
  }
  return ajv
}

const META_SCHEMA_URI: Readonly<Record<SchemaDialect, string>> = {
  'draft-07': 'http://json-schema.org/draft-07/schema',
  '2019-09': 'https://json-schema.org/draft/2019-09/schema',
  '2020-12': 'https://json-schema.org/draft/2020-12/schema',
}

const metaRoots = new Map<SchemaDialect, readonly unknown[]>()
/**
 * The documents meta-schema error paths resolve in: the dialect's meta-schema first, then its
 * vocabulary meta-schemas (2019-09 and 2020-12 split the meta-schema by vocabulary).
 */
function metaSchemaRoots(dialect: SchemaDialect): readonly unknown[] {
  let roots = metaRoots.get(dialect)
  if (roots === undefined) {
    const ajv = ajvFor(dialect)
    const main = ajv.getSchema(META_SCHEMA_URI[dialect])?.schema
    const all = Object.values(ajv.schemas).map((env) => env?.schema)
    roots = [main, ...all.filter((schema) => schema !== main && schema !== undefined)]
    metaRoots.set(dialect, roots)
  }
  return roots
}

// ---------------------------------------------------------------------------------------------
// Small JSON helpers
// ---------------------------------------------------------------------------------------------

type SchemaObject = { readonly [keyword: string]: unknown }

function isObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function unescapePointer(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~')
}

/**
 * Resolves a JSON pointer (RFC 6901, e.g. `/properties/a~1b`) inside `document`.
 * Returns `undefined` when a segment is missing.
 */
export function resolveJsonPointer(document: unknown, pointer: string): unknown {
  if (pointer === '') return document
  if (!pointer.startsWith('/')) return undefined
  let node: unknown = document
  for (const raw of pointer.slice(1).split('/')) {
    const token = unescapePointer(raw)
    if (Array.isArray(node)) {
      if (!/^(0|[1-9]\d*)$/.test(token)) return undefined
      node = node[Number(token)]
    } else if (isObject(node)) {
      if (!Object.prototype.hasOwnProperty.call(node, token)) return undefined
      node = node[token]
    } else {
      return undefined
    }
    if (node === undefined) return undefined
  }
  return node
}

/**
 * Follows a local `$ref` (`#` or `#/json/pointer`, URI-encoded) from `root`; returns
 * `undefined` for non-local or unresolvable references. Used by repair and error summaries.
 */
export function resolveLocalRef(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined
  let fragment: string
  try {
    fragment = decodeURIComponent(ref.slice(1))
  } catch {
    return undefined
  }
  return resolveJsonPointer(root, fragment)
}

/** Follows local `$ref` chains (at most 16 hops) of a schema node. */
function deref(root: unknown, node: unknown): unknown {
  let current = node
  for (let hops = 0; hops < 16 && isObject(current) && typeof current.$ref === 'string'; hops++) {
    const target = resolveLocalRef(root, current.$ref)
    if (target === undefined) return current
    current = target
  }
  return current
}

// ---------------------------------------------------------------------------------------------
// Schema scan: dialect hints, ids, anchors, refs, patterns, cycles
// ---------------------------------------------------------------------------------------------

const FAKE_BASE = 'https://dsh.invalid/schema.json'

/** Keywords whose values are maps of subschemas. */
const MAP_KEYWORDS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies']
/** Keywords whose value is one subschema. */
const SINGLE_KEYWORDS = [
  'additionalProperties',
  'additionalItems',
  'unevaluatedProperties',
  'unevaluatedItems',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'contentSchema',
  'items',
]
/** Keywords whose value is an array of subschemas. */
const ARRAY_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items']

const KEYWORDS_2019_ONLY = new Set(['$recursiveRef', '$recursiveAnchor'])
const KEYWORDS_2019_PLUS = new Set([
  'prefixItems',
  '$dynamicRef',
  '$dynamicAnchor',
  'unevaluatedProperties',
  'unevaluatedItems',
  'dependentRequired',
  'dependentSchemas',
  'minContains',
  'maxContains',
  '$anchor',
])

interface RefSite {
  readonly pointer: string
  readonly ref: string
  readonly base: string
}

interface SchemaScan {
  /** A 2019-09-only keyword (`$recursiveRef`, `$recursiveAnchor`) occurs. */
  uses2019: boolean
  /** A 2019-09/2020-12 keyword occurs. */
  uses2020: boolean
  /** Some schema object declares `$id`. */
  hasId: boolean
  /** JSON pointer of the first object that contains itself, if any. */
  cyclePointer: string | undefined
  readonly refs: RefSite[]
  /** Base URI (without fragment) → the schema resource it names. */
  readonly resources: Map<string, unknown>
  /** `base#anchor` of every `$anchor`, `$dynamicAnchor` and legacy `$id: '#anchor'`. */
  readonly anchors: Set<string>
  readonly patterns: { readonly pointer: string; readonly pattern: string }[]
}

function stripFragment(uri: string): string {
  const hash = uri.indexOf('#')
  return hash < 0 ? uri : uri.slice(0, hash)
}

function resolveUri(ref: string, base: string): string | undefined {
  if (ref.startsWith('#')) return `${base}${ref}`
  try {
    return new URL(ref, base).href
  } catch {
    return undefined
  }
}

function scanSchema(root: SchemaObject): SchemaScan {
  const rootBase =
    typeof root.$id === 'string' && !root.$id.startsWith('#')
      ? stripFragment(resolveUri(root.$id, FAKE_BASE) ?? FAKE_BASE)
      : FAKE_BASE
  const scan: SchemaScan = {
    uses2019: false,
    uses2020: false,
    hasId: false,
    refs: [],
    resources: new Map([[rootBase, root]]),
    anchors: new Set(),
    patterns: [],
    cyclePointer: undefined,
  }
  const ancestors = new Set<object>()

  const visit = (node: unknown, pointer: string, parentBase: string): void => {
    if (!isObject(node) || scan.cyclePointer !== undefined) return
    if (ancestors.has(node)) {
      scan.cyclePointer = pointer
      return
    }
    ancestors.add(node)
    let base = parentBase
    if (typeof node.$id === 'string') {
      scan.hasId = true
      if (node.$id.startsWith('#')) {
        scan.anchors.add(`${base}${node.$id}`)
      } else if (pointer !== '') {
        const resolved = resolveUri(node.$id, base)
        if (resolved !== undefined) {
          base = stripFragment(resolved)
          scan.resources.set(base, node)
        }
      }
    }
    for (const anchorKeyword of ['$anchor', '$dynamicAnchor']) {
      const anchor = node[anchorKeyword]
      if (typeof anchor === 'string') scan.anchors.add(`${base}#${anchor}`)
    }
    for (const refKeyword of ['$ref', '$dynamicRef']) {
      const ref = node[refKeyword]
      if (typeof ref === 'string') scan.refs.push({ pointer: `${pointer}/${refKeyword}`, ref, base })
    }
    if (typeof node.pattern === 'string') scan.patterns.push({ pointer: `${pointer}/pattern`, pattern: node.pattern })
    if (isObject(node.patternProperties)) {
      for (const key of Object.keys(node.patternProperties)) {
        scan.patterns.push({ pointer: `${pointer}/patternProperties/${escapePointer(key)}`, pattern: key })
      }
    }
    for (const key of Object.keys(node)) {
      if (KEYWORDS_2019_ONLY.has(key)) scan.uses2019 = true
      else if (KEYWORDS_2019_PLUS.has(key)) scan.uses2020 = true
    }
    for (const keyword of MAP_KEYWORDS) {
      const map = node[keyword]
      if (!isObject(map)) continue
      for (const [key, sub] of Object.entries(map)) visit(sub, `${pointer}/${keyword}/${escapePointer(key)}`, base)
    }
    for (const keyword of SINGLE_KEYWORDS) {
      const sub = node[keyword]
      if (isObject(sub)) visit(sub, `${pointer}/${keyword}`, base)
    }
    for (const keyword of ARRAY_KEYWORDS) {
      const list = node[keyword]
      if (!Array.isArray(list)) continue
      list.forEach((sub, index) => visit(sub, `${pointer}/${keyword}/${index}`, base))
    }
    ancestors.delete(node)
  }

  visit(root, '', rootBase)
  return scan
}

function dialectOf(schema: SchemaObject, scan: SchemaScan): SchemaDialect {
  const declared = typeof schema.$schema === 'string' ? dialectOfUri(schema.$schema) : undefined
  if (declared !== undefined) return declared
  if (scan.uses2019) return '2019-09'
  if (scan.uses2020) return '2020-12'
  return 'draft-07'
}

function dialectOfUri(uri: string): SchemaDialect | undefined {
  const normalized = uri.replace(/^https?:\/\//, '').replace(/#$/, '')
  switch (normalized) {
    case 'json-schema.org/draft-07/schema':
    case 'json-schema.org/draft-06/schema':
      return 'draft-07'
    case 'json-schema.org/draft/2019-09/schema':
      return '2019-09'
    case 'json-schema.org/draft/2020-12/schema':
      return '2020-12'
    default:
      return undefined
  }
}

/**
 * The dialect a schema is validated with (see the module comment): its `$schema` when known,
 * else detected from 2019/2020-only keywords, else draft-07. Booleans are draft-07.
 */
export function detectDialect(schema: JsonSchemaNode | JsonValue): SchemaDialect {
  if (!isObject(schema)) return 'draft-07'
  try {
    return dialectOf(schema, scanSchema(schema))
  } catch {
    return 'draft-07'
  }
}

/** The schema handed to ajv: the root `$schema` is dropped (the ajv class already is the dialect). */
function withoutDollarSchema(schema: SchemaObject): SchemaObject {
  if (!('$schema' in schema)) return schema
  const { $schema: _dropped, ...rest } = schema
  return rest
}

// ---------------------------------------------------------------------------------------------
// checkSchema
// ---------------------------------------------------------------------------------------------

/**
 * Cheap registration-time check of a schema (docs/design.md, "Definitions and schemas": a schema ajv cannot
 * compile is a registration error). Checks, in order: the shape (an object or a boolean;
 * `$schema` a string), reference cycles between schema objects, the dialect's meta-schema
 * (ajv `validateSchema`), that every `$ref`/`$dynamicRef` resolves inside the document (or to a
 * meta-schema ajv knows), and that every `pattern`/`patternProperties` key is a valid regular
 * expression. Returns the first problem with a JSON pointer into the schema, or `undefined`.
 * Does not compile the schema (validators compile lazily on first use). Measured (warm, on a
 * loaded 2-CPU machine): median 10 µs / p90 41 µs per tool over the 189 MCP fixture tools,
 * median 4 µs / p90 7 µs over the 6,353 raw BFCL functions (40 ms for all of them).
 */
export function checkSchema(schema: JsonSchemaNode | JsonValue): SchemaProblem | undefined {
  if (typeof schema === 'boolean') return undefined
  if (!isObject(schema)) {
    return { pointer: '', message: `a schema must be an object or a boolean (got ${typeLabel(schema)})` }
  }
  if (schema.$schema !== undefined && typeof schema.$schema !== 'string') {
    return { pointer: '/$schema', message: `must be a string (got ${typeLabel(schema.$schema)})` }
  }
  const deep = findDepthProblem(schema)
  if (deep !== undefined) return { pointer: deep.pointer, message: `nests deeper than ${MAX_JSON_DEPTH} levels (MAX_JSON_DEPTH)` }
  const scan = scanSchema(schema)
  if (scan.cyclePointer !== undefined) {
    return {
      pointer: scan.cyclePointer,
      message: 'schema object contains itself (a reference cycle between objects); use $ref for recursion',
    }
  }
  const dialect = dialectOf(schema, scan)
  const ajv = ajvFor(dialect)
  const target = withoutDollarSchema(schema)
  let valid: boolean
  try {
    valid = ajv.validateSchema(target) as boolean
  } catch (error) {
    // Within MAX_JSON_DEPTH this is not expected; a schema must never crash its caller.
    return { pointer: '', message: `could not be checked against the ${dialect} meta-schema: ${error instanceof Error ? error.message : String(error)}` }
  }
  if (!valid) {
    const issues = mapErrors(ajv.errors ?? [], metaSchemaRoots(dialect), target)
    const first = issues[0]
    return first === undefined
      ? { pointer: '', message: `does not match the ${dialect} meta-schema` }
      : { pointer: first.pointer, message: first.message }
  }
  for (const site of scan.refs) {
    if (!refResolves(scan, site, ajv)) return { pointer: site.pointer, message: `cannot resolve reference "${site.ref}"` }
  }
  for (const { pointer, pattern } of scan.patterns) {
    try {
      tolerantRegExp(pattern, 'u')
    } catch (error) {
      return { pointer, message: `is not a valid regular expression: ${(error as Error).message}` }
    }
  }
  return undefined
}

function refResolves(scan: SchemaScan, site: RefSite, ajv: AjvCore): boolean {
  const absolute = resolveUri(site.ref, site.base)
  if (absolute === undefined) return false
  const hash = absolute.indexOf('#')
  const documentUri = hash < 0 ? absolute : absolute.slice(0, hash)
  let fragment: string
  try {
    fragment = hash < 0 ? '' : decodeURIComponent(absolute.slice(hash + 1))
  } catch {
    return false
  }
  const document = scan.resources.get(documentUri)
  if (document === undefined) {
    try {
      return ajv.getSchema(absolute) !== undefined
    } catch {
      return false
    }
  }
  if (fragment === '') return true
  if (fragment.startsWith('/')) return resolveJsonPointer(document, fragment) !== undefined
  return scan.anchors.has(`${documentUri}#${fragment}`)
}

// ---------------------------------------------------------------------------------------------
// getValidator and its cache
// ---------------------------------------------------------------------------------------------

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
 * The validator of a schema. Cached by schema object identity (a `WeakMap`) and by structure
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

function createValidator(schema: unknown): Validator {
  counters.validators++
  let compiled: Validator | undefined
  return (value: unknown) => {
    compiled ??= compile(schema)
    return compiled(value)
  }
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

// ---------------------------------------------------------------------------------------------
// ajv errors → issues
// ---------------------------------------------------------------------------------------------

/** Joins `a`, `a or b`, `a, b or c`. */
function orList(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? ''
  return `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`
}

const ENUM_DISPLAY_LIMIT = 20

function displayJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

function childPointer(pointer: string, property: unknown): string {
  return `${pointer}/${escapePointer(String(property))}`
}

/**
 * The message of a key the schema does not allow: names the closest declared key when one is
 * close (`did you mean "hours_back"?`), else lists the declared keys (at most 10).
 */
function unknownKeyMessage(error: ErrorObject, key: string, data: unknown, roots: readonly unknown[]): string {
  const parentPath = error.schemaPath.slice(0, error.schemaPath.lastIndexOf('/'))
  let parent: unknown
  for (const root of roots) {
    parent = schemaAtPath(root, parentPath === '#' ? '#' : parentPath)
    if (parent !== undefined) break
  }
  const properties = isObject(parent) && isObject(parent.properties) ? Object.keys(parent.properties) : []
  if (properties.length === 0) return 'is not allowed (this object takes no other keys)'
  const value = resolveJsonPointer(data, error.instancePath)
  const suggestion = suggestKey(key, properties, new Set(isObject(value) ? Object.keys(value) : []))
  if (suggestion !== undefined) return `is not a declared key; did you mean ${displayJson(suggestion)}?`
  const shown = properties.slice(0, 10).map(displayJson).join(', ')
  return `is not a declared key (declared: ${shown}${properties.length > 10 ? `, … ${properties.length - 10} more` : ''})`
}

function mapError(error: ErrorObject, data: unknown, roots: readonly unknown[]): ValidationIssue | undefined {
  const { keyword, instancePath: pointer } = error
  const params = error.params as Record<string, unknown>
  if (error.propertyName !== undefined) {
    // A `propertyNames` violation: name the offending key, not the object.
    const inner = mapError({ ...error, instancePath: '', propertyName: undefined }, error.propertyName, roots)
    return inner && { pointer: childPointer(pointer, error.propertyName), keyword, message: `property name ${inner.message}` }
  }
  switch (keyword) {
    case 'propertyNames':
      // Summary of the inner errors above, which carry the detail.
      return undefined
    case 'required':
      return { pointer: childPointer(pointer, params.missingProperty), keyword, message: 'is required' }
    case 'dependentRequired':
    case 'dependencies':
      if (params.missingProperty !== undefined) {
        return {
          pointer: childPointer(pointer, params.missingProperty),
          keyword,
          message: `is required when ${displayJson(params.property)} is present`,
        }
      }
      break
    case 'additionalProperties':
      return { pointer: childPointer(pointer, params.additionalProperty), keyword, message: unknownKeyMessage(error, String(params.additionalProperty), data, roots) }
    case 'unevaluatedProperties':
      return { pointer: childPointer(pointer, params.unevaluatedProperty), keyword, message: unknownKeyMessage(error, String(params.unevaluatedProperty), data, roots) }
    case 'false schema':
      return { pointer, keyword, message: 'is not allowed' }
    case 'type': {
      const expected = Array.isArray(params.type) ? params.type.map(String) : String(params.type).split(',')
      const got = typeLabel(resolveJsonPointer(data, pointer))
      return { pointer, keyword, message: `must be ${orList(expected)} (got ${got})` }
    }
    case 'enum': {
      const allowed = Array.isArray(params.allowedValues) ? params.allowedValues : []
      const shown = allowed.slice(0, ENUM_DISPLAY_LIMIT).map(displayJson).join(', ')
      const more = allowed.length > ENUM_DISPLAY_LIMIT ? ` and ${allowed.length - ENUM_DISPLAY_LIMIT} more` : ''
      return { pointer, keyword, message: `must be one of ${shown}${more}` }
    }
    case 'const':
      return { pointer, keyword, message: `must equal ${displayJson(params.allowedValue)}` }
    default:
      break
  }
  return { pointer, keyword, message: error.message ?? `must satisfy "${keyword}"` }
}

function isUnder(pointer: string, ancestor: string): boolean {
  return ancestor === '' || pointer === ancestor || pointer.startsWith(`${ancestor}/`)
}

/**
 * With `allErrors`, ajv reports every branch's errors right before a failing `anyOf`/`oneOf`.
 * This finds where that block starts: errors at or under the combinator's instance location
 * that come from its branches (or from `$defs` they reference), stopping at a sibling
 * keyword of the same schema object.
 */
function branchBlockStart(errors: readonly ErrorObject[], index: number): number {
  const combinator = errors[index]!
  const own = `${combinator.schemaPath}/`
  const parent = combinator.schemaPath.slice(0, combinator.schemaPath.lastIndexOf('/'))
  let start = index
  while (start > 0) {
    const previous = errors[start - 1]!
    if (!isUnder(previous.instancePath, combinator.instancePath)) break
    if (!previous.schemaPath.startsWith(own) && previous.schemaPath.startsWith(`${parent}/`)) {
      const next = previous.schemaPath.slice(parent.length + 1).split('/')[0]
      if (next !== '$defs' && next !== 'definitions') break
    }
    start--
  }
  return start
}

function branchIndexOf(schemaPath: string, combinatorPath: string): number | undefined {
  if (!schemaPath.startsWith(`${combinatorPath}/`)) return undefined
  const index = Number(schemaPath.slice(combinatorPath.length + 1).split('/')[0])
  return Number.isInteger(index) ? index : undefined
}

function schemaAtPath(root: unknown, schemaPath: string): unknown {
  if (!schemaPath.startsWith('#')) return undefined
  return resolveLocalRef(root, schemaPath)
}

/** The JSON types a schema admits, or `undefined` when it does not restrict the type. */
function admittedTypes(root: unknown, node: unknown, depth = 0): string[] | undefined {
  const schema = deref(root, node)
  if (schema === false) return []
  if (!isObject(schema) || depth > 8) return undefined
  if (typeof schema.type === 'string') return [schema.type]
  if (Array.isArray(schema.type)) return schema.type.map(String)
  if ('const' in schema) return [typeLabel(schema.const)]
  if (Array.isArray(schema.enum)) return [...new Set(schema.enum.map(typeLabel))]
  const branches = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined
  if (branches === undefined) return undefined
  const union = new Set<string>()
  for (const branch of branches) {
    const types = admittedTypes(root, branch, depth + 1)
    if (types === undefined) return undefined
    for (const type of types) union.add(type)
  }
  return [...union]
}

function typeAdmits(types: readonly string[] | undefined, value: unknown): boolean {
  if (types === undefined) return true
  const actual = typeLabel(value)
  return types.some(
    (type) => type === actual || (type === 'integer' && typeof value === 'number' && Number.isInteger(value)),
  )
}

/** A branch whose `const` (or one-value `enum`) properties disagree with the value cannot be meant. */
function discriminatorsAgree(root: unknown, node: unknown, value: unknown): boolean {
  const schema = deref(root, node)
  if (!isObject(schema) || !isObject(value) || !isObject(schema.properties)) return true
  for (const [key, sub] of Object.entries(schema.properties)) {
    if (!(key in value)) continue
    const property = deref(root, sub)
    if (!isObject(property)) continue
    const expected = 'const' in property ? [property.const] : Array.isArray(property.enum) && property.enum.length === 1 ? property.enum : undefined
    if (expected !== undefined && displayJson(expected[0]) !== displayJson(value[key])) return false
  }
  return true
}

function summariseCombinator(
  combinator: ErrorObject,
  block: readonly ErrorObject[],
  roots: readonly unknown[],
  data: unknown,
): ValidationIssue[] {
  const { keyword, instancePath: pointer, schemaPath } = combinator
  const params = combinator.params as Record<string, unknown>
  if (keyword === 'oneOf' && Array.isArray(params.passingSchemas)) {
    const matched = params.passingSchemas.map((index) => `#${String(index)}`)
    return [{ pointer, keyword, message: `must match exactly one schema in oneOf (matches ${orList(matched).replace(' or ', ' and ')})` }]
  }
  let root: unknown
  let branches: unknown
  for (const candidate of roots) {
    branches = schemaAtPath(candidate, schemaPath)
    root = candidate
    if (Array.isArray(branches)) break
  }
  const value = resolveJsonPointer(data, pointer)
  if (Array.isArray(branches) && branches.length > 0) {
    const types = branches.map((branch) => admittedTypes(root, branch))
    let candidates = branches.map((_, index) => index).filter((index) => typeAdmits(types[index], value))
    if (candidates.length === 0 && types.every((list) => list !== undefined)) {
      const union = [...new Set(types.flatMap((list) => list ?? []))]
      return [{ pointer, keyword, message: `must be ${orList(union)} (got ${typeLabel(value)})` }]
    }
    if (candidates.length > 1) candidates = candidates.filter((index) => discriminatorsAgree(root, branches[index], value))
    if (candidates.length === 1) {
      const chosen = candidates[0]!
      const refBranches = branches
        .map((branch, index) => (isObject(branch) && typeof branch.$ref === 'string' ? index : -1))
        .filter((index) => index >= 0)
      const claimsUnattributed = refBranches.length === 1 && refBranches[0] === chosen
      const own = block.filter((error) => {
        const index = branchIndexOf(error.schemaPath, schemaPath)
        return index === chosen || (index === undefined && claimsUnattributed)
      })
      const issues = summarise(own, roots, data)
      if (issues.length > 0) return issues
    }
  }
  const message = keyword === 'anyOf' ? 'must match at least one schema in anyOf' : 'must match exactly one schema in oneOf'
  return [{ pointer, keyword, message }]
}

function summarise(errors: readonly ErrorObject[], roots: readonly unknown[], data: unknown): ValidationIssue[] {
  const reversed: ValidationIssue[][] = []
  let index = errors.length - 1
  while (index >= 0) {
    const error = errors[index]!
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf') {
      const start = branchBlockStart(errors, index)
      reversed.push(summariseCombinator(error, errors.slice(start, index), roots, data))
      index = start - 1
    } else {
      const issue = mapError(error, data, roots)
      reversed.push(issue === undefined ? [] : [issue])
      index--
    }
  }
  return reversed.reverse().flat()
}

/**
 * Maps ajv errors (of a schema whose `schemaPath`s resolve in one of `roots`) on `data` to issues:
 * human messages, instance pointers naming the offending location, one summary per failing
 * `anyOf`/`oneOf` (the branch the value's type selects when exactly one does; otherwise a
 * single issue at the combinator's location), duplicates removed.
 */
function mapErrors(errors: readonly ErrorObject[], roots: readonly unknown[], data: unknown): ValidationIssue[] {
  const seen = new Set<string>()
  const issues: ValidationIssue[] = []
  for (const issue of summarise(errors, roots, data)) {
    const key = `${issue.pointer}\u0000${issue.keyword}\u0000${issue.message}`
    if (seen.has(key)) continue
    seen.add(key)
    issues.push(issue)
  }
  return issues
}

/** Characters of issue text `formatIssues` lists before it summarises the rest. */
const ISSUES_TEXT_BUDGET = 1_500

/**
 * Formats issues for a model-facing error message: `pointer: message` joined by `; `, the root
 * pointer shown as `(root)`. Example: `/count: must be integer (got string); /name: is required`.
 * Pointers longer than `MAX_POINTER_CHARS` keep their start and end around `/…`, invisible
 * characters are escaped, and once the text passes 1,500 characters the remaining issues are
 * summarised as `… and N more problems`.
 */
export function formatIssues(issues: readonly ValidationIssue[]): string {
  let out = ''
  for (let i = 0; i < issues.length; i++) {
    const issue = issues[i]!
    const part = `${issue.pointer === '' ? '(root)' : capPointer(issue.pointer)}: ${escapeInvisible(issue.message)}`
    if (i > 0 && out.length + part.length > ISSUES_TEXT_BUDGET) {
      const rest = issues.length - i
      return `${out}; … and ${rest} more problem${rest === 1 ? '' : 's'}`
    }
    out = i === 0 ? part : `${out}; ${part}`
  }
  return out
}
