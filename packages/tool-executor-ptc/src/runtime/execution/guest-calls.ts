/**
 * Calls into the sandbox that a run (`run.ts`) makes through the public QuickJS API: a
 * prelude-made function called with a call id, or for a text result (a description, the
 * serialized return value, an unhandled rejection), and a rejection turned into a guest object.
 * Each takes the run's context; none keeps state.
 */
import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten'
import type { GuestRejection } from '../host-call'
import type { RawCalls, RawText } from '../raw-calls'

/** The value of a call's result, or an `Error` naming `what` with the dumped guest exception. */
export function unwrap(
  ctx: QuickJSContext | undefined,
  result: { value: QuickJSHandle; error?: undefined } | { error: QuickJSHandle; value?: undefined },
  what: string,
): QuickJSHandle {
  if (result.error !== undefined) {
    const text = ctx?.dump(result.error)
    result.error.dispose()
    throw new Error(`${what} failed: ${JSON.stringify(text)}`)
  }
  return result.value
}

/**
 * `fn()` in the sandbox, its result read as text (`String(result)`), or the exception it threw;
 * through the C interface when `raw` is there (`raw-calls.ts`).
 */
export function callForText(ctx: QuickJSContext, raw: RawCalls | undefined, fn: QuickJSHandle): RawText {
  if (raw !== undefined) return raw.callForText(fn)
  const called = ctx.callFunction(fn, ctx.undefined)
  if (called.error !== undefined) return { error: called.error }
  const text = ctx.getString(called.value)
  called.value.dispose()
  return { text }
}

/** `fn(id, arg)` through the public API, disposing `arg`; the exception it threw, if any. */
export function callWithId(ctx: QuickJSContext, fn: QuickJSHandle, id: number, arg: QuickJSHandle): QuickJSHandle | undefined {
  const idHandle = ctx.newNumber(id)
  const called = ctx.callFunction(fn, ctx.undefined, idHandle, arg)
  idHandle.dispose()
  arg.dispose()
  if (called.error !== undefined) return called.error
  called.value.dispose()
  return undefined
}

/** A new guest object with the string fields of `rejection` (the prelude's `refuse` argument). */
export function rejectionHandle(ctx: QuickJSContext, rejection: GuestRejection): QuickJSHandle {
  const obj = ctx.newObject()
  for (const [key, value] of Object.entries(rejection)) {
    if (typeof value !== 'string') continue
    const h = ctx.newString(value)
    ctx.setProp(obj, key, h)
    h.dispose()
  }
  return obj
}

/**
 * The prelude's `describe(error)`: one line for a thrown guest value; `Uncaught exception (it
 * could not be described)` when describing threw, `Uncaught exception` for a non-string answer.
 */
export function describeGuest(ctx: QuickJSContext, describeFn: QuickJSHandle, errorHandle: QuickJSHandle): string {
  const described = ctx.callFunction(describeFn, ctx.undefined, errorHandle)
  if (described.error !== undefined) {
    described.error.dispose()
    return 'Uncaught exception (it could not be described)'
  }
  const text = ctx.typeof(described.value) === 'string' ? ctx.getString(described.value) : 'Uncaught exception'
  described.value.dispose()
  return text
}

/** `fn(arg)` in the sandbox: its result when it is a string (else `text` is `undefined`), or the exception it threw. */
export function callForString(ctx: QuickJSContext, fn: QuickJSHandle, arg: QuickJSHandle): { readonly text: string | undefined } | { readonly error: QuickJSHandle } {
  const called = ctx.callFunction(fn, ctx.undefined, arg)
  if (called.error !== undefined) return { error: called.error }
  const text = ctx.typeof(called.value) === 'string' ? ctx.getString(called.value) : undefined
  called.value.dispose()
  return { text }
}

/**
 * The prelude's `serialize(value)`: the return value's JSON text (`json`), its length in
 * characters when it is over the output budget (`chars`), neither when there is nothing to
 * return; or the exception it threw.
 */
export function callSerialize(ctx: QuickJSContext, serializeFn: QuickJSHandle, value: QuickJSHandle): { readonly json?: string; readonly chars?: number } | { readonly error: QuickJSHandle } {
  const serialized = ctx.callFunction(serializeFn, ctx.undefined, value)
  if (serialized.error !== undefined) return { error: serialized.error }
  const type = ctx.typeof(serialized.value)
  const out = type === 'string' ? { json: ctx.getString(serialized.value) } : type === 'number' ? { chars: ctx.getNumber(serialized.value) } : {}
  serialized.value.dispose()
  return out
}
