/**
 * `$ref` inlining. Local references (`#`, `#/json/pointer`, `#anchor`) are replaced by their
 * targets; a recursive reference is either kept through a root `$defs` entry (providers whose
 * schema dialect supports recursion) or degraded to an unconstrained schema of the target's
 * type. External references cannot be fetched by a pure function and are degraded.
 */
import { resolveJsonPointer, type JsonObject, type JsonValue } from '@deepseek-ai/dsh-tools'
import { MAX_INLINED_NODES } from '../types'
import {
  ConversionFailure,
  Origins,
  Report,
  SCHEMA_ARRAY_KEYWORDS,
  SCHEMA_KEYWORDS,
  SCHEMA_MAP_KEYWORDS,
  childPointer,
  isObject,
  setKey,
  typeList,
} from './json'

/** How recursive references are handled. */
export type RecursiveRefMode = 'keep' | 'degrade'

interface Target {
  /** Pointer of the target inside the parameters schema ('' = root). */
  readonly pointer: string
  readonly node: JsonValue
}

/**
 * Returns `schema` with every local `$ref` resolved. `base` is the pointer of `schema` in the
 * tool (`/parameters`). Kept recursive targets are emitted under the root's `$defs`.
 *
 * @throws ConversionFailure `SCHEMA_TOO_LARGE` when inlining exceeds {@link MAX_INLINED_NODES}.
 */
export function inlineRefs(schema: JsonValue, base: string, mode: RecursiveRefMode, report: Report, origins: Origins): JsonValue {
  const anchors = collectAnchors(schema)
  const kept = new Map<string, string>() // target pointer -> $defs name
  const defsMessage = (key: string): string =>
    mode === 'keep'
      ? `removed ${key}: its entries are inlined where they are referenced (a recursive one is re-emitted under the root $defs)`
      : `removed ${key}: its entries are inlined where they are referenced`
  const keptOrder: Target[] = []
  let nodes = 0

  const resolve = (ref: string): Target | undefined => {
    let fragment: string
    const hash = ref.indexOf('#')
    if (hash < 0) return undefined
    const prefix = ref.slice(0, hash)
    const rootId = isObject(schema) && typeof schema.$id === 'string' ? schema.$id.split('#')[0] : undefined
    if (prefix !== '' && prefix !== rootId) return undefined
    try {
      fragment = decodeURIComponent(ref.slice(hash + 1))
    } catch {
      return undefined
    }
    if (fragment === '') return { pointer: '', node: schema }
    if (!fragment.startsWith('/')) return anchors.get(fragment)
    const node = resolveJsonPointer(schema, fragment)
    if (typeof node !== 'boolean' && !isObject(node)) return undefined
    return { pointer: fragment, node }
  }

  const defName = (target: Target): string => {
    const existing = kept.get(target.pointer)
    if (existing !== undefined) return existing
    const last = target.pointer.split('/').pop() ?? 'def'
    const clean = last.replace(/~1/g, '/').replace(/~0/g, '~').replace(/[^A-Za-z0-9_.-]/g, '_') || 'def'
    const used = new Set(kept.values())
    let name = clean
    for (let n = 2; used.has(name); n++) name = `${clean}_${n}`
    kept.set(target.pointer, name)
    keptOrder.push(target)
    return name
  }

  const walk = (node: JsonValue, pointer: string, stack: readonly string[]): JsonValue => {
    if (++nodes > MAX_INLINED_NODES) {
      throw new ConversionFailure('SCHEMA_TOO_LARGE', base, `inlining $ref targets produces more than ${MAX_INLINED_NODES} schema nodes`)
    }
    if (!isObject(node)) return node
    if (typeof node.$ref === 'string') return walkRef(node, node.$ref, pointer, stack)
    const out: JsonObject = {}
    for (const [key, value] of Object.entries(node)) {
      const p = childPointer(pointer, key)
      if (key === '$defs' || key === 'definitions') {
        if (isObject(value) && Object.keys(value).length > 0) {
          report.warn(p, 'DEFS_REMOVED', defsMessage(key))
        }
        continue
      }
      setKey(out, key, walkKeyword(key, value, p, stack))
    }
    return origins.set(out, pointer)
  }

  const walkKeyword = (key: string, value: JsonValue, p: string, stack: readonly string[]): JsonValue => {
    if ((SCHEMA_MAP_KEYWORDS as readonly string[]).includes(key) && isObject(value)) {
      const out: JsonObject = {}
      for (const [k, v] of Object.entries(value)) setKey(out, k, walk(v, childPointer(p, k), stack))
      return out
    }
    if ((SCHEMA_KEYWORDS as readonly string[]).includes(key) && (isObject(value) || typeof value === 'boolean')) return walk(value, p, stack)
    if ((SCHEMA_ARRAY_KEYWORDS as readonly string[]).includes(key) && Array.isArray(value)) return value.map((v, i) => walk(v, childPointer(p, i), stack))
    if (key === 'items') {
      if (Array.isArray(value)) return value.map((v, i) => walk(v, childPointer(p, i), stack))
      if (isObject(value) || typeof value === 'boolean') return walk(value, p, stack)
    }
    if (key === 'dependencies' && isObject(value)) {
      const out: JsonObject = {}
      for (const [k, v] of Object.entries(value)) setKey(out, k, isObject(v) || typeof v === 'boolean' ? walk(v, childPointer(p, k), stack) : v)
      return out
    }
    return value
  }

  const walkSiblings = (node: JsonObject, pointer: string, stack: readonly string[]): JsonObject => {
    const out: JsonObject = {}
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref') continue
      if (key === '$defs' || key === 'definitions') {
        if (isObject(value) && Object.keys(value).length > 0) {
          report.warn(childPointer(pointer, key), 'DEFS_REMOVED', defsMessage(key))
        }
        continue
      }
      setKey(out, key, walkKeyword(key, value, childPointer(pointer, key), stack))
    }
    return out
  }

  const walkRef = (node: JsonObject, ref: string, pointer: string, stack: readonly string[]): JsonValue => {
    const refPointer = childPointer(pointer, '$ref')
    const siblings = walkSiblings(node, pointer, stack)
    const target = resolve(ref)
    if (target === undefined) {
      report.warn(
        refPointer,
        'REF_UNRESOLVED',
        `$ref ${JSON.stringify(ref)} does not resolve inside the schema; replaced by an unconstrained schema (the local validator still enforces the original)`,
      )
      return origins.set(siblings, pointer)
    }
    const targetPointer = `${base}${target.pointer}`
    if (stack.includes(target.pointer)) {
      if (mode === 'keep') {
        const keptRef = target.pointer === '' ? '#' : `#/$defs/${defName(target)}`
        report.warn(refPointer, 'REF_RECURSIVE', `recursive $ref ${JSON.stringify(ref)} kept as ${JSON.stringify(keptRef)}`)
        return origins.set({ $ref: keptRef, ...siblings }, pointer)
      }
      const degraded = degrade(target.node)
      report.warn(
        refPointer,
        'REF_RECURSIVE',
        `recursive $ref ${JSON.stringify(ref)} cannot be expressed for this provider; replaced by an unconstrained ${
          typeof degraded.type === 'string' ? degraded.type : 'value'
        } schema (the local validator still enforces the original)`,
      )
      return origins.set({ ...degraded, ...siblings }, pointer)
    }
    report.warn(refPointer, 'REF_INLINED', `inlined $ref ${JSON.stringify(ref)}`)
    const inlined = walk(target.node, targetPointer, [...stack, target.pointer])
    if (Object.keys(siblings).length === 0) return inlined
    if (typeof inlined === 'boolean') return origins.set(inlined ? siblings : { not: {}, ...siblings }, pointer)
    return origins.set({ ...(inlined as JsonObject), ...siblings }, targetPointer)
  }

  const root = walk(schema, base, [''])
  if (mode !== 'keep' || keptOrder.length === 0 || !isObject(root)) return root
  const defs: JsonObject = {}
  for (let i = 0; i < keptOrder.length; i++) {
    const target = keptOrder[i] as Target
    setKey(defs, kept.get(target.pointer) as string, walk(target.node, `${base}${target.pointer}`, [target.pointer]))
  }
  return origins.set({ ...root, $defs: defs }, base)
}

