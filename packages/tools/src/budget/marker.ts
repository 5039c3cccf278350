/**
 * The marker a budget appends to a cut result (pure): how much was shown, how much there is, the
 * handle, and how to read on.
 */
import { estimateTokens } from './estimate'

/** What {@link budgetMarker} states. */
export interface BudgetMarkerInput {
  /** Characters of the result shown before the marker (its offset `0` to `shownChars`). */
  readonly shownChars: number
  /** Characters of the whole result (text blocks joined with `\n`). */
  readonly totalChars: number
  /** The {@link ResultStore} handle of the whole result. */
  readonly handle: string
  /** The paging tool's name the model may call (`read_result`), or `undefined` when none is offered. */
  readonly readTool: string | undefined
  /** The `length` the marker suggests for the next page: the budget that cut the result, from 1,000 to 20,000 (`read_result`'s limit). */
  readonly pageChars: number
}

const n = (value: number): string => value.toLocaleString('en-US')

/**
 * The marker text, one text block after the kept content. With a paging tool:
 *
 * `[Result cut by its budget: showing characters 0–2,000 of 200,000 (≈500 of ≈50,000 tokens).
 * The full result is stored under handle "res_…". To read on, call read_result with
 * {"handle":"res_…","offset":2000,"length":2000}.]`
 *
 * Without one, the last sentence is `The application can retrieve it; it cannot be paged here.`
 * (one line, no line breaks; figures with `,` thousands separators, tokens estimated by
 * `estimateTokens`).
 */
export function budgetMarker(input: BudgetMarkerInput): string {
  const { shownChars, totalChars, handle, readTool } = input
  const head = `[Result cut by its budget: showing characters 0–${n(shownChars)} of ${n(totalChars)} (≈${n(estimateTokens(shownChars))} of ≈${n(estimateTokens(totalChars))} tokens). The full result is stored under handle "${handle}".`
  if (readTool === undefined) return `${head} The application can retrieve it; it cannot be paged here.]`
  const length = Math.max(1, Math.min(input.pageChars, totalChars - shownChars))
  return `${head} To read on, call ${readTool} with ${JSON.stringify({ handle, offset: shownChars, length })}.]`
}
