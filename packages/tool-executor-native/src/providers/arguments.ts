/**
 * Classifies tool-call argument text: complete JSON, empty, a truncated prefix of JSON (the
 * text ends mid-value: bug case B22), or malformed (an error before the end: left to the
 * pipeline, which answers `INVALID_ARGS` naming the parse error, or to the core's repair).
 */
import { stripInvisibleEdges } from '@deepseek-ai/dsh-tools'

/** The state of an argument string. */
export type ArgumentsState = 'complete' | 'empty' | 'incomplete' | 'malformed'

/** `JSON.parse` of argument text under the same rule as {@link classifyArguments} (invisible edges removed). @throws SyntaxError */
export function parseArgumentsText(raw: string): unknown {
  return JSON.parse(stripInvisibleEdges(raw).text)
}

class EndOfInput extends Error {}
class Malformed extends Error {}

/**
 * Returns `complete` when `text` parses as JSON, `empty` for `""` or whitespace, `incomplete`
 * when every character so far is valid JSON and only the end is missing, `malformed` otherwise
 * (including trailing text after a complete value, emission E15).
 *
 * The rule is the pipeline's: byte-order marks, zero-width spaces and word joiners around the
 * JSON text are removed first (`stripInvisibleEdges` of `@deepseek-ai/dsh-tools`, which the
 * pipeline applies before `JSON.parse` and notes in `result.meta.repairs`), so `\uFEFF{"a":1}`
 * is `complete` here and runs there; one inside the JSON text is left alone. Read a `complete`
 * text with {@link parseArgumentsText}.
 */
export function classifyArguments(raw: string): ArgumentsState {
  const text = stripInvisibleEdges(raw).text
  if (text.trim() === '') return 'empty'
  try {
    JSON.parse(text)
    return 'complete'
  } catch {
    // fall through to the prefix scan
  }
  const scanner = new PrefixScanner(text)
  try {
    scanner.value()
    scanner.ws()
    return scanner.done() ? 'complete' : 'malformed'
  } catch (error) {
    if (error instanceof EndOfInput) return 'incomplete'
    if (error instanceof Malformed) return 'malformed'
    throw error
  }
}

/** A recursive-descent JSON scanner that tells "ran out of input" from "invalid input". */
class PrefixScanner {
  private i = 0
  constructor(private readonly text: string) {}

  done(): boolean {
    return this.i >= this.text.length
  }

  ws(): void {
    while (this.i < this.text.length && ' \t\n\r'.includes(this.text[this.i] as string)) this.i++
  }

  private peek(): string {
    if (this.i >= this.text.length) throw new EndOfInput()
    return this.text[this.i] as string
  }

  value(): void {
    this.ws()
    const c = this.peek()
    if (c === '{') return this.object()
    if (c === '[') return this.array()
    if (c === '"') return this.string()
    if (c === '-' || (c >= '0' && c <= '9')) return this.number()
    if (c === 't') return this.literal('true')
    if (c === 'f') return this.literal('false')
    if (c === 'n') return this.literal('null')
    throw new Malformed()
  }

  private object(): void {
    this.sequence('}', () => {
      this.ws()
      if (this.peek() !== '"') throw new Malformed()
      this.string()
      this.ws()
      if (this.peek() !== ':') throw new Malformed()
      this.i++
      this.value()
    })
  }

  private array(): void {
    this.sequence(']', () => this.value())
  }

  /** The body of an object or array after its opening bracket: `item`s separated by `,` up to `close`. */
  private sequence(close: string, item: () => void): void {
    this.i++
    this.ws()
    if (this.peek() === close) {
      this.i++
      return
    }
    for (;;) {
      item()
      this.ws()
      const c = this.peek()
      this.i++
      if (c === close) return
      if (c !== ',') throw new Malformed()
    }
  }

  private string(): void {
    this.i++
    for (;;) {
      const c = this.peek()
      this.i++
      if (c === '"') return
      if (c < ' ') throw new Malformed()
      if (c !== '\\') continue
      const e = this.peek()
      this.i++
      if (e === 'u') {
        for (let k = 0; k < 4; k++) {
          if (!/[0-9a-fA-F]/.test(this.peek())) throw new Malformed()
          this.i++
        }
      } else if (!'"\\/bfnrt'.includes(e)) {
        throw new Malformed()
      }
    }
  }

  private digits(): void {
    if (!/[0-9]/.test(this.peek())) throw new Malformed()
    while (this.i < this.text.length && /[0-9]/.test(this.text[this.i] as string)) this.i++
  }

  private number(): void {
    if (this.peek() === '-') this.i++
    if (this.peek() === '0') this.i++
    else this.digits()
    if (this.i < this.text.length && this.text[this.i] === '.') {
      this.i++
      this.digits()
    }
    if (this.i < this.text.length && (this.text[this.i] === 'e' || this.text[this.i] === 'E')) {
      this.i++
      const sign = this.peek()
      if (sign === '+' || sign === '-') this.i++
      this.digits()
    }
  }

  private literal(word: string): void {
    for (const ch of word) {
      if (this.peek() !== ch) throw new Malformed()
      this.i++
    }
  }
}
