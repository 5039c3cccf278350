/**
 * What the pipeline reads from the model's raw argument text besides `JSON.parse`: invisible
 * characters around the JSON (a byte-order mark or zero-width space some models and proxies
 * emit) and integer literals a JavaScript number cannot hold exactly.
 *
 * Why: `JSON.parse('\uFEFF{…}')` fails, and `JSON.parse('{"id":2512292042121000001}')` yields
 * `2512292042121000000` — the body would act on a different record without anyone noticing.
 */
import type { JsonValue } from './contracts'
import type { ValidationIssue } from './json-schema'
import { escapePointer } from './json'

/** Invisible characters tolerated (and removed) around the JSON text of arguments. */
const EDGE_INVISIBLE = /^[\s\uFEFF\u200B\u2060]*[\uFEFF\u200B\u2060]|[\uFEFF\u200B\u2060][\s\uFEFF\u200B\u2060]*$/
const EDGE_NAMES: Readonly<Record<string, string>> = {
  '\uFEFF': 'U+FEFF (byte-order mark)',
  '\u200B': 'U+200B (zero-width space)',
  '\u2060': 'U+2060 (word joiner)',
}

/** The argument text without invisible characters around it, and one note per removed kind. */
export interface StrippedText {
  readonly text: string
  /** E.g. `(root): leading U+FEFF (byte-order mark) removed`; empty when nothing was removed. */
  readonly notes: readonly string[]
}

const NOTHING_STRIPPED: readonly string[] = Object.freeze([])

/**
 * Removes byte-order marks, zero-width spaces and word joiners (with the whitespace around
 * them) from the start and end of `raw`; characters inside the JSON text are left alone.
 * The notes are recorded in `result.meta.repairs`.
 */
export function stripInvisibleEdges(raw: string): StrippedText {
  if (!EDGE_INVISIBLE.test(raw)) return { text: raw, notes: NOTHING_STRIPPED }
  const notes: string[] = []
  const lead = /^[\s\uFEFF\u200B\u2060]*/.exec(raw)![0]
  const rest = raw.slice(lead.length)
  const trail = /[\s\uFEFF\u200B\u2060]*$/.exec(rest)![0]
  for (const [where, run] of [['leading', lead], ['trailing', trail]] as const) {
    for (const ch of new Set(run)) {
      const name = EDGE_NAMES[ch]
      if (name !== undefined) notes.push(`(root): ${where} ${name} removed`)
    }
  }
  return { text: rest.slice(0, rest.length - trail.length), notes }
}

/** An integer literal in the argument text outside ±(2^53 − 1). */
export interface UnsafeInteger {
  /** The path of the value (object keys and array indices). */
  readonly path: readonly (string | number)[]
  /** JSON pointer of the value. */
  readonly pointer: string
  /** The literal exactly as the model wrote it, e.g. `2512292042121000001`. */
  readonly digits: string
}

const NONE: readonly UnsafeInteger[] = Object.freeze([])
/** An unsafe integer has at least 16 digits: text without such a run needs no scan. */
const LONG_DIGIT_RUN = /\d{16}/
const NUMBER_TOKEN = /-?\d+(\.\d+)?([eE][+-]?\d+)?/y

/**
 * Finds every integer literal (digits only: no fraction, no exponent) whose value is outside
 * ±`Number.MAX_SAFE_INTEGER`, in `text`, which must be valid JSON (it runs after `JSON.parse`
 * accepted it). Text without a run of 16 digits returns at once. Iterative; never throws.
 */
