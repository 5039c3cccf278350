/**
 * The engine's per-sub-call calls into the sandbox through quickjs-emscripten's C interface
 * (`raw-calls.ts`): same results and exceptions as the public API (calls, pending jobs, a
 * promise's state), texts exact whatever they hold, nothing left allocated, and the public API
 * kept when the internals are not there.
 */
import { getQuickJS, type QuickJSContext, type QuickJSHandle } from 'quickjs-emscripten'
import { afterEach, describe, expect, it } from 'vitest'
import { rawCalls } from '../src/runtime/raw-calls'

// Texts cross as UTF-8 C strings, here as in the public API: no NUL and no lone surrogate (a
// sub-call's JSON text never holds either; JSON.stringify escapes both).
const TRICKY = ['😀 astral 𝄞', 'line\u2028separator\u2029', '12:34:5:{}', '', '"quoted" \\ back', 'x'.repeat(70_000)]

describe('rawCalls', () => {
  let ctx: QuickJSContext | undefined
  let fnHandle: QuickJSHandle | undefined
  afterEach(() => {
    if (fnHandle?.alive === true) fnHandle.dispose()
    if (ctx?.alive === true) ctx.dispose()
    ctx = undefined
    fnHandle = undefined
  })
  const setup = async (source: string): Promise<{ ctx: QuickJSContext; fn: QuickJSHandle }> => {
    ctx = (await getQuickJS()).newContext()
    fnHandle = ctx.unwrapResult(ctx.evalCode(source))
    return { ctx, fn: fnHandle }
  }

  it('calls fn(id, text) with the exact number and text', async () => {
    const { ctx, fn } = await setup('(function (id, text) { globalThis.seen = (globalThis.seen || []).concat([[typeof id, id, text]]) })')
    const raw = rawCalls(ctx)
    expect(raw).toBeDefined()
    TRICKY.forEach((text, i) => expect(raw?.callIdText(fn, i + 1, text)).toBeUndefined())
    const seen = ctx.unwrapResult(ctx.evalCode('seen'))
    expect(ctx.dump(seen)).toEqual(TRICKY.map((text, i) => ['number', i + 1, text]))
    seen.dispose()
    raw?.dispose()
    fn.dispose()
  })

  it('returns what fn() gives as text, `undefined` read as the word', async () => {
    const { ctx, fn } = await setup('(function () { return globalThis.next.shift() })')
    ctx.unwrapResult(ctx.evalCode(`globalThis.next = ${JSON.stringify(TRICKY)}.concat([undefined, 42])`)).dispose()
    const raw = rawCalls(ctx)
    const texts = [...TRICKY, 'undefined', '42'].map(() => raw?.callForText(fn))
    expect(texts).toEqual([...TRICKY, 'undefined', '42'].map((text) => ({ text })))
    raw?.dispose()
    fn.dispose()
  })

  it('returns an exception as a handle, as the public API does', async () => {
    const { ctx, fn } = await setup('(function (id, text) { throw new RangeError("bad " + id + " " + text) })')
    const raw = rawCalls(ctx)
    const error = raw?.callIdText(fn, 7, 'x')
    expect(error && ctx.dump(error)).toMatchObject({ name: 'RangeError', message: 'bad 7 x' })
    error?.dispose()
    const taken = raw?.callForText(fn)
    expect(taken !== undefined && 'error' in taken ? ctx.dump(taken.error) : taken).toMatchObject({ name: 'RangeError', message: 'bad undefined undefined' })
    if (taken !== undefined && 'error' in taken) taken.error.dispose()
    raw?.dispose()
    fn.dispose()
  })

  it('leaves no value behind: objects, strings and allocations are back to where they were after many calls', async () => {
    const { ctx, fn } = await setup('(function (id, text) { return { id, text } })')
    const raw = rawCalls(ctx)
    /** QuickJS's own counts (`JS_ComputeMemoryUsage`). */
    const usage = (): { obj_count: number; str_count: number; malloc_count: number } => {
      const handle = ctx.runtime.computeMemoryUsage()
      const counts = ctx.dump(handle) as { obj_count: number; str_count: number; malloc_count: number }
      handle.dispose()
      return counts
    }
    // One round first, so caches the calls fill once (atoms, shapes) are in the baseline.
    const pending = ctx.unwrapResult(ctx.evalCode('new Promise(() => {})'))
    const round = (i: number): void => {
      raw?.callIdText(fn, i, `reply ${i}`)
      raw?.callForText(fn)
      ctx.unwrapResult(ctx.evalCode('Promise.resolve().then(() => 1)')).dispose()
      raw?.runJobs()
      raw?.runJobs()
      raw?.isPending(pending)
    }
    round(0)
    const before = usage()
    for (let i = 1; i <= 2_000; i++) round(i)
    const after = usage()
    expect({ obj: after.obj_count, str: after.str_count, malloc: after.malloc_count }).toEqual({ obj: before.obj_count, str: before.str_count, malloc: before.malloc_count })
    pending.dispose()
    raw?.dispose()
    fn.dispose()
  })

  it('runs the pending jobs as executePendingJobs(-1) does: undefined when they ran, also when one was interrupted', async () => {
    const { ctx } = await setup('(function () {})')
    const raw = rawCalls(ctx)
    ctx.unwrapResult(ctx.evalCode('globalThis.order = []; Promise.resolve(1).then((x) => { order.push(x); return 2 }).then((y) => order.push(y))')).dispose()
    expect(ctx.runtime.hasPendingJob()).toBe(true)
    expect(raw?.runJobs()).toBeUndefined()
    expect(ctx.runtime.hasPendingJob()).toBe(false)
    const order = ctx.unwrapResult(ctx.evalCode('order'))
    expect(ctx.dump(order)).toEqual([1, 2])
    order.dispose()
    expect(raw?.runJobs()).toBeUndefined()
    // A job stopped by the interrupt handler: its promise rejects and the jobs still count as
    // run, through both.
    const interrupted = (run: () => QuickJSHandle | undefined): unknown => {
      ctx.unwrapResult(ctx.evalCode('globalThis.stopped = Promise.resolve().then(() => { for (;;) {} }).catch((e) => String(e))')).dispose()
      ctx.runtime.setInterruptHandler(() => true)
      const error = run()
      ctx.runtime.removeInterruptHandler()
      ctx.runtime.executePendingJobs(-1)
      const stopped = ctx.unwrapResult(ctx.evalCode('stopped'))
      const state = ctx.getPromiseState(stopped)
      const value = state.type === 'fulfilled' ? ctx.dump(state.value) : state.type
      if (state.type === 'fulfilled') state.value.dispose()
      stopped.dispose()
      error?.dispose()
      return { error: error === undefined ? undefined : 'error', value }
    }
    const viaRaw = interrupted(() => raw?.runJobs())
    expect(viaRaw).toEqual({ error: undefined, value: 'InternalError: interrupted' })
    expect(viaRaw).toEqual(interrupted(() => ctx.runtime.executePendingJobs(-1).error))
    raw?.dispose()
  })

  it('tells a pending promise as getPromiseState does', async () => {
    const { ctx } = await setup('(function () {})')
    const raw = rawCalls(ctx)
    for (const source of ['new Promise(() => {})', 'Promise.resolve(1)', 'Promise.reject(new Error("x")).catch(() => 0) && Promise.reject(2)', '({ then() {} })', '5']) {
      const value = ctx.unwrapResult(ctx.evalCode(source))
      const state = ctx.getPromiseState(value)
      expect(raw?.isPending(value)).toBe(state.type === 'pending')
      if (state.type === 'fulfilled' && state.value !== value) state.value.dispose()
      if (state.type === 'rejected') state.error.dispose()
      value.dispose()
    }
    ctx.unwrapResult(ctx.evalCode('0')).dispose()
    ctx.runtime.executePendingJobs(-1)
    raw?.dispose()
  })

  it('is undefined for a context without the expected internals', () => {
    const fake = { undefined: { value: 0 } } as unknown as QuickJSContext
    expect(rawCalls(fake)).toBeUndefined()
    const noMemory = { undefined: { value: 0 }, ffi: {}, module: {}, ctx: { value: 1 } } as unknown as QuickJSContext
    expect(rawCalls(noMemory)).toBeUndefined()
  })
})
