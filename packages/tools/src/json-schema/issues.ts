/**
 * ajv errors → `ValidationIssue`s: human messages, instance pointers naming the offending
 * location, one summary per failing `anyOf`/`oneOf`; and `formatIssues`, their model-facing text.
 */
import type { ErrorObject } from 'ajv'
import { typeLabel } from '../errors'
import { escapePointer } from '../json'
import { capPointer, escapeInvisible } from '../limits'
import { suggestKey } from '../unknown-keys'
import { deref, isObject, resolveJsonPointer, resolveLocalRef } from './pointer'
import type { ValidationIssue } from './types'

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
 * single issue at the combinator's location), duplicates removed, in the order the schema
 * declares its fields (see {@link orderByDeclaration}).
 */
export function mapErrors(errors: readonly ErrorObject[], roots: readonly unknown[], data: unknown): ValidationIssue[] {
  const seen = new Set<string>()
  const issues: ValidationIssue[] = []
  for (const issue of summarise(errors, roots, data)) {
    const key = `${issue.pointer}\u0000${issue.keyword}\u0000${issue.message}`
    if (seen.has(key)) continue
    seen.add(key)
    issues.push(issue)
  }
  return issues.length > 1 ? orderByDeclaration(issues, roots[0]) : issues
}

/** Where a pointer segment sorts when the schema does not declare it: after every declared one. */
const UNDECLARED = Number.MAX_SAFE_INTEGER

/**
 * Orders issues as the schema declares what they point at, so the text reads in the tool's own
 * field order whatever order ajv checked its keywords in (ajv reports a whole object's missing
 * keys before its members' violations): segment by segment, a key's position in its object's
 * `properties` (local `$ref`s followed), an array element's index; a key the schema does not
 * declare sorts after the declared ones, and a location before what lies under it. Issues with
 * the same position keep ajv's order (the sort is stable). Example, `properties: { a, b }` with
 * both required and `{ "a": "2" }`: `/a: must be integer (got string); /b: is required`.
 */
function orderByDeclaration(issues: readonly ValidationIssue[], root: unknown): ValidationIssue[] {
  const positions = new Map<object, Map<string, number>>()
  const positionIn = (properties: Record<string, unknown>, key: string): number => {
    let index = positions.get(properties)
    if (index === undefined) {
      index = new Map(Object.keys(properties).map((name, i) => [name, i]))
      positions.set(properties, index)
    }
    return index.get(key) ?? UNDECLARED
  }
  const keyOf = (pointer: string): number[] => {
    if (pointer === '') return []
    const key: number[] = []
    let node: unknown = root
    for (const raw of pointer.slice(1).split('/')) {
      const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~')
      const schema = deref(root, node)
      const properties = isObject(schema) && isObject(schema.properties) ? schema.properties : undefined
      if (properties !== undefined && Object.hasOwn(properties, segment)) {
        key.push(positionIn(properties, segment))
        node = properties[segment]
      } else if (/^(?:0|[1-9]\d*)$/.test(segment)) {
        const index = Number(segment)
        key.push(index)
        node = isObject(schema) ? elementSchema(schema, index) : undefined
      } else {
        key.push(UNDECLARED)
        node = undefined
      }
    }
    return key
  }
  const keyed = issues.map((issue, order) => ({ issue, order, key: keyOf(issue.pointer) }))
  keyed.sort((x, y) => compareKeys(x.key, y.key) || x.order - y.order)
  return keyed.map((entry) => entry.issue)
}

/** The schema of element `index` of an array schema (`prefixItems`, then `items` in either draft's form). */
function elementSchema(schema: Record<string, unknown>, index: number): unknown {
  if (Array.isArray(schema.prefixItems) && index < schema.prefixItems.length) return schema.prefixItems[index]
  if (Array.isArray(schema.items)) return index < schema.items.length ? schema.items[index] : schema.additionalItems
  return schema.items
}

function compareKeys(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!
  return a.length - b.length
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
