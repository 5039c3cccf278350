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
 * builders; keep it with the conversation and pass it to the parsers and result builders, and
 * to the next declaration as its `names` option so the names the model saw stay the same.
 * Persist `entries` (plain JSON) and restore them with {@link nameMapFromEntries}.
 */
export interface NameMap {
  /**
   * Every declared tool in declaration order (identity entries included); when the declaration
   * was given a conversation's `names`, those entries come first, also for tools no longer declared.
   */
  readonly entries: readonly NameMapEntry[]
  /** The provider-side name of a declared tool, or `undefined` for an undeclared one. */
  toWire(original: string): string | undefined
  /**
   * The tool name for a provider-side name. An unknown name is returned unchanged so the
   * pipeline can answer it with `UNKNOWN_TOOL` and the list of available names.
   */
  toOriginal(wire: string): string
  /** Whether `wire` is a provider-side name in the map. */
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
 * Assigns provider names to `names` (distinct, non-empty). The provider name of a tool depends
 * only on its own name and on which other names are in the set — never on their order — so it
 * is the same in every run however tools (or MCP servers) were registered:
 *
 * - a name that satisfies the rule is kept as it is;
 * - any other name has each disallowed character replaced by `_` and gets a `_` prefix when its
 *   first character is not allowed (`math.factorial` → `math_factorial`);
 * - that form gets a suffix `_` + an 8-hex-digit FNV-1a hash of the ORIGINAL name (shortened
 *   to the length limit first) when it is too long, when it has no letter or digit left
 *   (`搜索工具` → `____` alone says nothing, so it is always hashed), or when it clashes with a
 *   kept name or with another rewritten name (`a.b` and `a:b` with `a_b` present: both hashed).
 *
 * With `given` (the names a conversation already used: an earlier declaration's `nameMap`, or
 * persisted entries), names once given stay: a tool in `given` keeps its provider name (when
 * that name still satisfies `rule`), and a newcomer may not take any provider name in `given`,
 * even one of a tool no longer declared — it gets the rewritten, hashed form instead (`a_b`
 * arriving after `a.b` was sent as `a_b` becomes `a_b_<hash>`). The result then lists every
 * entry of `given` first (declared or not, so earlier turns still map back), then the new ones.
 *
 * A hash that still clashes (once in ~4 billion) is re-hashed with a counter, in the order of
 * the original names (code-unit order), which is again independent of registration order.
 */
export function assignWireNames(names: readonly string[], rule: NameRule, given?: NameMap | readonly NameMapEntry[]): NameMap {
  const previous = givenEntries(given)
  const pinned = new Map<string, string>()
  for (const { original, wire } of previous) if (isValidToolName(wire, rule)) pinned.set(original, wire)
  const reserved = new Set(previous.map((entry) => entry.wire))
  const fresh = names.filter((name) => !pinned.has(name))
  const kept = new Set<string>()
  for (const name of fresh) if (isValidToolName(name, rule) && !reserved.has(name)) kept.add(name)
  const bases = new Map<string, string>()
  const baseCount = new Map<string, number>()
  for (const name of fresh) {
    if (kept.has(name)) continue
    const base = sanitizedBase(name, rule)
    bases.set(name, base)
    baseCount.set(base, (baseCount.get(base) ?? 0) + 1)
  }
  const taken = new Set([...kept, ...reserved])
  const wire = new Map<string, string>()
  const hashed: string[] = []
  for (const [name, base] of bases) {
    const needsHash = base.length > rule.maxLength || !/[A-Za-z0-9]/.test(base) || kept.has(base) || reserved.has(base) || (baseCount.get(base) ?? 0) > 1
    if (needsHash) hashed.push(name)
    else {
      wire.set(name, base)
      taken.add(base)
    }
  }
  for (const name of hashed.sort()) {
    const base = bases.get(name) as string
    let candidate = withHash(base, fnv1a(name), rule)
    for (let n = 1; taken.has(candidate); n++) candidate = withHash(base, fnv1a(`${name}\u0000${n}`), rule)
    taken.add(candidate)
    wire.set(name, candidate)
  }
  const wireOf = (name: string): string => pinned.get(name) ?? (kept.has(name) ? name : (wire.get(name) as string))
  // Earlier entries first, each with its current provider name (one that broke the rule is re-assigned).
  const declared = new Set(names)
  const entries: NameMapEntry[] = previous.map(({ original, wire: old }) => ({ original, wire: pinned.has(original) || !declared.has(original) ? old : wireOf(original) }))
  const listed = new Set(previous.map((entry) => entry.original))
  for (const name of names) if (!listed.has(name)) entries.push({ original: name, wire: wireOf(name) })
  return nameMapFromEntries(entries)
}

/**
 * The entries of a conversation's names (a {@link NameMap} or its `entries`).
 * @throws TypeError naming what was wrong: not a map or an array, or an entry without string `original` and `wire`.
 */
function givenEntries(given: NameMap | readonly NameMapEntry[] | undefined): readonly NameMapEntry[] {
  if (given === undefined || given === null) return []
  const entries: unknown = Array.isArray(given) ? given : (given as { entries?: unknown }).entries
  if (!Array.isArray(entries)) throw new TypeError(`names must be a NameMap (a declaration's nameMap) or its entries array, got ${describe(given)}`)
  entries.forEach((entry: { original?: unknown; wire?: unknown } | null, i) => {
    if (typeof entry?.original !== 'string' || entry.original === '' || typeof entry.wire !== 'string' || entry.wire === '') {
      throw new TypeError(`names: entry ${i} must be { original, wire } with non-empty strings, got ${describe(entry)}`)
    }
  })
  return entries as readonly NameMapEntry[]
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object') return JSON.stringify(value)?.slice(0, 80) ?? 'an object'
  return typeof value === 'string' ? JSON.stringify(value) : String(value)
}

/** The rule-conforming characters of `name` (others replaced by `_`), with a `_` prefix when needed. */
function sanitizedBase(name: string, rule: NameRule): string {
  let base = ''
  for (const ch of name) base += rule.allowedChar.test(ch) ? ch : '_'
  if (rule.firstChar && !rule.firstChar.test(base[0] ?? '')) base = `_${base}`
  return base
}

/** `base` shortened so that `base_<hash>` fits the rule's length limit, plus the suffix. */
function withHash(base: string, hash: string, rule: NameRule): string {
  return `${base.slice(0, rule.maxLength - hash.length - 1)}_${hash}`
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
