/**
 * JSON pointers and local references inside a schema document: resolving a pointer, following
 * a local `$ref` and `$ref` chains; the schema-object test (`isObject`) the other files share.
 */

export type SchemaObject = { readonly [keyword: string]: unknown }

export function isObject(value: unknown): value is SchemaObject {
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
export function deref(root: unknown, node: unknown): unknown {
  let current = node
  for (let hops = 0; hops < 16 && isObject(current) && typeof current.$ref === 'string'; hops++) {
    const target = resolveLocalRef(root, current.$ref)
    if (target === undefined) return current
    current = target
  }
  return current
}
