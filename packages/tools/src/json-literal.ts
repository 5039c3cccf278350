/**
 * Object-literal factories for the frozen plain-object copies of `copyPlain` (`json-freeze.ts`).
 *
 * Why: copying an object member by member (`out[key] = value` in a `for…in` loop) makes every
 * store a megamorphic keyed store in V8 (~100 instructions a key; ~2 % of a trivial call's CPU
 * time in a `perf` profile of a 1,000-call batch). A function made once per key list, whose body
 * is the object literal `{ "k0": v[0], "k1": v[1], … }`, builds the same object (same keys, same
 * order, data properties) from one array of values in a single allocation.
 *
 * Bounds: a factory is made only for key lists of at most {@link MAX_LITERAL_KEYS} keys, and at
 * most {@link MAX_FACTORIES} are kept (the first key lists seen: the shapes of a process's tool
 * results); any other object is copied key by key as before. A key is written into the factory's
 * source as a JSON string literal (`JSON.stringify`), which is a valid JavaScript string literal
 * for every string; `__proto__` never gets here (such an object is left to the full walk, since
 * `"__proto__": v` in a literal would set the prototype). Where code generation from strings is
 * disallowed (`--disallow-code-generation-from-strings`, a CSP), `new Function` throws once and
 * every object is copied key by key.
 * Internal: not exported from the package.
 */
import type { JsonValue } from './contracts'

/** Most keys of an object given a factory; larger objects are copied key by key. */
export const MAX_LITERAL_KEYS = 16
/** Most factories kept; objects of later key lists are copied key by key. */
export const MAX_FACTORIES = 64

/** Builds a fresh (unfrozen) object from `values[0…n-1]` under the factory's keys. */
type Factory = (values: readonly unknown[]) => Record<string, JsonValue>

interface Shape {
  readonly keys: readonly string[]
  readonly build: Factory
}

const shapes: Shape[] = []
/** The shape the last lookup found: the common batch asks for the same one every time. */
let last: Shape | undefined
/** Cleared when `new Function` threw: code generation from strings is disallowed. */
let codegen = true

function sameKeys(shape: Shape, keys: readonly string[], n: number): boolean {
  const own = shape.keys
  if (own.length !== n) return false
  for (let i = 0; i < n; i++) if (own[i] !== keys[i]) return false
  return true
}

/**
 * The factory for the key list `keys[0…n-1]` (distinct own enumerable string keys in `for…in`
 * order, none `__proto__`), made on first use; `undefined` past the bounds (see the module
 * comment) — the caller then copies key by key.
 */
export function literalFactory(keys: readonly string[], n: number): Factory | undefined {
  if (last !== undefined && sameKeys(last, keys, n)) return last.build
  for (let i = 0; i < shapes.length; i++) {
    const shape = shapes[i]!
    if (sameKeys(shape, keys, n)) {
      last = shape
      return shape.build
    }
  }
  if (!codegen || n > MAX_LITERAL_KEYS || shapes.length >= MAX_FACTORIES) return undefined
  const own = keys.slice(0, n)
  let body = ''
  for (let i = 0; i < n; i++) body += `${i === 0 ? '' : ','}${JSON.stringify(own[i])}:v[${i}]`
  let build: Factory
  try {
    build = new Function('v', `return {${body}}`) as Factory
  } catch {
    codegen = false
    return undefined
  }
  const shape: Shape = { keys: own, build }
  shapes.push(shape)
  last = shape
  return build
}

/** How many factories exist (tests: the bound holds). */
export function literalFactoryCount(): number {
  return shapes.length
}
