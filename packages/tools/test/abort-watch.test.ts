/**
 * The batch runner reads the caller's `aborted` state from a field kept by one `abort` listener
 * while a batch runs (`src/abort-watch.ts`): the outcomes must be those of reading
 * `signal.aborted` at each check, and the listener must be gone once the batch has its results.
 */
import { afterEach, describe, expect, test } from 'vitest'
import { defineTool, type RawToolCall } from '@deepseek-ai/dsh-tools'
import { abortListenerCount, call, createHarness, type Harness } from '@deepseek-ai/dsh-tool-testkit'
import { AbortWatch } from '../src/abort-watch'

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
  /** A sequential tool whose body aborts the caller's controller on the call named `abortAt`. */
  function deploy(controller: AbortController, abortAt: number): Promise<Harness> {
    return createHarness().then((harness) => {
      harness.ctx.tools.register(
        defineTool({
          name: 'step',
          description: 'Returns its index; one call aborts the caller.',
          parameters: { i: { type: 'integer' } },
          output: { schema: { type: 'integer' }, render: (_args, value) => [{ type: 'text', text: String(value) }] },
          execute(args) {
            if (args.i === abortAt) controller.abort(new Error('caller stopped'))
            return args.i
          },
        }),
      )
      return harness
    })
  }

  test('a body that aborts synchronously: its call is ABORTED, the later ones ABORTED_BEFORE_DISPATCH, and no listener stays', async () => {
    const controller = new AbortController()
    h = await deploy(controller, 2)
    const results = await h.execute(
      [0, 1, 2, 3, 4].map((i) => call('step', { i }, `c${i}`)),
      { signal: controller.signal },
    )
    expect(results.map((r) => (r.isError ? r.error.info?.code : r.value))).toEqual([0, 1, 'ABORTED', 'ABORTED_BEFORE_DISPATCH', 'ABORTED_BEFORE_DISPATCH'])
    expect(abortListenerCount(controller.signal)).toBe(0)
  })

  test('the same caller signal over many batches keeps no listener between them', async () => {
    const controller = new AbortController()
    h = await deploy(controller, -1)
    for (let b = 0; b < 20; b++) {
      const results = await h.execute([call('step', { i: b }, `b${b}`)], { signal: controller.signal })
      expect(results[0]!.isError).toBe(false)
      expect(abortListenerCount(controller.signal)).toBe(0)
    }
    controller.abort()
    const [late] = await h.execute([call('step', { i: 1 }, 'late')], { signal: controller.signal })
    expect(late!.isError && late!.error.info?.code).toBe('ABORTED_BEFORE_DISPATCH')
    expect(abortListenerCount(controller.signal)).toBe(0)
  })

  test('a calls array whose reading throws rejects the batch and leaves no listener', async () => {
    const controller = new AbortController()
    h = await deploy(controller, -1)
    const calls: RawToolCall[] = [call('step', { i: 0 }, 'c0'), call('step', { i: 1 }, 'c1')]
    Object.defineProperty(calls, 1, {
      get() {
        throw new Error('unreadable entry')
      },
    })
    await expect(h.execute(calls, { signal: controller.signal })).rejects.toThrow('unreadable entry')
    expect(abortListenerCount(controller.signal)).toBe(0)
  })
})
