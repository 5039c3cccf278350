/**
 * Eager start from a stream (`executeToolStream`), per provider, through the official SDK
 * clients against the local replay server: a call starts before its stream ends, results come
 * in call order, an exclusive call is a barrier, approvals are asked in model order, and a cut
 * or aborted stream cancels what started (`ABORTED`) and fails the call whose arguments never
 * completed (`TRUNCATED_ARGUMENTS`). Orderings and counts only: no wall-clock assertion. The
 * stream is held at a chosen event by the replay server's `beforeEvent` gate, which waits for a
 * tool body to start (bounded: it gives up after 5 s, and the ordering assertion then fails).
 */
import { getEventListeners } from 'node:events'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { Context } from 'cordis'
import { ToolRegistry, defineRawTool, type JsonObject } from '@deepseek-ai/dsh-tools'
import { ScriptedApproval, activeResources } from '@deepseek-ai/dsh-tool-testkit'
import { NativeExecutor, executeToolStream, type StreamProvider, type ToolStreamOutcome } from '../src'
import { openStream, script, type ScriptCall } from './stream-scripts'
import { texts, withReplay } from './sdk-helpers'

const PROVIDERS: readonly StreamProvider[] = ['openai-chat', 'deepseek', 'openai-responses', 'anthropic', 'gemini']

/** What happened, in order: `chunk` per delivered chunk, `start:<tag>` / `end:<tag>` per body, `send:last` when the server writes the last event. */
let log: string[]
let ctx: Context
/** Waiters on the log (see {@link until}). */
let waiters: { test: () => boolean; resolve: () => void }[]

/** Appends to the log and wakes the waiters whose condition now holds. */
function note(entry: string): void {
  log.push(entry)
  const ready = waiters.filter((w) => w.test())
  waiters = waiters.filter((w) => !ready.includes(w))
  for (const w of ready) w.resolve()
}

/** Resolves once `test()` holds for the log, or after 5 s (a bounded wait: the test's ordering assertion then fails). */
function until(test: () => boolean): Promise<void> {
  if (test()) return Promise.resolve()
  return new Promise<void>((resolve) => {
    const timer = setTimeout(finish, 5000)
    function finish(): void {
      clearTimeout(timer)
      resolve()
    }
    waiters.push({ test, resolve: finish })
  })
}

const started = (tag: string): Promise<void> => until(() => log.includes(`start:${tag}`))
const delivered = (n: number): Promise<void> => until(() => log.filter((e) => e === 'chunk').length >= n)
/** The timers a test left running (none expected). */
const timers = (): number => activeResources().Timeout ?? 0

beforeEach(async () => {
  log = []
  waiters = []
  ctx = new Context()
  await ctx.plugin(ToolRegistry, {})
  await ctx.plugin(NativeExecutor, {})
  const schema = { type: 'object', properties: { tag: { type: 'string' }, hold: { type: 'boolean' }, after: { type: 'string' } }, required: ['tag'] } as never
  const body = async (args: Record<string, unknown>, signal: AbortSignal): Promise<string> => {
    const tag = String(args.tag)
    note(`start:${tag}`)
    // `after`: finishes only once that call's body ended (bounded), so results settle out of call order.
    if (typeof args.after === 'string') await until(() => log.includes(`end:${String(args.after)}`))
    // `hold`: runs until its signal aborts (bounded), as a long body that honours cancellation.
    await new Promise<void>((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer)
        signal.removeEventListener('abort', onAbort)
      }
      const onAbort = (): void => {
        done()
        reject(signal.reason)
      }
      const timer = setTimeout(() => {
        done()
        resolve()
      }, args.hold === true ? 5000 : 5)
      signal.addEventListener('abort', onAbort, { once: true })
    })
    note(`end:${tag}`)
    return `done ${tag}`
  }
  ctx.tools.register(defineRawTool({ name: 'probe', description: 'Parallel-safe probe.', inputSchema: schema, isConcurrencySafe: () => true, execute: (args, exec) => body(args, exec.signal) }))
  ctx.tools.register(defineRawTool({ name: 'solo', description: 'Exclusive probe.', inputSchema: schema, execute: (args, exec) => body(args, exec.signal) }))
})

afterEach(async () => {
  await ctx.fiber.dispose()
})

const call = (id: string, name: string, tag: string, extra: JsonObject = {}): ScriptCall => ({ id, name, args: { tag, ...extra } })
const codes = (outcome: ToolStreamOutcome) => outcome.results.map((r) => (r.isError ? r.error.info.code : 'ok'))

/** Runs one turn: the server holds event `holdAt` until `tag`'s body started. */
async function turn(provider: StreamProvider, calls: readonly ScriptCall[], options: { holdAt?: number; tag?: string; cut?: number; abortAt?: number } = {}) {
  const { events, reply } = script(provider, calls, options.cut)
  const holdAt = options.holdAt ?? events.length - 1
  // The SDK client's signal and the one given to executeToolStream (whose listeners are checked), aborted together.
  const abort = new AbortController()
  const ours = new AbortController()
  let release: (() => void) | undefined
  const gate = async (index: number): Promise<void> => {
    if (index === options.abortAt) {
      // Every event written so far has reached the consumer, and the first body runs.
      await delivered(index)
      await started(options.tag ?? 'a')
      ours.abort(new Error('user stopped the turn'))
      abort.abort(new Error('user stopped the turn'))
      // Held until the test ends: the client is gone, nothing more is written.
      await new Promise<void>((resolve) => (release = resolve))
      return
    }
    if (index === holdAt) await started(options.tag ?? 'a')
    if (index === events.length - 1) note('send:last')
  }
  try {
    return await withReplay([reply(gate)], async (server) => {
      const stream = await openStream(provider, server.origin, abort.signal)
      const run = executeToolStream(ctx, { provider, stream, signal: ours.signal, onChunk: () => note('chunk') })
      const order: string[] = []
      for await (const item of run) order.push(item.call.callId)
      const outcome = await run.outcome
      return { outcome, order, events, signal: ours.signal }
    })
  } finally {
    release?.()
  }
}

