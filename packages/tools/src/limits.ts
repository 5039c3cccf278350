/**
 * The size limits every model-facing error text and every JSON document (schema or value)
 * share, and the helpers that apply them: one nesting limit, one pointer cap, one message cap,
 * and the escaping of invisible characters in quoted text.
 *
 * Why one nesting limit: ajv compiles and meta-validates a schema recursively, the DSL
 * projection, the provider declaration code and the argument snapshot walk recurse too. Each
 * had its own depth (or none): a schema could register and then fail every call with
 * "Maximum call stack size exceeded". Checking one limit, iteratively, before anything
 * recursive runs, makes "registers" imply "compiles, validates and declares".
 */

/**
 * The deepest JSON nesting accepted anywhere: in tool schemas (input and output, raw or
 * projected from the DSL), in argument and result values, and in provider declarations.
 * Depth counts containers (objects and arrays): `{}` and `[]` are depth 1, `{"a":[1]}` is
 * depth 2, and `{ type: 'object', properties: { p: { type: 'string' } } }` is depth 3 (each
 * `properties` level of a schema costs two). 256 leaves a wide margin under the smallest
 * depth at which ajv overflows the stack (about 1,000 levels).
 */
export const MAX_JSON_DEPTH = 256

/**
 * The longest JSON pointer a model-facing message shows, in characters; longer pointers keep
 * their start and end around `…`.
 */
export const MAX_POINTER_CHARS = 120

/**
 * The longest model-facing error message the pipeline writes or a policy supplies, in
 * characters (after `Error: `): library texts (`INVALID_ARGS`, …) and policy texts (deny
 * reasons, guard verdicts, rejections, block feedback's message) are cut to this size by
 * eliding their middle (see {@link elideMiddle}). A thrown error's message is the tool's own
 * output and is capped like successful content instead (registry `contentLimits.maxChars`,
 * default 25,000).
 */
export const MAX_ERROR_MESSAGE_CHARS = 2_000

/** Where a JSON document nests deeper than allowed: the pointer of the first too-deep container. */
export interface DepthProblem {
  /** JSON pointer (RFC 6901) of the first container at depth `limit + 1`. */
  readonly pointer: string
  /** The limit that was exceeded. */
  readonly limit: number
}

/**
 * Finds the first container nested deeper than `limit` (default {@link MAX_JSON_DEPTH}), with
 * an explicit stack (never recurses, so it cannot overflow however deep the input). Visits
 * own enumerable keys of plain objects and array elements; a cycle is not followed twice on
 * one path. Returns `undefined` when the document is within the limit.
 */
export function findDepthProblem(value: unknown, limit: number = MAX_JSON_DEPTH): DepthProblem | undefined {
  if (value === null || typeof value !== 'object') return undefined
  // Each frame: the container, its keys, the next key index, its depth.
  const stack: { node: object; keys: readonly string[]; next: number }[] = []
  const path: string[] = []
  const onPath = new Set<object>()
  const push = (node: object): DepthProblem | undefined => {
    if (stack.length >= limit) return { pointer: pointerOf([...path]), limit }
    stack.push({ node, keys: Array.isArray(node) ? Array.from(node.keys(), String) : Object.keys(node), next: 0 })
    onPath.add(node)
    return undefined
  }
  const first = push(value)
  if (first !== undefined) return first
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!
    if (frame.next >= frame.keys.length) {
      stack.pop()
      onPath.delete(frame.node)
      path.pop()
      continue
    }
    const key = frame.keys[frame.next++]!
    const child = (frame.node as Record<string, unknown>)[key]
    if (child === null || typeof child !== 'object' || onPath.has(child)) continue
    path.push(key)
    const problem = push(child)
    if (problem !== undefined) return problem
  }
  return undefined
}

function pointerOf(keys: readonly string[]): string {
  let out = ''
  for (const key of keys) out += `/${key.includes('~') || key.includes('/') ? key.replace(/~/g, '~0').replace(/\//g, '~1') : key}`
  return out
}

/**
 * `text` when it has at most `max` characters; otherwise its start and end around
 * `… [N characters omitted] …` so the whole is at most `max` characters. Never splits a
 * surrogate pair.
 */
export function elideMiddle(text: string, max: number): string {
  if (text.length <= max) return text
  const marker = (omitted: number): string => ` … [${omitted} characters omitted] … `
  let keep = Math.max(0, max - marker(text.length).length)
  let head = Math.ceil(keep / 2)
  let tail = keep - head
  if (isHighSurrogate(text.charCodeAt(head - 1))) head--
  if (tail > 0 && isLowSurrogate(text.charCodeAt(text.length - tail))) tail--
  keep = head + tail
  return `${text.slice(0, head)}${marker(text.length - keep)}${tail === 0 ? '' : text.slice(text.length - tail)}`
}

/**
 * A JSON pointer for a model-facing message: at most {@link MAX_POINTER_CHARS} characters,
 * keeping its first and last segments around `/…` (e.g. `/0/0/0/…/0/0`), with invisible
 * characters escaped (see {@link escapeInvisible}).
 */
export function capPointer(pointer: string): string {
  const shown = escapeInvisible(pointer)
  if (shown.length <= MAX_POINTER_CHARS) return shown
  const room = MAX_POINTER_CHARS - 2
  let head = shown.slice(0, Math.ceil(room / 2))
  let tail = shown.slice(shown.length - Math.floor(room / 2))
  // Cut at segment boundaries where there is one, so no segment is shown half.
  const headCut = head.lastIndexOf('/')
  if (headCut > 0) head = head.slice(0, headCut)
  const tailCut = tail.indexOf('/')
  if (tailCut >= 0) tail = tail.slice(tailCut)
  return `${head}/…${tail}`
}

/** A failure message of at most `max` characters, default {@link MAX_ERROR_MESSAGE_CHARS} (see {@link elideMiddle}). */
export function capMessage(message: string, max: number = MAX_ERROR_MESSAGE_CHARS): string {
  return elideMiddle(message, max)
}

/**
 * Characters a reader cannot see or that break a line: C0/C1 controls, format characters
 * (zero-width space, byte-order mark, bidi controls, …) except the zero-width (non-)joiners
 * that emoji sequences and several scripts need, line and paragraph separators, and lone
 * surrogates.
 */
const INVISIBLE = /(?![\u200C\u200D])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu

/**
 * `text` with every invisible character (see above) written as a `\uXXXX` escape, so a
 * message that quotes model text shows what was really there (a byte-order mark before
 * `{` reads `\uFEFF{`). Visible text, including emoji and non-Latin scripts, is unchanged.
 */
export function escapeInvisible(text: string): string {
  INVISIBLE.lastIndex = 0
  if (!INVISIBLE.test(text)) return text
  return text.replace(INVISIBLE, (ch) => `\\u${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`)
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff
}
