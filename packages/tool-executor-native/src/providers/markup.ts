/**
 * Detection of tool-call markup leaked into assistant text (emission E19): a response whose
 * text carries a model's native tool-call syntax but no structured calls must not be taken
 * as a final answer.
 */
import type { LeakedMarkup } from './types'

const MARKERS: readonly { readonly marker: string; readonly pattern: RegExp }[] = [
  // DeepSeek V3.2+/V4 DSML; the bars appear as ASCII |, fullwidth U+FF5C or U+2016.
  { marker: 'dsml', pattern: /<\s*\/?\s*[|\uFF5C\u2016]\s*DSML\s*[|\uFF5C\u2016]/ },
  // DeepSeek V3 / R1 special tokens.
  { marker: 'deepseek-v3', pattern: /<[|\uFF5C]tool[\u2581_ ]calls?[\u2581_ ](?:begin|end)[|\uFF5C]>|<[|\uFF5C]tool[\u2581_ ](?:call|sep)[\u2581_ ]?(?:begin|end)?[|\uFF5C]>/ },
  // Hermes / Qwen.
  { marker: 'hermes', pattern: /<\/?tool_call>/ },
  // Llama 3.x / Qwen3-Coder `<function=name>`.
  { marker: 'function-tag', pattern: /<function=[A-Za-z_]/ },
  // XML function-call blocks.
  { marker: 'xml-invoke', pattern: /<function_calls>|<invoke\s+name=/ },
  // OpenAI-shaped JSON written as text.
  { marker: 'json-tool-calls', pattern: /"tool_calls"\s*:|"function_call"\s*:\s*\{/ },
  { marker: 'mistral', pattern: /\[TOOL_CALLS\]/ },
  { marker: 'llama-python-tag', pattern: /<\|python_tag\|>/ },
  { marker: 'kimi', pattern: /<\|tool_calls_section_begin\|>|<\|tool_call_begin\|>/ },
  // gpt-oss harmony: special tokens or a `to=functions.<name>` recipient.
  { marker: 'harmony', pattern: /<\|(?:start|channel|message|call|constrain)\|>|\bto=functions\.[A-Za-z_]/ },
]

/**
 * Every markup dialect found in `text`, first occurrence each, in text order (ascending
 * `offset`). Dialects (`marker`): `dsml`, `deepseek-v3`, `hermes`, `function-tag`,
 * `xml-invoke`, `json-tool-calls`, `mistral`, `llama-python-tag`, `kimi`, `harmony` — the
 * patterns come from each model family's published chat template. `offset` counts UTF-16 code
 * units; `excerpt` is the text from 20 units before to 80 after it. Pure; never throws; `[]`
 * when nothing is found.
 */
export function detectLeakedMarkup(text: string): LeakedMarkup[] {
  const found: LeakedMarkup[] = []
  for (const { marker, pattern } of MARKERS) {
    const match = pattern.exec(text)
    if (!match) continue
    const offset = match.index
    found.push(Object.freeze({ marker, offset, excerpt: text.slice(Math.max(0, offset - 20), offset + 80) }))
  }
  return found.sort((a, b) => a.offset - b.offset)
}
