/**
 * The token estimate of result budgets: characters over {@link CHARS_PER_TOKEN}, rounded up.
 * A fixed ratio, not a tokenizer: English text and JSON average about four characters per token
 * on current BPE tokenizers (fewer for CJK text, which may take a token per character or more).
 */

/** Characters per token the estimate assumes: 4. */
export const CHARS_PER_TOKEN = 4

/** The estimated tokens of `chars` characters: `Math.ceil(chars / 4)` (`0` for `0`). */
export function estimateTokens(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN)
}
