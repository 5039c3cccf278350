/**
 * Koa-style listener chains that stay synchronous when nothing in them is asynchronous.
 *
 * Listeners receive `next: () => Promise<T>` (the typed contract of `tools/pre-execute`,
 * `tools/execute` and `tools/post-execute`), so `next()` always hands out a real promise. When
 * the value behind that promise is already known — the inner step returned synchronously — the
 * chain remembers the promise it handed out; a listener that returns that very promise (the
 * common `(exec, next) => next()`), or a plain value, is then resolved without waiting a
 * microtask. Only a listener that returns some other thenable makes the chain asynchronous.
 * This is what lets a batch of synchronous tools run its stages without a promise per stage
 * (docs/benchmarks.md, "Optimisations").
 *
 * The outcome is the same as awaiting every step: `next()` rejects (never throws) when the inner
 * step throws, a second `next()` is an error, and a rejection propagates to the caller.
 */

/** A listener as stored by cordis (called with the chain's arguments and `next`). */
export type Listener = (...args: never[]) => unknown

/** Whether `value` is a thenable (a promise or promise-like). */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function'
}

/** A promise handed out by `next()` whose value the chain already knows. */
interface Known {
  promise: Promise<unknown> | undefined
  value: unknown
}

function knownPromise(known: Known, value: unknown, shared: Promise<unknown> | undefined, sharedValue: unknown): Promise<unknown> {
  if (shared !== undefined && value === sharedValue) return shared
  const promise = Promise.resolve(value)
  known.promise = promise
  known.value = value
  return promise
}

/** Resolves a listener's return value: the known value behind a handed-out promise, a plain value, or the thenable itself. */
function settle(known: Known, returned: unknown, shared: Promise<unknown> | undefined, sharedValue: unknown): unknown {
  if (returned === shared && shared !== undefined) return sharedValue
  if (returned === known.promise && known.promise !== undefined) return known.value
  return returned
}

/**
 * Runs a chain where each listener's `next()` may be called once (`tools/pre-execute`,
 * `tools/post-execute`). The innermost step is the value `inner`; `innerPromise` is a shared,
 * already resolved promise of it.
 *
 * @returns the decision, synchronously when every step was synchronous, else a thenable.
 * @throws whatever the first listener throws synchronously (callers treat it as a rejection).
 */
export function runOnce(listeners: readonly Listener[], args: readonly unknown[], inner: unknown, innerPromise: Promise<unknown>): unknown {
  const known: Known = { promise: undefined, value: undefined }
  const step = (i: number): unknown => {
    const listener = listeners[i]
    if (listener === undefined) return inner
    let called = false
    const next = (): Promise<unknown> => {
      if (called) throw new Error('next() called multiple times')
      called = true
      let out: unknown
      try {
        out = step(i + 1)
      } catch (error) {
        return Promise.reject(error)
      }
      return isThenable(out) ? Promise.resolve(out) : knownPromise(known, out, innerPromise, inner)
    }
    return settle(known, (listener as (...a: unknown[]) => unknown)(...args, next), innerPromise, inner)
  }
  return step(0)
}

/**
 * Runs the `tools/execute` chain: `next()` may be called again once the previous attempt settled
 * (retries). `body` returns the body's value or a thenable, and may throw.
 *
 * @returns the value, synchronously when every step was synchronous, else a thenable.
 * @throws whatever the first step throws synchronously (callers treat it as a rejection).
 */
export function runRepeatable(listeners: readonly Listener[], exec: unknown, body: () => unknown): unknown {
  const known: Known = { promise: undefined, value: undefined }
  const step = (i: number): unknown => {
    const listener = listeners[i]
    if (listener === undefined) return body()
    let running = false
    const next = (): Promise<unknown> => {
      if (running) return Promise.reject(new Error('next() called while the previous attempt is still running'))
      running = true
      let out: unknown
      try {
        out = step(i + 1)
      } catch (error) {
        running = false
        return Promise.reject(error)
      }
      if (isThenable(out)) {
        return Promise.resolve(out).finally(() => {
          running = false
        })
      }
      running = false
      return knownPromise(known, out, undefined, undefined)
    }
    return settle(known, (listener as (e: unknown, n: () => Promise<unknown>) => unknown)(exec, next), undefined, undefined)
  }
  return step(0)
}
