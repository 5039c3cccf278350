/**
 * Provider tool-name rules and the reversible name map (emission E24: a dotted BFCL name such as
 * `uber.ride` is sent as `uber_ride`, the model calls `uber_ride`, the batch must say `uber.ride`).
 */

/** A provider's rule for tool names. */
export interface NameRule {
  /** The rule as the provider documents it, for messages. */
  readonly description: string
  /** Matches one allowed character. */
  readonly allowedChar: RegExp
  /** Matches an allowed first character (absent: any allowed character). */
  readonly firstChar?: RegExp
  readonly maxLength: number
}

/** OpenAI Chat Completions and Responses (and DeepSeek / OpenAI-compatible): `^[a-zA-Z0-9_-]{1,64}$`. */
export const OPENAI_NAME_RULE: NameRule = Object.freeze({ description: '^[a-zA-Z0-9_-]{1,64}$', allowedChar: /[A-Za-z0-9_-]/, maxLength: 64 })

/** Anthropic Messages: `^[a-zA-Z0-9_-]{1,64}$`. */
export const ANTHROPIC_NAME_RULE: NameRule = Object.freeze({ description: '^[a-zA-Z0-9_-]{1,64}$', allowedChar: /[A-Za-z0-9_-]/, maxLength: 64 })

/**
 * Gemini `FunctionDeclaration.name`: starts with a letter or `_`, then letters, digits, `_`, `.`,
 * `:` or `-`, at most 64 characters (the stricter of the Gemini API and Vertex AI references).
 */
export const GEMINI_NAME_RULE: NameRule = Object.freeze({
  description: '^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$',
  allowedChar: /[A-Za-z0-9_.:-]/,
  firstChar: /[A-Za-z_]/,
  maxLength: 64,
})

/** One declared tool: its registry name and the name sent to the provider. */
export interface NameMapEntry {
  readonly original: string
  readonly wire: string
}

/**
 * A one-to-one map between tool names and provider-side names. Built by the declaration
 * builders; keep it with the conversation and pass it to the parsers and result builders.
 */
export interface NameMap {
  /** Every declared tool in declaration order (identity entries included). */
  readonly entries: readonly NameMapEntry[]
  /** The provider-side name of a declared tool, or `undefined` for an undeclared one. */
  toWire(original: string): string | undefined
  /**
   * The tool name for a provider-side name. An unknown name is returned unchanged so the
   * pipeline can answer it with `UNKNOWN_TOOL` and the list of available names.
   */
  toOriginal(wire: string): string
  /** Whether `wire` is a declared provider-side name. */
  hasWire(wire: string): boolean
}

/** Whether `name` satisfies `rule`. */
export function isValidToolName(name: string, rule: NameRule): boolean {
  if (name.length === 0 || name.length > rule.maxLength) return false
  if (rule.firstChar && !rule.firstChar.test(name[0] as string)) return false
  for (const ch of name) if (!rule.allowedChar.test(ch)) return false
  return true
}

/**
 * Builds a name map from persisted entries.
 *
 * @throws RangeError when two entries share an original or a wire name.
 */
export function nameMapFromEntries(entries: readonly NameMapEntry[]): NameMap {
  const toWire = new Map<string, string>()
  const toOriginal = new Map<string, string>()
  for (const { original, wire } of entries) {
    if (toWire.has(original)) throw new RangeError(`name map: the tool name ${JSON.stringify(original)} appears twice`)
    if (toOriginal.has(wire)) throw new RangeError(`name map: the provider name ${JSON.stringify(wire)} is used by ${JSON.stringify(toOriginal.get(wire))} and ${JSON.stringify(original)}`)
    toWire.set(original, wire)
    toOriginal.set(wire, original)
  }
  const frozen = Object.freeze(entries.map((e) => Object.freeze({ original: e.original, wire: e.wire })))
  return Object.freeze({
    entries: frozen,
    toWire: (original: string) => toWire.get(original),
    toOriginal: (wire: string) => toOriginal.get(wire) ?? wire,
    hasWire: (wire: string) => toOriginal.has(wire),
  })
}

/**
 * Assigns provider names to `names` (distinct, non-empty), deterministically and without
 * collisions: names that already satisfy the rule keep it and are reserved first; every other
 * name has each disallowed character replaced by `_`, gets a `_` prefix when its first character
 * is not allowed, is shortened to the limit with an 8-hex-digit FNV-1a hash of the original when
 * too long, and gets the first free `_2`, `_3`, … suffix on a clash.
 */
export function assignWireNames(names: readonly string[], rule: NameRule): NameMap {
  const taken = new Set<string>()
  for (const name of names) if (isValidToolName(name, rule)) taken.add(name)
  const entries: NameMapEntry[] = []
  for (const name of names) {
    if (isValidToolName(name, rule)) {
      entries.push({ original: name, wire: name })
      continue
    }
    let base = ''
    for (const ch of name) base += rule.allowedChar.test(ch) ? ch : '_'
    if (rule.firstChar && !rule.firstChar.test(base[0] ?? '')) base = `_${base}`
    if (base.length > rule.maxLength) base = `${base.slice(0, rule.maxLength - 9)}_${fnv1a(name)}`
    let candidate = base
    for (let n = 2; taken.has(candidate); n++) {
      const suffix = `_${n}`
      candidate = `${base.slice(0, rule.maxLength - suffix.length)}${suffix}`
    }
    taken.add(candidate)
    entries.push({ original: name, wire: candidate })
  }
  return nameMapFromEntries(entries)
}

/** 32-bit FNV-1a over UTF-16 code units, as 8 hex digits. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash.toString(16).padStart(8, '0')
}
