/**
 * TypeScript type-stripping on the host with esbuild (docs/design.md, "PTC executor": programs are TypeScript
 * or JavaScript, type-stripped on the host with esbuild).
 *
 * `transformSync` is used: on Node it costs about the same as the async `transform` (≈1.2 ms per
 * small program, one round trip to the esbuild service) and keeps the caller synchronous.
 */
import { transformSync, type TransformFailure } from 'esbuild'

/** A stripping failure; `line` (1-based) and `column` (0-based) point into the given source. */
export interface StripError {
  readonly message: string
  readonly line: number
  readonly column: number
}

/** The result of {@link stripTypes} / {@link stripProgram}. */
export type StripResult = { readonly code: string } | { readonly error: StripError }

/** The name of the function {@link stripProgram} wraps a program in. */
export const PROGRAM_FUNCTION = '__dshProgram'

/** esbuild target: keeps async/await, classes and modern syntax that QuickJS runs natively. */
const TARGET = 'es2022'

/**
 * Removes TypeScript syntax (annotations, interfaces, generics, `as`, `enum` → objects) from
 * `source` with esbuild's `ts` loader. No bundling, no minification.
 *
 * @returns `{ code }`, or `{ error }` with esbuild's first message and its position. Never throws.
 */
export function stripTypes(source: string): StripResult {
  return strip(source, 0)
}

/**
 * Strips `source` as the body of an async function, so top-level `await` and `return` work:
 * the code is `(async function __dshProgram() {\n<source>\n})` and evaluates to that function.
 * Error positions refer to `source` (the wrapper line is subtracted).
 */
export function stripProgram(source: string): StripResult {
  const lines = source.split('\n')
  return strip(`(async function ${PROGRAM_FUNCTION}() {\n${source}\n})`, 1, lines.length, lines[lines.length - 1]?.length ?? 0)
}

function strip(text: string, lineOffset: number, maxLine = Number.MAX_SAFE_INTEGER, lastLineLength = 0): StripResult {
  try {
    const result = transformSync(text, { loader: 'ts', target: TARGET, format: undefined, sourcemap: false, logLevel: 'silent' })
    return { code: result.code }
  } catch (error) {
    return { error: toStripError(error, lineOffset, maxLine, lastLineLength) }
  }
}

function toStripError(error: unknown, lineOffset: number, maxLine: number, lastLineLength: number): StripError {
  const failure = error as Partial<TransformFailure>
  const first = Array.isArray(failure.errors) ? failure.errors[0] : undefined
  if (first !== undefined) {
    const loc = first.location
    if (loc !== undefined && loc !== null && loc.line - lineOffset > maxLine) {
      // The error sits in the wrapper's closing line: the program ended inside a construct.
      return {
        message: `SyntaxError: unexpected end of the program (an unclosed block, bracket or string?) (line ${maxLine})`,
        line: maxLine,
        column: lastLineLength,
      }
    }
    const line = loc ? Math.max(1, loc.line - lineOffset) : 1
    const column = loc ? loc.column : 0
    return { message: `SyntaxError: ${first.text} (line ${line}, column ${column + 1})`, line, column }
  }
  return { message: `SyntaxError: ${error instanceof Error ? error.message : String(error)}`, line: 1, column: 0 }
}
