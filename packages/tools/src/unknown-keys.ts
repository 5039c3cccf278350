/**
 * Unknown argument keys: closing the objects of a schema that says nothing about extra keys
 * (the registry option `unknownKeys: 'reject'`), and the "did you mean" suggestion a rejection
 * carries.
 *
 * Why: a model that writes `{"hours": 1}` for a declared `hours_back` gets a body run with the
 * default instead of an error it could correct. Authors close objects themselves
 * (`additionalProperties: false`, or `closed: true` in `defineTool`); a deployment can close
 * every object that leaves the question open.
 *
 * The same suggestion serves unknown config keys: {@link unknownOption} is the check every
 * plugin's and executor's config uses to refuse a misspelt option instead of ignoring it.
 */
import type { JsonSchemaNode } from './contracts'

/** How the registry treats argument keys a schema does not declare (registry config `unknownKeys`). */
export type UnknownKeysMode = 'allow' | 'reject'

type SchemaObject = { readonly [keyword: string]: unknown }

function isObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Keywords that already decide extra keys, or through which other subschemas may declare more. */
const DECIDES_OR_COMPOSES = [
  'additionalProperties',
  'patternProperties',
  'unevaluatedProperties',
  'allOf',
  'anyOf',
  'oneOf',
  '$ref',
  '$dynamicRef',
  '$recursiveRef',
  'if',
  'dependentSchemas',
  'dependencies',
] as const

/**
 * A copy of `schema` in which every object that declares `properties` and says nothing about
 * other keys gets `additionalProperties: false`. Said nothing means: none of
 * `additionalProperties`, `patternProperties`, `unevaluatedProperties`, and no composition or
 * reference beside it (`allOf`/`anyOf`/`oneOf`/`$ref`/`if`/`dependentSchemas`, which could
 * declare more keys). Only objects reached through `properties`, `items` (one schema or a
 * tuple), `prefixItems` and a schema-valued `additionalProperties` from the root are closed;
 * subschemas of combinators and `$defs` are left as they are (closing a branch of `allOf`
 * would reject its siblings' keys). The input is not modified; untouched parts are shared.
 */
export function closeObjects(schema: JsonSchemaNode): JsonSchemaNode {
  return close(schema)
}

function close(node: unknown): JsonSchemaNode {
  if (!isObject(node)) return node as JsonSchemaNode
  let out: Record<string, unknown> | undefined
  const set = (key: string, value: unknown): void => {
    out ??= copy(node)
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true })
  }
  if (isObject(node.properties)) {
    const properties = node.properties
    let closedProperties: Record<string, unknown> | undefined
    for (const key of Object.keys(properties)) {
      const closed = close(properties[key])
      if (closed !== properties[key]) {
        closedProperties ??= copy(properties)
        Object.defineProperty(closedProperties, key, { value: closed, enumerable: true, writable: true, configurable: true })
      }
    }
    if (closedProperties !== undefined) set('properties', closedProperties)
    if (!DECIDES_OR_COMPOSES.some((keyword) => keyword in node)) set('additionalProperties', false)
  }
  if (isObject(node.items)) {
    const items = close(node.items)
    if (items !== node.items) set('items', items)
  }
  for (const keyword of ['items', 'prefixItems'] as const) {
    const tuple = node[keyword]
    if (!Array.isArray(tuple)) continue
    const closed = tuple.map((item: unknown) => close(item))
    if (closed.some((item, i) => item !== tuple[i])) set(keyword, closed)
  }
  if (isObject(node.additionalProperties)) {
    const additional = close(node.additionalProperties)
    if (additional !== node.additionalProperties) set('additionalProperties', additional)
  }
  return (out ?? node) as JsonSchemaNode
}

function copy(node: SchemaObject): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(node)) Object.defineProperty(out, key, { value: node[key], enumerable: true, writable: true, configurable: true })
  return out
}

/** Lower case without `_`, `-`, `.` and spaces: `hoursBack`, `hours-back` and `hours_back` compare equal. */
function fold(key: string): string {
  return key.toLowerCase().replace(/[_\-.\s]/g, '')
}

/** Edit distance counting an adjacent transposition (`rnu` → `run`) as one edit (optimal string alignment). */
function editDistance(a: string, b: string): number {
  if (a === b) return 0
  let before: number[] = []
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1)
      current[j] = d
    }
    before = previous
    previous = current
  }
  return previous[b.length]!
}

/**
 * The declared key an unknown key most likely meant, or `undefined` when none is close:
 * the same key up to case and `_`/`-`/`.` separators; else one folded key a prefix or suffix
 * of the other (at least 3 characters, e.g. `hours` → `hours_back`); else the smallest edit
 * distance, at most a third of the longer folded key (e.g. `serach` → `search`). Keys the
 * arguments already hold (`present`) are not suggested. Ties go to the first declared key.
 */
