/**
 * Positions in the model's own program lines (issue: "where did it fail?"). The sandbox runs the
 * program as esbuild stripped it (types removed, `async`/`await` lowered, the program wrapped in
 * a function, esbuild's `__async` helper possibly dropped), so QuickJS's positions
 * (`program.js:<line>:<column>`) point into that text, not into what the model wrote.
 *
 * The prelude leaves a {@link POSITION_MARK} where a text needs a position — after an uncaught
 * error's description, in `console.trace`'s frames — holding QuickJS's position of the first
 * program frame of the error's stack. After the run, on the host, {@link placePositions} replaces
 * every mark with `line N: <the model's line N, trimmed>` through esbuild's source map of the
 * same strip (made only then: a run without a mark pays nothing). A mark that cannot be placed
 * reads `an unknown line`; a `console.trace` frame that cannot be placed (the wrapper's own
 * function) is left out.
 */
import { originalPositionFor, TraceMap, GREATEST_LOWER_BOUND, LEAST_UPPER_BOUND } from '@jridgewell/trace-mapping'
import { programSourceMap } from '../strip'
import { ESBUILD_ASYNC_HELPER } from './async-helper'
import type { RunOutput } from './types'

/**
 * The mark the prelude writes for a position: `\u0001<line>:<column>\u0001` with QuickJS's
 * 1-based line and column in the evaluated program text. (The control character cannot come
 * from a printed line of the program unless it prints it itself, which only mislabels its own
 * output.)
 */
export const POSITION_MARK = /\u0001(\d+):(\d+)\u0001/g

/** A `console.trace` frame line (`prelude-console.ts`): `\n    at <mark>`. */
const TRACE_FRAME = /\n {4}at \u0001(\d+):(\d+)\u0001/g

/** Longest source text quoted after a line number (characters); longer lines are cut with `…`. */
export const MAX_QUOTED_CHARS = 120

/** Lines esbuild's `__async` helper takes at the top of a stripped program (dropped before the run when the prelude defines it). */
const HELPER_LINES = ESBUILD_ASYNC_HELPER.split('\n').length - 1

/** Whether any text of `output` carries a position mark. */
function hasMarks(output: RunOutput): boolean {
  const test = (text: string): boolean => text.includes('\u0001')
  return (output.error !== undefined && test(output.error.message)) || output.logs.some(test) || (output.notes?.some(test) ?? false)
}

/**
 * `output` with every position mark replaced by the model's line: `line 3: const x = o.field`
 * (`line 3` when that line is blank). `source` is the program as the model wrote it, `code` the
 * stripped text that ran (before the `__async` helper was dropped, see `async-helper.ts`),
 * `evaluated` the text QuickJS evaluated. Never throws: a position that cannot be placed reads
 * `an unknown line`.
 */
export async function placePositions(output: RunOutput, source: string, code: string, evaluated: string): Promise<RunOutput> {
  if (!hasMarks(output)) return output
  const shift = evaluated === code ? 0 : HELPER_LINES
  let map: TraceMap | undefined
  try {
    const text = await programSourceMap(source)
    if (text !== undefined) map = new TraceMap(text)
  } catch {
    map = undefined
  }
  const lines = source.split('\n')
  const place = (_mark: string, line: string, column: string): string => {
    const at = map === undefined ? undefined : originalLine(map, Number(line) + shift, Math.max(0, Number(column) - 1))
    // Line 1 of the mapped text is the wrapper `(async function __dshProgram() {`.
    const own = at === undefined ? undefined : at - 1
    if (own === undefined || own < 1 || own > lines.length) return 'an unknown line'
    const quoted = (lines[own - 1] ?? '').trim()
    if (quoted === '') return `line ${own}`
    return `line ${own}: ${quoted.length > MAX_QUOTED_CHARS ? `${quoted.slice(0, MAX_QUOTED_CHARS)}…` : quoted}`
  }
  // A console.trace frame outside the model's lines (the wrapper function) is left out.
  const frame = (_frame: string, line: string, column: string): string => {
    const placed = place('', line, column)
    return placed === 'an unknown line' ? '' : `\n    at ${placed}`
  }
  const fix = (text: string): string => (text.includes('\u0001') ? text.replace(TRACE_FRAME, frame).replace(POSITION_MARK, place) : text)
  return {
    ...output,
    logs: output.logs.map(fix),
    ...(output.error === undefined ? {} : { error: { ...output.error, message: fix(output.error.message) } }),
    ...(output.notes === undefined ? {} : { notes: output.notes.map(fix) }),
  }
}

/** The original (1-based) line of generated `line` (1-based) and `column` (0-based), or `undefined`. */
function originalLine(map: TraceMap, line: number, column: number): number | undefined {
  for (const bias of [GREATEST_LOWER_BOUND, LEAST_UPPER_BOUND] as const) {
    const found = originalPositionFor(map, { line, column, bias })
    if (found.line !== null) return found.line
  }
  return undefined
}
