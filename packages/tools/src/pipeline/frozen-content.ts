/**
 * Content and context checks and their frozen copies (internal): what a body, a render, a
 * `tools/post-execute` decision or a finalizer hands back is checked here and frozen before it
 * reaches a result.
 */
import type { ContentBlock, ResultContext } from '../contracts'

export function isContent(value: unknown): value is readonly ContentBlock[] {
  if (!Array.isArray(value)) return false
  for (const block of value) {
    if (block === null || typeof block !== 'object') return false
    const b = block as { type?: unknown; text?: unknown; data?: unknown; mimeType?: unknown }
    if (b.type === 'text') {
      if (typeof b.text !== 'string') return false
    } else if (b.type === 'image') {
      if (typeof b.data !== 'string' || typeof b.mimeType !== 'string') return false
    } else return false
  }
  return true
}

export function isContext(value: unknown): value is ResultContext {
  return value !== null && typeof value === 'object' && typeof (value as { source?: unknown }).source === 'string' && isContent((value as { content?: unknown }).content)
}

export function freezeContext(context: ResultContext): ResultContext {
  return Object.freeze({ source: context.source, content: freezeContent(context.content) })
}

/** `content` itself when it and every block are frozen already, else {@link copyContent}. */
export function freezeContent(content: readonly ContentBlock[]): readonly ContentBlock[] {
  if (Object.isFrozen(content) && everyFrozen(content)) return content
  return copyContent(content)
}

/**
 * A frozen copy of `content`, block by block (see {@link frozenBlock}), without first asking
 * whether it is frozen already: for what a `render` or `projectContent` just built, which
 * almost never is (`Object.isFrozen` is a C++ builtin, ~160–290 instructions a question). A
 * frozen array is copied like any other.
 */
export function copyContent(content: readonly ContentBlock[]): readonly ContentBlock[] {
  // The common single block as an array literal (packed, allocated inline) rather than `new Array(1)`.
  if (content.length === 1) return Object.freeze([frozenBlock(content[0]!)])
  const out = new Array<ContentBlock>(content.length)
  for (let i = 0; i < content.length; i++) out[i] = frozenBlock(content[i]!)
  return Object.freeze(out)
}

/** Whether every block is frozen (a plain loop: no callback closure per call, as `every` needs). */
function everyFrozen(content: readonly ContentBlock[]): boolean {
  for (let i = 0; i < content.length; i++) if (!Object.isFrozen(content[i])) return false
  return true
}

/**
 * A frozen copy of one block. The common `{ type: 'text', text }` (those two own enumerable
 * string keys, in that order, nothing enumerable inherited) is rebuilt as a literal, which V8
 * copies and freezes in about half the time of the generic {@link shallowCopy}; any other block
 * is copied as it is. Own symbol keys are not looked at: such a block loses them (the generic
 * copy keeps them). Checking for them (`Object.getOwnPropertySymbols`) costs more than the
 * literal saves; a symbol is no content the model can see.
 */
function frozenBlock(block: ContentBlock): ContentBlock {
  if (block.type === 'text') {
    let keys = 0
    for (const key in block) {
      if (keys === 0 ? key !== 'type' : keys !== 1 || key !== 'text') {
        keys = -1
        break
      }
      keys++
    }
    if (keys === 2) return Object.freeze({ type: 'text', text: block.text })
  }
  return Object.freeze(shallowCopy(block))
}

/**
 * `{ ...value }` for objects about to be frozen: `Object.freeze` of a spread copy is ~15× slower
 * in V8 than of an `Object.assign` copy (docs/benchmarks.md, "Optimisations"). An own
 * `__proto__` key keeps the spread, which defines it as data where `Object.assign` would set the
 * prototype.
 */
export function shallowCopy<T extends object>(value: T): T {
  return Object.hasOwn(value, '__proto__') ? { ...value } : Object.assign({}, value)
}