export function findUnsafeIntegers(text: string): readonly UnsafeInteger[] {
  if (!LONG_DIGIT_RUN.test(text)) return NONE
  const found: UnsafeInteger[] = []
  const frames: { array: boolean; key: string | number; expectKey: boolean }[] = []
  let i = 0
  while (i < text.length) {
    const c = text.charCodeAt(i)
    const top = frames[frames.length - 1]
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      frames.push({ array: c === 0x5b, key: c === 0x5b ? 0 : '', expectKey: c === 0x7b })
      i++
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      frames.pop()
      i++
    } else if (c === 0x2c /* , */) {
      if (top !== undefined) {
        if (top.array) top.key = (top.key as number) + 1
        else top.expectKey = true
      }
      i++
    } else if (c === 0x3a /* : */) {
      if (top !== undefined) top.expectKey = false
      i++
    } else if (c === 0x22 /* " */) {
      let j = i + 1
      while (j < text.length && text.charCodeAt(j) !== 0x22) j += text.charCodeAt(j) === 0x5c ? 2 : 1
      if (top !== undefined && !top.array && top.expectKey) top.key = JSON.parse(text.slice(i, j + 1)) as string
      i = j + 1
    } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      NUMBER_TOKEN.lastIndex = i
      const token = NUMBER_TOKEN.exec(text)?.[0] ?? text[i]!
      if (token.length >= 16 && /^-?\d+$/.test(token) && !Number.isSafeInteger(Number(token))) {
        const path = frames.map((frame) => frame.key)
        found.push({ path, pointer: path.map((key) => `/${typeof key === 'number' ? key : escapePointer(key)}`).join(''), digits: token })
      }
      i += token.length
    } else {
      i++
    }
  }
  return found
}

/**
 * Replaces each unsafe integer in `args` (fresh from `JSON.parse`; the containers that hold a
 * number beyond ±`Number.MAX_SAFE_INTEGER` are not yet frozen) by its exact digits as a string,
 * so validation decides whether the schema admits a string there. Returns the ones substituted,
 * in text order: a literal is skipped where `args` does not hold its rounded value — a duplicate
 * key whose last value `JSON.parse` kept instead (of two unsafe literals under one key, the last
 * one's digits are substituted).
 */
export function substituteDigits(args: JsonValue, unsafe: readonly UnsafeInteger[]): readonly UnsafeInteger[] {
  let substituted: boolean[] | undefined
  // Backwards: of duplicate keys, JSON.parse kept the last; its literal comes last in the text.
  for (let u = unsafe.length - 1; u >= 0; u--) {
    const { path, digits } = unsafe[u]!
    let node: unknown = args
    for (let k = 0; k < path.length - 1 && node !== null && typeof node === 'object'; k++) node = (node as Record<string | number, unknown>)[path[k]!]
    const last = path[path.length - 1]
    if (last === undefined || node === null || typeof node !== 'object') continue
    const current = (node as Record<string | number, unknown>)[last]
    if (typeof current !== 'number' || current !== Number(digits)) continue
    ;(node as Record<string | number, unknown>)[last] = digits
    ;(substituted ??= new Array<boolean>(unsafe.length).fill(false))[u] = true
  }
  if (substituted === undefined) return NONE
  return substituted.every(Boolean) ? unsafe : unsafe.filter((_, u) => substituted[u])
}

/** The issue that names an unsafe integer the schema does not accept as a string. */
export function unsafeIntegerIssue(unsafe: UnsafeInteger): ValidationIssue {
  return {
    pointer: unsafe.pointer,
    keyword: 'unsafeInteger',
    message: `${unsafe.digits} is outside the exact integer range of ±${Number.MAX_SAFE_INTEGER} and would be rounded; send it as a string ("${unsafe.digits}")`,
  }
}

/**
 * The issues to report once the digits were substituted: an issue at an unsafe integer's own
 * pointer (the schema does not accept the string there) is replaced by
 * {@link unsafeIntegerIssue}; an unsafe integer the schema accepted as a string raises none.
 * With `all`, every unsafe integer is reported (arguments that are not validated).
 */
export function withUnsafeIntegers(issues: readonly ValidationIssue[], unsafe: readonly UnsafeInteger[], all = false): ValidationIssue[] {
  const rejected = new Set(all ? unsafe.map((u) => u.pointer) : unsafe.filter((u) => issues.some((issue) => issue.pointer === u.pointer)).map((u) => u.pointer))
  const out: ValidationIssue[] = unsafe.filter((u) => rejected.has(u.pointer)).map(unsafeIntegerIssue)
  for (const issue of issues) if (!rejected.has(issue.pointer)) out.push(issue)
  return out
}
