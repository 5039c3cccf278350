/**
 * `checkSchema`: the registration-time check of a schema (shape, depth, cycles, meta-schema,
 * references, patterns), without compiling it.
 */
import type AjvCore from 'ajv/dist/core.js'
import type { JsonSchemaNode, JsonValue } from '../contracts'
import { typeLabel } from '../errors'
import { findDepthProblem, MAX_JSON_DEPTH } from '../limits'
import { ajvFor, metaSchemaRoots, tolerantRegExp } from './ajv'
import { mapErrors } from './issues'
import { isObject, resolveJsonPointer } from './pointer'
import { dialectOf, resolveUri, scanSchema, withoutDollarSchema, type RefSite, type SchemaScan } from './scan'
import type { SchemaProblem } from './types'

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
