/**
 * Root normalization shared by every provider: the parameters schema must be a plain
 * `type: "object"` schema without root combinators (OpenAI rejects `anyOf`/`oneOf`/`allOf`/
 * `enum`/`not` at the top level; Anthropic rejects root `oneOf`/`allOf`/`anyOf`; Gemini needs an
 * OBJECT). Root `allOf` object branches are merged; root `anyOf`/`oneOf` object branches are
 * united (properties merged, only properties every branch requires stay required); anything
 * else at the root is dropped. The local validator keeps enforcing the original schema.
 */
import type { JsonObject, JsonValue } from '@deepseek-ai/dsh-tools'
import { ConversionFailure, Origins, Report, canonicalJson, childPointer, isObject, setKey, show, typeList } from './json'

/** Options of {@link normalizeRoot}. */
export interface RootOptions {
  /** Add `properties: {}` when absent (OpenAI-family providers). */
  readonly requireProperties: boolean
}

const ROOT_DROPPED = ['not', 'if', 'then', 'else', 'enum', 'const'] as const

/**
 * Normalizes the root of a parameters schema (after `$ref` inlining).
 *
 * @throws ConversionFailure `SCHEMA_UNSUPPORTED` when the root is `false`, not an object schema,
 *   or typed as something other than an object.
 */
export function normalizeRoot(schema: JsonValue, base: string, report: Report, origins: Origins, options: RootOptions): JsonObject {
  if (schema === true) {
    report.warn(base, 'ROOT_NORMALIZED', 'parameters `true` (any value) declared as an object with no declared properties')
    return origins.set({ type: 'object', properties: {} }, base)
  }
  if (schema === false) throw new ConversionFailure('SCHEMA_UNSUPPORTED', base, 'parameters is `false`: no argument object can be valid')
  if (!isObject(schema)) throw new ConversionFailure('SCHEMA_UNSUPPORTED', base, `parameters must be a JSON Schema object, got ${show(schema)}`)

  const root: JsonObject = { ...schema }
  const types = typeList(root)
  if (root.type === undefined) {
    root.type = 'object'
    report.warn(childPointer(base, 'type'), 'ROOT_NORMALIZED', 'added `type: "object"` to the parameters root')
  } else if (types.length !== 1 || types[0] !== 'object') {
    if (!types.includes('object')) {
      throw new ConversionFailure('SCHEMA_UNSUPPORTED', childPointer(base, 'type'), `parameters must describe an object, but its type is ${show(root.type)}`)
    }
    root.type = 'object'
    report.warn(childPointer(base, 'type'), 'ROOT_NORMALIZED', `root type ${show(schema.type as JsonValue)} narrowed to "object"`)
  }

  if (Array.isArray(root.allOf)) {
    const branches = root.allOf
    delete root.allOf
    const pointer = childPointer(base, 'allOf')
    let merged = 0
    branches.forEach((branch, i) => {
      if (!isObjectBranch(branch)) {
        report.warn(childPointer(pointer, i), 'ROOT_COMBINATOR_DROPPED', `root allOf branch ${i} is not an object schema and was dropped`)
        return
      }
      mergeObject(root, branch, 'all')
      merged++
    })
    if (merged > 0) report.warn(pointer, 'ROOT_COMBINATOR_MERGED', `root allOf: ${merged} object branch(es) merged into the root`)
  }

  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = root[keyword]
    if (!Array.isArray(branches)) continue
    delete root[keyword]
    const pointer = childPointer(base, keyword)
    const objects: JsonObject[] = []
    branches.forEach((branch, i) => {
      if (isObjectBranch(branch) && isObject(branch)) objects.push(branch)
      else report.warn(childPointer(pointer, i), 'ROOT_COMBINATOR_DROPPED', `root ${keyword} branch ${i} is not an object schema and was dropped`)
    })
    if (objects.length === 0) continue
    const union: JsonObject = {}
    let required: string[] | undefined
    for (const branch of objects) {
      mergeObject(union, { ...branch, required: [] }, 'any')
      const own = Array.isArray(branch.required) ? branch.required.filter((x): x is string => typeof x === 'string') : []
      required = required === undefined ? own : required.filter((name) => own.includes(name))
    }
    mergeObject(root, { ...union, required: required ?? [] }, 'all')
    report.warn(
      pointer,
      'ROOT_COMBINATOR_MERGED',
      `root ${keyword} of ${objects.length} object branch(es) declared as one object: properties united, only properties required by every branch stay required (the local validator still enforces the ${keyword})`,
    )
  }

  for (const keyword of ROOT_DROPPED) {
    if (root[keyword] === undefined) continue
    delete root[keyword]
    report.warn(childPointer(base, keyword), 'ROOT_NORMALIZED', `removed root \`${keyword}\`: providers accept only a plain object schema at the root`)
  }

  if (options.requireProperties && !isObject(root.properties)) {
    root.properties = {}
    report.warn(childPointer(base, 'properties'), 'ROOT_NORMALIZED', 'added `properties: {}` to the parameters root')
  }
  return origins.set(root, base)
}

/** A branch that can describe the arguments object: an object without a non-object type. */
function isObjectBranch(branch: JsonValue): boolean {
  if (branch === true) return true
  if (!isObject(branch)) return false
  const types = typeList(branch)
  return branch.type === undefined ? !('enum' in branch || 'const' in branch || 'items' in branch) : types.includes('object')
}

/**
 * Merges an object branch into `target`: properties (same name, different schema → `allOf` for
 * `all`, `anyOf` for `any`), `required` (union), other keywords the target lacks.
 */
function mergeObject(target: JsonObject, branch: JsonValue, mode: 'all' | 'any'): void {
  if (!isObject(branch)) return
  for (const [key, value] of Object.entries(branch)) {
    if (key === 'type' || key === 'description' || key === 'title' || key === '$schema' || key === '$id') continue
    if (key === 'properties' && isObject(value)) {
      const properties: JsonObject = isObject(target.properties) ? { ...target.properties } : {}
      for (const [name, schema] of Object.entries(value)) {
        const existing = properties[name]
        if (existing === undefined || canonicalJson(existing) === canonicalJson(schema)) setKey(properties, name, schema)
        else setKey(properties, name, { [mode === 'all' ? 'allOf' : 'anyOf']: [existing, schema] })
      }
      target.properties = properties
    } else if (key === 'required' && Array.isArray(value)) {
      const required = Array.isArray(target.required) ? [...target.required] : []
      for (const name of value) if (typeof name === 'string' && !required.includes(name)) required.push(name)
      target.required = required
    } else if (target[key] === undefined) {
      setKey(target, key, value)
    }
  }
}
