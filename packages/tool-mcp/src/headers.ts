/**
 * SEP-2243 (protocol 2026-07-28): a tool's `inputSchema` may mark a property with
 * `x-mcp-header: "<Name>"` so that a Streamable HTTP client mirrors its argument into an
 * `Mcp-Param-<Name>` request header. A client MUST exclude a tool whose declarations break the
 * rules; the bridge reports such a tool as skipped, with the reason. The SDK mirrors the headers
 * of the tools the bridge keeps (`callTool`'s `toolDefinition`).
 */

/** An RFC 9110 token: visible ASCII without delimiters. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
/** The JSON Schema types a mirrored argument may have. */
const HEADER_TYPES = new Set(['string', 'integer', 'boolean'])
/** Keywords whose subschemas are not reachable through a chain of `properties` from the root. */
const SUBSCHEMAS = ['items', 'prefixItems', 'contains', 'additionalProperties', 'unevaluatedProperties', 'unevaluatedItems', 'propertyNames', 'patternProperties', 'dependentSchemas', 'allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else', '$defs', 'definitions'] as const
/** Of {@link SUBSCHEMAS}, those whose value is an object of subschemas (not one subschema or an array). */
const MAPS = new Set(['patternProperties', 'dependentSchemas', '$defs', 'definitions'])

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/**
 * Why `inputSchema`'s `x-mcp-header` declarations make the tool unusable over Streamable HTTP at
 * 2026-07-28, or `undefined` when they are valid (or absent). The rules (SEP-2243): a declaration
 * sits only on a property reached from the root through `properties` alone (not on the root, not
 * under `items`, `additionalProperties`, combinators, conditionals or `$defs`); its value is a
 * non-empty RFC 9110 token; the property's `type` is `string`, `integer` or `boolean`; names are
 * unique ignoring case. Never throws.
 *
 * @example headerDeclarationProblem({ type: 'object', properties: { r: { type: 'object', 'x-mcp-header': 'R' } } }) // '/properties/r: x-mcp-header is only allowed on a string, integer or boolean property (got object)'
 */
export function headerDeclarationProblem(inputSchema: unknown): string | undefined {
  const seen = new Map<string, string>()
  const visit = (node: unknown, pointer: string, reachable: boolean): string | undefined => {
    if (!isRecord(node)) return undefined
    if ('x-mcp-header' in node) {
      const at = pointer === '' ? '(the root)' : pointer
      if (!reachable || pointer === '') return `${at}: x-mcp-header is only allowed on a property reached through "properties" alone`
      const name = node['x-mcp-header']
      if (typeof name !== 'string' || !TOKEN.test(name)) return `${at}: x-mcp-header must be a non-empty HTTP token (got ${JSON.stringify(name)})`
      const type = node.type
      if (typeof type !== 'string' || !HEADER_TYPES.has(type)) return `${at}: x-mcp-header is only allowed on a string, integer or boolean property (got ${typeof type === 'string' ? type : 'no single type'})`
      const other = seen.get(name.toLowerCase())
      if (other !== undefined) return `${at}: x-mcp-header "${name}" repeats "${other}" (names are unique ignoring case)`
      seen.set(name.toLowerCase(), name)
    }
    if (isRecord(node.properties)) {
      for (const [key, child] of Object.entries(node.properties)) {
        const problem = visit(child, `${pointer}/properties/${key}`, reachable)
        if (problem !== undefined) return problem
      }
    }
    for (const keyword of SUBSCHEMAS) {
      const sub = node[keyword]
      if (sub === undefined) continue
      const branches = Array.isArray(sub) ? sub : MAPS.has(keyword) && isRecord(sub) ? Object.values(sub) : [sub]
      for (const [i, branch] of branches.entries()) {
        const problem = visit(branch, `${pointer}/${keyword}${branches.length > 1 || Array.isArray(sub) ? `/${i}` : ''}`, false)
        if (problem !== undefined) return problem
      }
    }
    return undefined
  }
  return visit(inputSchema, '', true)
}
