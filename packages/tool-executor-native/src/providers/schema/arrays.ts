/**
 * OpenAI-family array nodes: OpenAI answers a request whose tool schema has an array node
 * without `items` with HTTP 400 ("array schema missing items"), even without strict mode, and
 * one such tool fails the whole request. Every array node — `type: "array"`, a type list that
 * includes `"array"` (`["array", "null"]`), a tuple given only `prefixItems` (or a draft-04
 * `items` list) — gets one `items` schema here; each change is a warning.
 */
import type { JsonObject, JsonValue } from '@deepseek-ai/dsh-tools'
import { Origins, Report, childPointer, typeList } from './json'
import { mapSchema } from './walk'

/** Gives every array node under `root` a single `items` schema (see the module comment). */
export function ensureArrayItems(root: JsonObject, base: string, report: Report, origins: Origins): JsonObject {
  return mapSchema(root, base, origins, (node, pointer) => {
    const isArray = typeList(node).includes('array') || (node.type === undefined && (node.prefixItems !== undefined || Array.isArray(node.items)))
    if (!isArray) return node
    const tuple = Array.isArray(node.prefixItems) ? node.prefixItems : Array.isArray(node.items) ? node.items : undefined
    if (tuple !== undefined) {
      const key = Array.isArray(node.prefixItems) ? 'prefixItems' : 'items'
      const positions = tuple as JsonValue[]
      delete node.prefixItems
      node.items = positions.length === 0 ? {} : positions.length === 1 ? (positions[0] as JsonValue) : { anyOf: positions }
      report.warn(
        childPointer(pointer, key),
        'VALUE_DEGRADED',
        `tuple ${key} declared as an array whose items match any of the ${positions.length} position schemas (OpenAI-family providers require one items schema; the local validator still enforces the positions)`,
      )
      return node
    }
    if (node.items === undefined) {
      node.items = {}
      report.warn(childPointer(pointer, 'items'), 'KEYWORD_REWRITTEN', 'added `items: {}` (any item) to an array without items (OpenAI-family providers reject an array schema missing items)')
    }
    return node
  }) as JsonObject
}
