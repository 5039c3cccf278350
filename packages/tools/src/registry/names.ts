/**
 * The tool name rule (docs/design.md, "Definitions and schemas"): which texts can be tool
 * names, the rule's text for registration errors, and the names the registry refuses.
 */
import { quoteText } from '../errors'

/** The longest tool name, in Unicode code points. */
export const MAX_TOOL_NAME_LENGTH = 128
/** Control, lone-surrogate, line/paragraph-separator and invisible format characters (the emoji and script joiners U+200C/U+200D allowed). */
export const NAME_FORBIDDEN = /(?![\u200C\u200D])[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u
export const NAME_RULE_TEXT = `a tool name must be 1–${MAX_TOOL_NAME_LENGTH} Unicode characters in NFC form, without control or invisible characters and without surrounding whitespace`

/**
 * Why `name` cannot be a tool name, or `undefined` when it can: any non-empty Unicode text
 * (`search_docs`, `搜索工具`, `🔍`) of at most {@link MAX_TOOL_NAME_LENGTH} code points, in
 * NFC form, without control or invisible format characters, without leading or trailing
 * whitespace. Provider adapters map names their wire format cannot carry reversibly.
 */
export function toolNameProblem(name: string): string | undefined {
  if (name === '') return 'it is empty'
  let length = 0
  for (const _ of name) length++
  if (length > MAX_TOOL_NAME_LENGTH) return `it has ${length} characters`
  if (NAME_FORBIDDEN.test(name)) return 'it contains a control or invisible character'
  if (/^\s|\s$/u.test(name)) return 'it has whitespace around it'
  if (name.normalize('NFC') !== name) return `it is not in Unicode NFC form (register it as ${quoteText(name.normalize('NFC'))})`
  return undefined
}
/** Names the registry refuses: the PTC executor's own tool. */
export const RESERVED_TOOL_NAMES: readonly string[] = Object.freeze(['run_code'])
/** Any character outside ASCII: only such a name can be in another Unicode normal form than NFC. */
export const NON_ASCII = /[^\x00-\x7f]/
