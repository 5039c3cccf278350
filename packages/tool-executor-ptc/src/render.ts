/**
 * The model-facing text of a `run_code` result (docs/design.md, "What the model sees": PTC mode renders
 * the outer program's printed lines and return value, (run_code completed with no output) when
 * both are empty, or Error: code run failed (<kind>): <message> followed conditionally by
 * Captured output: and the captured lines").
 */
import type { JsonValue } from '@deepseek-ai/dsh-tools'
import type { RunOutput } from './runtime/types'

/** The text shown when a run printed nothing and returned nothing (docs/design.md, "PTC executor"). */
export const NO_OUTPUT_TEXT = '(run_code completed with no output)'

/** The model-facing rendering of a run. */
export interface RenderedRun {
  readonly text: string
  readonly isError: boolean
}

/**
 * Renders a return value: a string as is, any other JSON value pretty-printed with two spaces
 * (`null` → `null`).
 */
export function renderValue(value: JsonValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2)
}

/**
 * Renders a run for the model. Pure.
 *
 * - Success: the printed lines joined with `\n`, then the rendered return value on its own line
 *   (an empty string return adds nothing); {@link NO_OUTPUT_TEXT} when the result is empty.
 * - Failure: `Error: code run failed (<kind>): <message>`, then `\nCaptured output:\n` and the
 *   printed lines joined with `\n` when there are any.
 * - Either way the notes (`RunOutput.notes`: work left pending and cancelled), one a line, come last.
 */
export function renderRunOutput(output: Pick<RunOutput, 'logs' | 'value' | 'error' | 'notes'>): RenderedRun {
  const logs = output.logs
  const notes = output.notes === undefined || output.notes.length === 0 ? '' : `\n${output.notes.join('\n')}`
  if (output.error !== undefined) {
    const head = `Error: code run failed (${output.error.kind}): ${output.error.message}`
    return { text: (logs.length > 0 ? `${head}\nCaptured output:\n${logs.join('\n')}` : head) + notes, isError: true }
  }
  const parts = [...logs]
  if (output.value !== undefined) {
    const rendered = renderValue(output.value)
    if (rendered !== '') parts.push(rendered)
  }
  if (output.notes !== undefined) parts.push(...output.notes)
  const text = parts.join('\n')
  return { text: text === '' ? NO_OUTPUT_TEXT : text, isError: false }
}
