/**
 * Glue between a parse result and the pipeline: run a complete batch, or answer a cut one with
 * truncation failures, so every emitted call gets exactly one result in call order.
 */
import type { RawToolCall, ToolResult } from '@deepseek-ai/dsh-tools'
import { truncatedCallResults } from './truncation'
import type { ParsedToolCalls } from './types'

/** The calls the model emitted and one result for each, ready for a result-message builder. */
export interface SettledCalls {
  readonly calls: readonly RawToolCall[]
  readonly results: readonly ToolResult[]
}

/**
 * Runs `parsed.calls` through `execute` (typically `(calls) => ctx.tools.execute({ calls,
 * nameMap: declared.nameMap })`: with the declaration's name map, the pipeline's error texts
 * name tools as the model saw them, `math_factorial` rather than `math.factorial`)
 * when the response is `complete` or `recovered` (calls recovered from text run like any
 * other); when it was cut (`truncated`), runs nothing and returns {@link truncatedCallResults}
 * for every emitted call. An empty batch — a final answer, or `malformed-markup`, which a loop
 * answers with `markupErrorMessage` — does not call `execute` and returns no calls.
 *
 * @example
 * const { calls, results } = await settleParsedCalls(parsed, (calls) => ctx.tools.execute({ calls, nameMap: declared.nameMap }))
 * const messages = toOpenAIChatToolMessages(calls, results)
 */
export async function settleParsedCalls(
  parsed: ParsedToolCalls,
  execute: (calls: readonly RawToolCall[]) => Promise<readonly ToolResult[]>,
): Promise<SettledCalls> {
  if (parsed.status === 'truncated') return { calls: parsed.truncated, results: truncatedCallResults(parsed.truncated) }
  if (parsed.calls.length === 0) return { calls: [], results: [] }
  return { calls: parsed.calls, results: await execute(parsed.calls) }
}
