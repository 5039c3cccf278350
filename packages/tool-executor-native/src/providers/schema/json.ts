/**
 * Plain-JSON helpers for the schema sanitizers: a checked copy of foreign input, child
 * pointers (RFC 6901), node origins and a change reporter.
 */
import { escapePointer, MAX_JSON_DEPTH, type JsonObject, type JsonValue } from '@deepseek-ai/dsh-tools'
import type { ConversionErrorCode, ConversionWarning, ConversionWarningCode } from '../types'

/** Whether `value` is a JSON object (not an array, not null). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Appends `keys` to `pointer`. */
export function childPointer(pointer: string, ...keys: (string | number)[]): string {
  let out = pointer
  for (const key of keys) out += `/${typeof key === 'number' ? key : escapePointer(key)}`
  return out
}

/** A conversion failure for one tool (becomes a {@link ConversionError}). */
export class ConversionFailure extends Error {
  readonly pointer: string
  readonly code: ConversionErrorCode
  constructor(code: ConversionErrorCode, pointer: string, message: string) {
    super(message)
    this.code = code
    this.pointer = pointer
  }
}

/**
 * Copies `value` into plain JSON.
 *
 * @throws ConversionFailure (`SCHEMA_UNSUPPORTED`) naming the pointer of a value JSON cannot
 *   carry (undefined, function, non-finite number, cycle, class instance).
 */
export function copyJson(value: unknown, pointer: string): JsonValue {
  const stack: object[] = []
  const walk = (v: unknown, p: string): JsonValue => {
    if (v === null || typeof v === 'string' || typeof v === 'boolean') return v
    if (typeof v === 'number') {
      if (Number.isFinite(v)) return v
      throw new ConversionFailure('SCHEMA_UNSUPPORTED', p, `${v} is not a JSON number`)
    }
    if (typeof v !== 'object') throw new ConversionFailure('SCHEMA_UNSUPPORTED', p, `a ${typeof v} is not JSON`)
    if (stack.includes(v)) throw new ConversionFailure('SCHEMA_UNSUPPORTED', p, 'a circular reference is not JSON')
    // The core's one nesting limit (the registry refuses deeper schemas; this guards direct callers).
    if (stack.length >= MAX_JSON_DEPTH) throw new ConversionFailure('SCHEMA_TOO_LARGE', p, `nests deeper than ${MAX_JSON_DEPTH} levels (MAX_JSON_DEPTH)`)
    stack.push(v)
    try {
      if (Array.isArray(v)) return v.map((item, i) => walk(item, childPointer(p, i)))
      const proto = Object.getPrototypeOf(v) as unknown
      if (proto !== Object.prototype && proto !== null) throw new ConversionFailure('SCHEMA_UNSUPPORTED', p, 'a class instance is not plain JSON')
      const out: JsonObject = {}
      for (const [key, item] of Object.entries(v)) {
        if (item === undefined) continue
        setKey(out, key, walk(item, childPointer(p, key)))
      }
      return out
    } finally {
      stack.pop()
    }
  }
  return walk(value, pointer)
}

/** Sets `key` on `target` without invoking the `__proto__` setter. */
export function setKey(target: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
  else target[key] = value
}

/** Deterministic JSON text with sorted keys (for equality of schema fragments). */
export function canonicalJson(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k] as JsonValue)}`)
      .join(',')}}`
  }
  return JSON.stringify(value)
}

/**
 * Where each sanitized node came from: a pointer into the tool's `ToolSchema`. Nodes produced by
 * inlining a `$ref` point at the target's location.
 */
export class Origins {
  readonly #map = new WeakMap<object, string>()
  set<T extends JsonValue>(node: T, pointer: string): T {
    if (node !== null && typeof node === 'object' && !this.#map.has(node)) this.#map.set(node, pointer)
    return node
  }
  of(node: JsonValue, fallback: string): string {
    return node !== null && typeof node === 'object' ? (this.#map.get(node) ?? fallback) : fallback
  }
}

/** Collects the warnings of one tool, dropping exact repeats (a `$ref` target inlined twice). */
export class Report {
  readonly tool: string
  readonly warnings: ConversionWarning[] = []
  readonly #seen = new Set<string>()
  constructor(tool: string) {
    this.tool = tool
  }
  warn(pointer: string, code: ConversionWarningCode, message: string): void {
    const key = `${code}\u0000${pointer}\u0000${message}`
    if (this.#seen.has(key)) return
    this.#seen.add(key)
    this.warnings.push(Object.freeze({ tool: this.tool, pointer, code, message }))
  }
  /** Appends another report's warnings (used to commit a tentative strict conversion). */
  absorb(other: Report): void {
    for (const w of other.warnings) this.warn(w.pointer, w.code, w.message)
  }
}

/** The JSON Schema keywords whose value is a map of subschemas. */
export const SCHEMA_MAP_KEYWORDS = ['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions'] as const
/** The JSON Schema keywords whose value is one subschema. */
export const SCHEMA_KEYWORDS = [
  'additionalProperties',
  'propertyNames',
  'unevaluatedProperties',
  'additionalItems',
  'unevaluatedItems',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'contentSchema',
] as const
/** The JSON Schema keywords whose value is an array of subschemas. */
export const SCHEMA_ARRAY_KEYWORDS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const

/** The `type` keyword as a list (empty when absent or not a string/array of strings). */
export function typeList(node: JsonObject): string[] {
  const t = node.type
  if (typeof t === 'string') return [t]
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === 'string')
  return []
}

/** A short JSON rendering of a value for messages. */
export function show(value: JsonValue): string {
  const text = JSON.stringify(value)
  return text.length > 60 ? `${text.slice(0, 57)}...` : text
}
