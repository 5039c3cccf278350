/**
 * The host's reading of the sub-calls the prelude queued (`api.afterJobs()`, see `prelude.ts`):
 * `id:index:length:json` per call, `length` in UTF-16 units. The text comes out of the sandbox,
 * so it is checked frame by frame instead of trusted: a malformed frame ends the reading.
 */

/** One queued sub-call: its id in the guest, the tool's position in the run's names, its JSON argument. */
export interface QueuedCall {
  readonly id: number
  readonly index: number
  readonly json: string
}

/**
 * Splits the queue text (from position `from`, default 0) into calls. `{ calls }` when every
 * frame is well formed: decimal integers without sign or leading zero, ids increasing, `index`
 * below `toolCount`, `length` within the text. `{ calls, malformed }` otherwise, with the calls of
 * the frames before the first malformed one and what was wrong with it (positions count from the
 * start of `text`). Linear in the text's length; never throws.
 */
export function parseQueuedCalls(text: string, toolCount: number, from = 0): { readonly calls: QueuedCall[]; readonly malformed?: string } {
  const calls: QueuedCall[] = []
  let at = from
  let lastId = 0
  while (at < text.length) {
    const id = readNumber(text, at)
    if (id === undefined) return { calls, malformed: `bad id at ${at}` }
    const index = readNumber(text, id.next)
    if (index === undefined) return { calls, malformed: `bad tool index at ${id.next}` }
    const length = readNumber(text, index.next)
    if (length === undefined) return { calls, malformed: `bad length at ${index.next}` }
    if (id.value <= lastId) return { calls, malformed: `id ${id.value} after ${lastId}` }
    if (index.value >= toolCount) return { calls, malformed: `tool index ${index.value} of ${toolCount} tools` }
    const end = length.next + length.value
    if (end > text.length) return { calls, malformed: `length ${length.value} past the end` }
    calls.push({ id: id.value, index: index.value, json: text.slice(length.next, end) })
    lastId = id.value
    at = end
  }
  return { calls }
}

/**
 * The decimal integer at `at` up to the next `:` (digits only, no sign, no leading zero, at most
 * 15 digits) and the position after that `:`; `undefined` when there is none.
 */
export function readNumber(text: string, at: number): { readonly value: number; readonly next: number } | undefined {
  const colon = text.indexOf(':', at)
  if (colon <= at || colon - at > 15) return undefined
  if (text.charCodeAt(at) === 48 && colon - at > 1) return undefined
  let value = 0
  for (let i = at; i < colon; i++) {
    const digit = text.charCodeAt(i) - 48
    if (digit < 0 || digit > 9) return undefined
    value = value * 10 + digit
  }
  return { value, next: colon + 1 }
}