/** An unconstrained stand-in for a recursive target: its type and description only. */
function degrade(target: JsonValue): JsonObject {
  if (!isObject(target)) return {}
  const out: JsonObject = {}
  const types = typeList(target)
  if (types.length === 1) out.type = types[0] as string
  else if (types.length > 1) out.type = [...types]
  else if (isObject(target.properties)) out.type = 'object'
  const description = typeof target.description === 'string' ? target.description : typeof target.title === 'string' ? target.title : undefined
  if (description !== undefined) out.description = description
  return out
}

/** `$anchor` names and draft-07 `$id: "#name"` anchors, to their targets. */
function collectAnchors(schema: JsonValue): Map<string, Target> {
  const anchors = new Map<string, Target>()
  const visit = (node: JsonValue, pointer: string): void => {
    if (Array.isArray(node)) {
      node.forEach((item, i) => visit(item, childPointer(pointer, i)))
      return
    }
    if (!isObject(node)) return
    if (typeof node.$anchor === 'string' && !anchors.has(node.$anchor)) anchors.set(node.$anchor, { pointer, node })
    if (typeof node.$id === 'string' && node.$id.startsWith('#') && !anchors.has(node.$id.slice(1))) anchors.set(node.$id.slice(1), { pointer, node })
    for (const [key, value] of Object.entries(node)) {
      if (key === 'enum' || key === 'const' || key === 'default' || key === 'examples' || key === 'example') continue
      visit(value, childPointer(pointer, key))
    }
  }
  visit(schema, '')
  return anchors
}
