/** A generic bottom-up rewrite over every subschema of a JSON Schema node. */
import type { JsonObject, JsonValue } from '@deepseek-ai/dsh-tools'
import { Origins, SCHEMA_ARRAY_KEYWORDS, SCHEMA_KEYWORDS, SCHEMA_MAP_KEYWORDS, childPointer, isObject, setKey } from './json'

/**
 * Rebuilds `node` with `rewrite` applied to every object subschema (children first). `rewrite`
 * receives a fresh copy it may change and the node's pointer; origins carry over to the copy.
 */
export function mapSchema(node: JsonValue, fallback: string, origins: Origins, rewrite: (node: JsonObject, pointer: string) => JsonObject): JsonValue {
  if (!isObject(node)) return node
  const pointer = origins.of(node, fallback)
  const out: JsonObject = {}
  for (const [key, value] of Object.entries(node)) {
    const p = childPointer(pointer, key)
    let next: JsonValue = value
    if ((SCHEMA_MAP_KEYWORDS as readonly string[]).includes(key) && isObject(value)) {
      const map: JsonObject = {}
      for (const [k, v] of Object.entries(value)) setKey(map, k, mapSchema(v, childPointer(p, k), origins, rewrite))
      next = map
    } else if ((SCHEMA_KEYWORDS as readonly string[]).includes(key)) {
      next = mapSchema(value, p, origins, rewrite)
    } else if ((SCHEMA_ARRAY_KEYWORDS as readonly string[]).includes(key) && Array.isArray(value)) {
      next = value.map((v, i) => mapSchema(v, childPointer(p, i), origins, rewrite))
    } else if (key === 'items') {
      next = Array.isArray(value) ? value.map((v, i) => mapSchema(v, childPointer(p, i), origins, rewrite)) : mapSchema(value, p, origins, rewrite)
    }
    setKey(out, key, next)
  }
  origins.set(out, pointer)
  const rewritten = rewrite(out, pointer)
  return origins.set(rewritten, pointer)
}
