/**
 * The schema scan and dialect detection: one walk over a schema's subschemas that collects
 * dialect hints, `$id` resources, anchors, references and patterns, and finds reference cycles
 * between schema objects; the dialect a schema is validated with.
 *
 * Dialects: `$schema` selects the ajv class (draft-07 → `Ajv`, 2019-09 → `ajv/dist/2019`,
 * 2020-12 → `ajv/dist/2020`). Without a known `$schema`, 2019/2020-only keywords
 * (`prefixItems`, `$dynamicRef`, `$dynamicAnchor`, `unevaluated*`, `dependentRequired`,
 * `dependentSchemas`, `minContains`, `maxContains`, `$anchor`) select 2020-12 (`$recursiveRef` /
 * `$recursiveAnchor` select 2019-09); everything else is draft-07. An unknown `$schema`
 * (e.g. draft-04) is validated as draft-07.
 */
import type { JsonSchemaNode, JsonValue } from '../contracts'
import { escapePointer } from '../json'
import { isObject, type SchemaObject } from './pointer'
import type { SchemaDialect } from './types'

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

export interface RefSite {
  readonly pointer: string
  readonly ref: string
  readonly base: string
}

export interface SchemaScan {
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

export function resolveUri(ref: string, base: string): string | undefined {
  if (ref.startsWith('#')) return `${base}${ref}`
  try {
    return new URL(ref, base).href
  } catch {
    return undefined
  }
}

export function scanSchema(root: SchemaObject): SchemaScan {
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

export function dialectOf(schema: SchemaObject, scan: SchemaScan): SchemaDialect {
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
export function withoutDollarSchema(schema: SchemaObject): SchemaObject {
  if (!('$schema' in schema)) return schema
  const { $schema: _dropped, ...rest } = schema
  return rest
}