export function suggestKey(unknown: string, declared: readonly string[], present: ReadonlySet<string> = new Set()): string | undefined {
  const candidates = declared.filter((key) => !present.has(key) && key !== unknown)
  if (candidates.length === 0 || unknown.length > 200) return undefined
  const u = fold(unknown)
  if (u === '') return undefined
  let best: { key: string; score: number } | undefined
  for (const key of candidates) {
    const k = fold(key)
    let score: number
    if (k === u) score = 0
    else if (Math.min(k.length, u.length) >= 3 && (k.startsWith(u) || u.startsWith(k) || k.endsWith(u) || u.endsWith(k))) score = 1
    else {
      if (k.length > 200) continue
      const distance = editDistance(u, k)
      if (distance > Math.floor(Math.max(u.length, k.length) / 3)) continue
      score = 2 + distance
    }
    if (best === undefined || score < best.score) best = { key, score }
  }
  return best?.key
}

/** An option a config object holds that its package does not know (see {@link unknownOption}). */
export interface UnknownOption {
  /** The unknown key as written, e.g. `maxAttempt`. */
  readonly key: string
  /** JSON pointer of the key: the `base` pointer given plus `/key` (RFC 6901 escaped), e.g. `/limits/wallMS`. */
  readonly pointer: string
  /**
   * What was expected, ready to follow the pointer: `is not a known option (expected a, b, c)`,
   * or `… (expected a, b, c; did you mean "x"?)` when {@link suggestKey} finds a close known key
   * the config does not already hold.
   */
  readonly detail: string
}

/**
 * The first key of a plugin's or executor's config object that is not one of `known`, for
 * rejecting a misspelt option instead of silently using the default (`maxAttempt: 5` would
 * otherwise leave the default of 3 attempts). Own enumerable string keys are checked in their
 * order; `undefined` when every key is known. Each package puts its own prefix and error class
 * around the result: `retry policy config: /maxAttempt is not a known option (expected
 * maxAttempts, …; did you mean "maxAttempts"?)`.
 *
 * @param config - the object to check (callers check it is an object first).
 * @param known - the keys the package documents, in the order the message lists them.
 * @param base - JSON pointer of `config` inside the whole config, `''` for the root.
 */
export function unknownOption(config: object, known: readonly string[], base = ''): UnknownOption | undefined {
  const keys = Object.keys(config)
  for (const key of keys) if (!known.includes(key)) return describeUnknown(key, known, keys, base)
  return undefined
}

/**
 * Every key of a config object that is not one of `known`, in the object's key order, each as
 * {@link unknownOption} describes it (empty when every key is known). For a config check that
 * reports every problem at once rather than the first, e.g. the timeout policy's
 * `tool-call-timeout-policy config: /defaultTimeout is not a known option (expected
 * defaultTimeoutMs, hardLimit; did you mean "defaultTimeoutMs"?)`.
 *
 * @param config - the object to check (callers check it is an object first).
 * @param known - the keys the package documents, in the order the message lists them.
 * @param base - JSON pointer of `config` inside the whole config, `''` for the root.
 */
export function unknownOptions(config: object, known: readonly string[], base = ''): readonly UnknownOption[] {
  const keys = Object.keys(config)
  const found: UnknownOption[] = []
  for (const key of keys) if (!known.includes(key)) found.push(describeUnknown(key, known, keys, base))
  return Object.freeze(found)
}

function describeUnknown(key: string, known: readonly string[], keys: readonly string[], base: string): UnknownOption {
  // A known key the config already holds is no suggestion (as for arguments).
  const near = suggestKey(key, known, new Set(keys))
  const expected = `expected ${known.join(', ')}${near === undefined ? '' : `; did you mean "${near}"?`}`
  return Object.freeze({ key, pointer: `${base}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, detail: `is not a known option (${expected})` })
}

/**
 * A refused configuration value as the `got …` of its error message: a string quoted (so `"3"`
 * does not read as the number 3); a number, bigint, boolean, `null` or `undefined` as written;
 * anything else by its kind (`an array`, `an object`, `a function` — never an object's contents
 * or a function's source). Used by every config check of this repository's packages.
 */
export function showConfigValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value)
  if (value === null || typeof value !== 'object') return typeof value === 'function' ? 'a function' : String(value)
  return Array.isArray(value) ? 'an array' : 'an object'
}

/**
 * Checks that a plugin's or executor's config (or an object nested in it) is a plain object of
 * known keys: the one check every config of this repository's packages runs before reading
 * its fields, so that a misspelt option is refused instead of silently leaving the default.
 *
 * @param what - the config's name as messages start, e.g. `native executor config`.
 * @param value - the config object, or the nested object at `pointer`.
 * @param known - the documented keys, in the order the message lists them.
 * @param pointer - JSON pointer of `value` inside the whole config, `''` for the root.
 * @throws RangeError `<what>: <pointer> must be an object, got <value>` (pointer left out at the
 *   root; value as {@link showConfigValue} shows it) for `null`, an array or a non-object, and
 *   `<what>: <pointer>/<key> is not a known option (expected …; did you mean "…"?)` for the first
 *   unknown key ({@link unknownOption}).
 */
export function checkConfigObject(what: string, value: unknown, known: readonly string[], pointer = ''): asserts value is object {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new RangeError(`${what}: ${pointer === '' ? '' : `${pointer} `}must be an object, got ${showConfigValue(value)}`)
  const unknown = unknownOption(value, known, pointer)
  if (unknown !== undefined) throw new RangeError(`${what}: ${unknown.pointer} ${unknown.detail}`)
}
