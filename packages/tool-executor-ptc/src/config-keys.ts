/**
 * The check that refuses a misspelt or unknown option of the executor's config and of the
 * QuickJS runtime's options (a typo would otherwise leave the default in force), and a
 * non-object where an object belongs. Not exported from the package.
 */
import { unknownOption } from '@deepseek-ai/dsh-tools'

/** A refused non-object as its message shows it: a string quoted, a function by its kind (not its source), anything else as written (a BigInt too). */
function shown(value: unknown): string {
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'string') return JSON.stringify(value)
  return typeof value === 'function' ? 'a function' : String(value)
}

/**
 * Throws a `RangeError` `<what>: <pointer> must be an object, got <value>` (the pointer left out
 * at the root) or `<what>: <pointer>/<key> is not a known option (expected …; did you mean "…"?)`.
 *
 * @param what - the config's name in messages, e.g. `ptc executor config`.
 * @param pointer - JSON pointer of `value` in the whole config, `''` for the root.
 */
export function checkOptionKeys(what: string, value: unknown, known: readonly string[], pointer = ''): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new RangeError(`${what}: ${pointer === '' ? '' : `${pointer} `}must be an object, got ${shown(value)}`)
  const unknown = unknownOption(value, known, pointer)
  if (unknown !== undefined) throw new RangeError(`${what}: ${unknown.pointer} ${unknown.detail}`)
}
