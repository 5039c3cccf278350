/**
 * The text framing of the two messages a sequential sub-call costs with the engine in a worker
 * thread: the sub-calls of one sandbox entry (engine → main thread, on the worker's port) and
 * the replies settled in one microtask checkpoint (main thread → engine, on the replies port).
 * Each is one string: a string is cloned as one copy, where an object costs a property-by-
 * property walk with map transitions on the receiving side (measured: a bare round trip of
 * object messages shaped like these took about twice the CPU of one with strings).
 *
 * - Calls: `runId:` then per call `callId:index:length:json`, the framing of the guest's queue
 *   (`call-queue.ts`): `index` is the tool's position in the run's names, `json` the argument's
 *   JSON text; call ids increase within a message.
 * - Replies: `runId:` then per reply `callId:code:length:text`, where `code` 0 is a result
 *   (`text`: its JSON text) and 1, 2, 3 a rejection of kind `tool`, `limit`, `invalid` (`text`: its
 *   message); 4, 5, 6 are the same kinds with a `toolName`, which follows as `length:toolName`;
 *   7 a parked call (`text` empty: it is not answered in this run).
 *
 * Lengths count UTF-16 units; numbers are decimal without sign or leading zero. Both sides check
 * every frame (`parse…` never throw): a malformed message fails the run as an internal error.
 */
import { parseQueuedCalls, readNumber, type QueuedCall } from './call-queue'
import type { GuestRejection, HostReply } from './host-call'

/** One call's frame of a calls message (the message is `runId:` followed by its frames). */
export function callFrame(callId: number, index: number, json: string): string {
  return `${callId}:${index}:${json.length}:${json}`
}

/** One reply's frame of a replies message (the message is `runId:` followed by its frames). */
export function replyFrame(callId: number, reply: HostReply): string {
  if ('text' in reply) return `${callId}:0:${reply.text.length}:${reply.text}`
  if ('parked' in reply) return `${callId}:7:0:`
  const { kind, toolName, message } = reply.rejection
  const code = REJECTION_CODES[kind] + (toolName === undefined ? 0 : 3)
  const head = `${callId}:${code}:${message.length}:${message}`
  return toolName === undefined ? head : `${head}${toolName.length}:${toolName}`
}

const REJECTION_CODES: Readonly<Record<GuestRejection['kind'], number>> = { tool: 1, limit: 2, invalid: 3 }
const REJECTION_KINDS: readonly GuestRejection['kind'][] = ['tool', 'limit', 'invalid']

/** A parsed calls message: the run, its calls (see {@link parseQueuedCalls}), and what was wrong when it is malformed. */
export interface CallsMessage {
  /** `undefined` when not even the run id could be read. */
  readonly runId: number | undefined
  readonly calls: readonly QueuedCall[]
  readonly malformed?: string
}

/** One reply of a replies message. */
export interface FramedReply {
  readonly callId: number
  readonly reply: HostReply
}

/** A parsed replies message: the run, its replies, and what was wrong when it is malformed. */
export interface RepliesText {
  /** `undefined` when not even the run id could be read. */
  readonly runId: number | undefined
  readonly replies: readonly FramedReply[]
  readonly malformed?: string
}

/**
 * Reads a calls message; `toolCount` is the number of the run's tools. On a malformed frame
 * `calls` holds those before it and `malformed` says what was wrong. Never throws.
 */
export function parseCallsMessage(text: string, toolCount: number): CallsMessage {
  const run = readNumber(text, 0)
  if (run === undefined) return { runId: undefined, calls: [], malformed: 'bad run id at 0' }
  const { calls, malformed } = parseQueuedCalls(text, toolCount, run.next)
  return malformed === undefined ? { runId: run.value, calls } : { runId: run.value, calls, malformed }
}

/** Reads a replies message. On a malformed frame `replies` holds those before it and `malformed` says what was wrong. Never throws. */
export function parseRepliesMessage(text: string): RepliesText {
  const run = readNumber(text, 0)
  if (run === undefined) return { runId: undefined, replies: [], malformed: 'bad run id at 0' }
  const replies: FramedReply[] = []
  const done = (malformed: string): RepliesText => ({ runId: run.value, replies, malformed })
  let at = run.next
  while (at < text.length) {
    const id = readNumber(text, at)
    if (id === undefined) return done(`bad call id at ${at}`)
    const code = readNumber(text, id.next)
    if (code === undefined || code.value > 7) return done(`bad reply code at ${id.next}`)
    const body = readText(text, code.next)
    if (typeof body === 'string') return done(body)
    at = body.next
    if (code.value === 0) {
      replies.push({ callId: id.value, reply: { text: body.text } })
      continue
    }
    if (code.value === 7) {
      replies.push({ callId: id.value, reply: { parked: true } })
      continue
    }
    const kind = REJECTION_KINDS[(code.value - 1) % 3] as GuestRejection['kind']
    if (code.value <= 3) {
      replies.push({ callId: id.value, reply: { rejection: { kind, message: body.text } } })
      continue
    }
    const name = readText(text, at)
    if (typeof name === 'string') return done(name)
    at = name.next
    replies.push({ callId: id.value, reply: { rejection: { kind, toolName: name.text, message: body.text } } })
  }
  return { runId: run.value, replies }
}

/** The `length:text` at `at` and the position after it, or what is wrong with it. */
function readText(text: string, at: number): { readonly text: string; readonly next: number } | string {
  const length = readNumber(text, at)
  if (length === undefined) return `bad length at ${at}`
  const end = length.next + length.value
  if (end > text.length) return `length ${length.value} past the end`
  return { text: text.slice(length.next, end), next: end }
}
