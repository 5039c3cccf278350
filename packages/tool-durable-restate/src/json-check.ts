/**
 * What Restate's JSON serde would silently change or refuse in a step value: it writes
 * `JSON.stringify(value)`, which drops `undefined` members and functions, turns `NaN` into `null`,
 * and throws on a `BigInt` or a cycle. A journaled value must read back exactly as the first run
 * saw it, so anything outside JSON is refused before it is recorded.
 */

/** The first place in `value` that is not JSON, as a JSON pointer and what was found; undefined when it is JSON. */
export function jsonProblem(value: unknown): string | undefined {
  return walk(value, '', new Set())
}

function walk(value: unknown, pointer: string, seen: Set<object>): string | undefined {
  const at = pointer === '' ? '(root)' : pointer
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined
    case 'number':
      return Number.isFinite(value) ? undefined : `${at}: ${value} is not a JSON number`
    case 'undefined':
      return `${at}: undefined is not JSON`
    case 'bigint':
      return `${at}: a BigInt (${value}n) is not JSON`
    case 'function':
      return `${at}: a function is not JSON`
    case 'symbol':
      return `${at}: a symbol is not JSON`
  }
  if (value === null) return undefined
  const object = value as object
  if (seen.has(object)) return `${at}: a cycle (the value contains itself)`
  seen.add(object)
  try {
    if (Array.isArray(object)) {
      for (let i = 0; i < object.length; i++) {
        const problem = walk(object[i], `${pointer}/${i}`, seen)
        if (problem !== undefined) return problem
      }
      return undefined
    }
    const proto = Object.getPrototypeOf(object) as unknown
    if (proto !== Object.prototype && proto !== null) return `${at}: a ${object.constructor?.name ?? 'non-plain'} object is not JSON`
    for (const [key, member] of Object.entries(object)) {
      const problem = walk(member, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, seen)
      if (problem !== undefined) return problem
    }
    return undefined
  } finally {
    seen.delete(object)
  }
}
