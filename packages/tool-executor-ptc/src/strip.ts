/**
 * TypeScript type-stripping on the host with esbuild (docs/design.md, "PTC executor": programs are TypeScript
 * or JavaScript, type-stripped on the host with esbuild).
 *
 * A run strips with {@link stripProgramCached} (the asynchronous `transform`: one round trip to
 * the esbuild service, ≈1.2–1.5 ms per small program here); `stripTypes` and `stripProgram` are
 * the synchronous forms.
 */
import { transform, transformSync, type TransformFailure } from 'esbuild'

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

/** esbuild options of every strip (no bundling, no minification, no source map). */
const OPTIONS = { loader: 'ts', target: TARGET, format: undefined, sourcemap: false, logLevel: 'silent' } as const

/**
 * `async`/`await` (and with them async generators and `for await`) lowered to generators and
 * esbuild's helpers, which make every promise through the global `Promise`: the sandbox's
 * prelude tracks rejections through it (see `runtime/prelude.ts`, unhandled rejections).
 */
const PROGRAM_OPTIONS = { ...OPTIONS, supported: { 'async-await': false } } as const

/**
 * Removes TypeScript syntax (annotations, interfaces, generics, `as`, `enum` → objects) from
 * `source` with esbuild's `ts` loader. No bundling, no minification.
 *
 * @returns `{ code }`, or `{ error }` with esbuild's first message and its position. Never throws.
 */
export function stripTypes(source: string): StripResult {
  try {
    return { code: transformSync(source, OPTIONS).code }
  } catch (error) {
    return { error: toStripError(error, 0, Number.MAX_SAFE_INTEGER, 0) }
  }
}

/** A program wrapped as an async function body, with what error positions need. */
interface WrappedProgram {
  readonly text: string
  readonly lines: number
  readonly lastLineLength: number
}

function wrap(source: string): WrappedProgram {
  const lines = source.split('\n')
  return { text: `(async function ${PROGRAM_FUNCTION}() {\n${source}\n})`, lines: lines.length, lastLineLength: lines[lines.length - 1]?.length ?? 0 }
}

/**
 * Strips `source` as the body of an async function, so top-level `await` and `return` work:
 * the code is `(async function __dshProgram() {\n<source>\n})`, with `async`/`await` lowered
 * to generators, and evaluates to that function (a plain function returning a promise).
 * Error positions refer to `source` (the wrapper line is subtracted).
 */
export function stripProgram(source: string): StripResult {
  const program = wrap(source)
  try {
    return { code: transformSync(program.text, PROGRAM_OPTIONS).code }
  } catch (error) {
    return { error: toStripError(error, 1, program.lines, program.lastLineLength) }
  }
}

/** Programs kept by {@link stripProgramCached} (least recently used first out). */
const CACHE_ENTRIES = 64
/** Longest program source {@link stripProgramCached} keeps (characters). */
const CACHE_MAX_SOURCE = 16_384
const cache = new Map<string, StripResult>()

/**
 * {@link stripProgram} through esbuild's asynchronous service (one round trip to the esbuild
 * process; the synchronous call adds a hop through a helper thread), with the results of the last
 * 64 programs up to 16 KiB kept, so a program run again (a retry, a repeated check) is not stripped
 * again. The results are immutable. Never rejects.
 *
 * @param options `cache: false` strips without reading or filling the cache (the runtime's
 *   warm-up program leaves no entry behind).
 */
export async function stripProgramCached(source: string, options: { readonly cache?: boolean } = {}): Promise<StripResult> {
  const useCache = options.cache !== false
  const cached = useCache ? cache.get(source) : undefined
  if (cached !== undefined) {
    cache.delete(source)
    cache.set(source, cached)
    return cached
  }
  const program = wrap(source)
  let result: StripResult
  try {
    result = { code: (await transform(program.text, PROGRAM_OPTIONS)).code }
  } catch (error) {
    result = { error: toStripError(error, 1, program.lines, program.lastLineLength) }
  }
  if (useCache && source.length <= CACHE_MAX_SOURCE) {
    cache.set(source, result)
    if (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value as string)
  }
  return result
}

/**
 * esbuild's source map (JSON text) of the program {@link stripProgram} / {@link stripProgramCached}
 * make from `source`: the same options, so its generated positions are those of the code that
 * ran; its original positions are in the wrapped text (line 1 is the wrapper's
 * `(async function __dshProgram() {`). Made only when a run's texts need a position
 * (`runtime/positions.ts`). `undefined` when the program does not strip.
 */
export async function programSourceMap(source: string): Promise<string | undefined> {
  try {
    return (await transform(wrap(source).text, { ...PROGRAM_OPTIONS, sourcemap: 'external' })).map
  } catch {
    return undefined
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
