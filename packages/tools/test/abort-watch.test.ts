/**
 * The batch runner reads the caller's `aborted` state from a field kept by one `abort` listener
 * while a batch runs (`src/abort-watch.ts`): the outcomes must be those of reading
 * `signal.aborted` at each check, and the listener must be gone once the batch has its results.
 */
import { afterEach, describe, expect, test } from 'vitest'
import { defineTool, type RawToolCall, type ToolResult } from '@deepseek-ai/dsh-tools'
import { abortListenerCount, call, createHarness, type Harness } from '@deepseek-ai/dsh-tool-testkit'
import { AbortWatch, ownBatchSignal, WATCH_MIN_CALLS } from '../src/abort-watch'

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

describe('AbortWatch', () => {
  test('mirrors the signal while watching, with one listener; reads the signal itself when not', () => {
    const controller = new AbortController()
    const watch = new AbortWatch(controller.signal)
    expect(watch.isAborted).toBe(false)
    expect(abortListenerCount(controller.signal)).toBe(0)
    watch.watch()
    watch.watch()
    expect(abortListenerCount(controller.signal)).toBe(1)
    expect(watch.isAborted).toBe(false)
    let seenInListener: boolean | undefined
    // A listener added after the watch's runs after it: the field is already set.
    controller.signal.addEventListener('abort', () => (seenInListener = watch.isAborted), { once: true })
    controller.abort(new Error('stop'))
    expect(seenInListener).toBe(true)
    expect(watch.isAborted).toBe(true)
    watch.unwatch()
    watch.unwatch()
    expect(abortListenerCount(controller.signal)).toBe(0)
    expect(watch.isAborted).toBe(true)
  })

  test('an already aborted signal is read once and gets no listener', () => {
    const controller = new AbortController()
    controller.abort()
    const watch = new AbortWatch(controller.signal)
    watch.watch()
    expect(watch.isAborted).toBe(true)
    expect(abortListenerCount(controller.signal)).toBe(0)
    watch.unwatch()
  })

  test("the registry's own signal for a large batch is watched without a listener", () => {
    const signal = ownBatchSignal()
    const watch = new AbortWatch(signal)
    watch.watch()
    expect(watch.isAborted).toBe(false)
    expect(abortListenerCount(signal)).toBe(0)
    watch.unwatch()
    expect(abortListenerCount(signal)).toBe(0)
  })

  test('unwatched, a later abort is seen through the signal', () => {
    const controller = new AbortController()
    const watch = new AbortWatch(controller.signal)
    watch.watch()
    watch.unwatch()
    controller.abort()
    expect(watch.isAborted).toBe(true)
  })
})

describe('a batch with the watch', () => {
  const abortListeners: number[] = []
  /** A sequential tool whose body aborts the caller's controller on the call with `i === abortAt`, and records the listeners on the caller's signal. */
  function deploy(controller: AbortController, abortAt: number): Promise<Harness> {
    return createHarness().then((harness) => {
      harness.ctx.tools.register(
        defineTool({
          name: 'step',
          description: 'Returns its index; one call aborts the caller.',
          parameters: { i: { type: 'integer' } },
          output: { schema: { type: 'integer' }, render: (_args, value) => [{ type: 'text', text: String(value) }] },
          execute(args) {
            abortListeners.push(abortListenerCount(controller.signal))
            if (args.i === abortAt) controller.abort(new Error('caller stopped'))
            return args.i ?? -1
          },
        }),
      )
      return harness
    })
  }

  const codes = (results: readonly ToolResult[]): (string | number | undefined)[] => results.map((r) => (r.isError ? r.error.info?.code : (r.value as number)))

  test.each([
    ['watched', WATCH_MIN_CALLS + 8, 1],
    ['not watched', WATCH_MIN_CALLS - 1, 0],
  ])('%s (%i calls): the aborting body\'s call is ABORTED, the later ones ABORTED_BEFORE_DISPATCH; no listener stays', async (_kind, n, listening) => {
    abortListeners.length = 0
    const controller = new AbortController()
    h = await deploy(controller, 2)
    const results = await h.execute(
      Array.from({ length: n }, (_, i) => call('step', { i }, `c${i}`)),
      { signal: controller.signal },
    )
    expect(codes(results)).toEqual([0, 1, 'ABORTED', ...Array.from({ length: n - 3 }, () => 'ABORTED_BEFORE_DISPATCH')])
    // While it ran, the batch held its one listener (watched) or none.
    expect(abortListeners).toEqual([listening, listening, listening])
    expect(abortListenerCount(controller.signal)).toBe(0)
  })

  test('the same caller signal over many large batches keeps no listener between them', async () => {
    const controller = new AbortController()
    h = await deploy(controller, -1)
    const batch = (tag: string): RawToolCall[] => Array.from({ length: WATCH_MIN_CALLS }, (_, i) => call('step', { i }, `${tag}${i}`))
    for (let b = 0; b < 10; b++) {
      const results = await h.execute(batch(`b${b}-`), { signal: controller.signal })
      expect(codes(results)).toEqual(Array.from({ length: WATCH_MIN_CALLS }, (_, i) => i))
      expect(abortListenerCount(controller.signal)).toBe(0)
    }
    controller.abort()
    const late = await h.execute(batch('late-'), { signal: controller.signal })
    expect(codes(late)).toEqual(Array.from({ length: WATCH_MIN_CALLS }, () => 'ABORTED_BEFORE_DISPATCH'))
    expect(abortListenerCount(controller.signal)).toBe(0)
  })

  test.each([WATCH_MIN_CALLS, 3])('a batch of %i calls without a caller signal: bodies see a fresh signal with no listener on it', async (n) => {
    h = await createHarness()
    const seen: { listeners: number; signal: AbortSignal }[] = []
    h.ctx.tools.register(
      defineTool({
        name: 'look',
        description: 'Counts the listeners on its signal.',
        parameters: {},
        output: { schema: { type: 'integer' }, render: (_args, value) => [{ type: 'text', text: String(value) }] },
        execute(_args, exec) {
          seen.push({ listeners: abortListenerCount(exec.signal), signal: exec.signal })
          return seen.length
        },
      }),
    )
    await h.execute(Array.from({ length: n }, (_, i) => call('look', {}, `l${i}`)))
    await h.execute([call('look', {}, 'next')])
    expect(seen.slice(0, n).map((s) => s.listeners)).toEqual(Array.from({ length: n }, () => 0))
    expect(new Set(seen.slice(0, n).map((s) => s.signal)).size).toBe(1)
    expect(seen[n]!.signal).not.toBe(seen[0]!.signal)
    expect(seen.every((s) => !s.signal.aborted)).toBe(true)
  })

  test('a calls array whose reading throws rejects the batch and leaves no listener', async () => {
    const controller = new AbortController()
    h = await deploy(controller, -1)
    const calls: RawToolCall[] = Array.from({ length: WATCH_MIN_CALLS }, (_, i) => call('step', { i }, `c${i}`))
    Object.defineProperty(calls, 1, {
      get() {
        throw new Error('unreadable entry')
      },
    })
    await expect(h.execute(calls, { signal: controller.signal })).rejects.toThrow('unreadable entry')
    expect(abortListenerCount(controller.signal)).toBe(0)
  })
})