describe.each(PROVIDERS)('executeToolStream, %s through its SDK client', (provider) => {
  test('a call starts before the stream ends; results come in call order', async () => {
    const before = timers()
    const { outcome, order, events } = await turn(provider, [call('c1', 'probe', 'a', { after: 'b' }), call('c2', 'probe', 'b'), call('c3', 'probe', 'c')])
    // The body of the first call started while the last chunk was still held by the server.
    expect(log.indexOf('start:a')).toBeGreaterThanOrEqual(0)
    expect(log.indexOf('start:a')).toBeLessThan(log.indexOf('send:last'))
    expect(log.slice(0, log.indexOf('start:a')).filter((e) => e === 'chunk').length).toBeLessThan(events.length)
    expect(outcome.startedEarly).toBeGreaterThanOrEqual(1)
    expect(outcome.streamEnded).toBe(true)
    expect(outcome.parsed.status).toBe('complete')
    expect(outcome.calls.map((c) => c.callId)).toEqual(['c1', 'c2', 'c3'])
    // Call 2 finished before call 1; results still come in call order.
    expect(log.indexOf('end:b')).toBeLessThan(log.indexOf('end:a'))
    expect(order).toEqual(['c1', 'c2', 'c3'])
    expect(texts(outcome.results)).toEqual(['done a', 'done b', 'done c'])
    expect(outcome.results.map((r) => r.callId)).toEqual(['c1', 'c2', 'c3'])
    expect(timers()).toBeLessThanOrEqual(before)
  })

  test('an exclusive call is a barrier: it waits for the earlier body, the later one waits for it', async () => {
    const { outcome } = await turn(provider, [call('c1', 'probe', 'a'), call('c2', 'solo', 'x'), call('c3', 'probe', 'b')])
    const bodies = log.filter((e) => e.startsWith('start:') || e.startsWith('end:'))
    expect(bodies).toEqual(['start:a', 'end:a', 'start:x', 'end:x', 'start:b', 'end:b'])
    expect(log.indexOf('start:a')).toBeLessThan(log.indexOf('send:last'))
    expect(texts(outcome.results)).toEqual(['done a', 'done x', 'done b'])
  })

  test('approvals are asked in model order, the first before the stream ends', async () => {
    const approval = new ScriptedApproval({ type: 'approve' })
    ctx.tools.approval(approval)
    ctx.on('tools/pre-execute', () => ({ type: 'ask', reason: 'check' }))
    const { outcome } = await turn(provider, [call('c1', 'probe', 'a'), call('c2', 'solo', 'x'), call('c3', 'probe', 'b')])
    expect(approval.requests.map((r) => r.exec.callId)).toEqual(['c1', 'c2', 'c3'])
    expect(log.indexOf('start:a')).toBeLessThan(log.indexOf('send:last'))
    expect(codes(outcome)).toEqual(['ok', 'ok', 'ok'])
  })

  test('a cut stream: the started call is cancelled (ABORTED), the incomplete one fails TRUNCATED_ARGUMENTS', async () => {
    const before = timers()
    // Call 1 holds until aborted; call 2's arguments never complete; the stream ends without a finish.
    const { outcome, order } = await turn(provider, [call('c1', 'probe', 'a', { hold: true }), call('c2', 'probe', 'b')], { cut: 1 })
    expect(outcome.parsed.status).toBe('truncated')
    expect(outcome.startedEarly).toBe(1)
    expect(outcome.calls.map((c) => c.callId)).toEqual(['c1', 'c2'])
    expect(codes(outcome)).toEqual(['ABORTED', 'TRUNCATED_ARGUMENTS'])
    expect(order).toEqual(['c1', 'c2'])
    expect(log).not.toContain('start:b')
    expect(timers()).toBeLessThanOrEqual(before)
  })

  test('an aborted stream: the started call is cancelled (ABORTED), the rest fail by the truncation rules, no listener stays', async () => {
    // The stream stops after call 2's first fragment and stays open; the caller aborts once all of it reached the consumer.
    const calls = [call('c1', 'probe', 'a', { hold: true }), call('c2', 'probe', 'b')]
    const { events } = script(provider, calls, 1)
    const before = timers()
    const { outcome, signal } = await turn(provider, calls, { cut: 1, abortAt: events.length, holdAt: -1 })
    expect(outcome.streamEnded).toBe(false)
    expect(outcome.streamError).toBeInstanceOf(Error)
    expect(outcome.parsed.status).toBe('truncated')
    expect(outcome.startedEarly).toBe(1)
    expect(outcome.calls.map((c) => c.callId)).toEqual(['c1', 'c2'])
    expect(codes(outcome)).toEqual(['ABORTED', 'TRUNCATED_ARGUMENTS'])
    expect(log).not.toContain('start:b')
    expect(timers()).toBeLessThanOrEqual(before)
    expect(getEventListeners(signal, 'abort')).toEqual([])
  })
})
