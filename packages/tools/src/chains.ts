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

/**
 * One run of a chain: the listeners, the innermost step, and the promise `next()` last handed out
 * for a value the chain already knows (one object per run; each listener level adds only its
 * `next` function).
 */
class Chain {
  /** The promise last handed out by `next()` for a known value, and that value. */
  knownPromise: Promise<unknown> | undefined = undefined
  knownValue: unknown = undefined

  constructor(
    readonly listeners: readonly Listener[],
    /** The first argument of every listener (`exec`). */
    readonly first: unknown,
    /** The second argument before `next` (`tools/post-execute`'s draft), or `NO_SECOND`. */
    readonly second: unknown,
    /** The innermost value (`runOnce`) and its shared resolved promise (`undefined` for `runRepeatable`). */
    readonly inner: unknown,
    readonly innerPromise: Promise<unknown> | undefined,
    /** The innermost step of `runRepeatable` (the body). */
    readonly body: (() => unknown) | undefined,
  ) {}

  /** A promise of `value`, remembered so a listener returning it resolves without a microtask. */
  promiseOf(value: unknown): Promise<unknown> {
    if (this.innerPromise !== undefined && value === this.inner) return this.innerPromise
    const promise = Promise.resolve(value)
    this.knownPromise = promise
    this.knownValue = value
    return promise
  }

  /** Resolves a listener's return value: the known value behind a handed-out promise, a plain value, or the thenable itself. */
  settle(returned: unknown): unknown {
    if (returned === this.innerPromise && returned !== undefined) return this.inner
    if (returned === this.knownPromise && returned !== undefined) return this.knownValue
    return returned
  }

  call(listener: Listener, next: () => Promise<unknown>): unknown {
    const l = listener as (...a: unknown[]) => unknown
    return this.settle(this.second === NO_SECOND ? l(this.first, next) : l(this.first, this.second, next))
  }

  /** Level `i` of a chain whose `next()` may be called once. */
  once(i: number): unknown {
    const listener = this.listeners[i]
    if (listener === undefined) return this.inner
    let called = false
    return this.call(listener, () => {
      if (called) throw new Error('next() called multiple times')
      called = true
      let out: unknown
      try {
        out = this.once(i + 1)
      } catch (error) {
        return Promise.reject(error)
      }
      return isThenable(out) ? Promise.resolve(out) : this.promiseOf(out)
    })
  }

  /** Level `i` of the `tools/execute` chain, whose `next()` may be called again once the previous attempt settled. */
  repeatable(i: number): unknown {
    const listener = this.listeners[i]
    if (listener === undefined) return this.body!()
    let running = false
    return this.call(listener, () => {
      if (running) return Promise.reject(new Error('next() called while the previous attempt is still running'))
      running = true
      let out: unknown
      try {
        out = this.repeatable(i + 1)
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
      return this.promiseOf(out)
    })
  }
}

/**
 * A stage around a {@link runOnce} chain: `answered(state, run, decision)` gets the chain's
 * decision — at once when no listener waited, else when its promise settles — and
 * `failed(state, run, error)` a listener's synchronous throw or rejection. Used by stage 2
 * (`tools/pre-execute`) and stage 4 (`tools/post-execute`) of the pipeline. `first` and
 * `second` are the listeners' arguments before `next`, as {@link runOnce} takes them.
 *
 * @returns what `answered` returns when the chain was synchronous (`undefined` after `failed`),
 *   else a promise of the stage's end. Never throws or rejects unless `answered` or `failed` do.
 */
export function runOnceStage<S, R>(
  listeners: readonly Listener[],
  first: unknown,
  second: unknown,
  inner: unknown,
  innerPromise: Promise<unknown>,
  state: S,
  run: R,
  answered: (state: S, run: R, decision: unknown) => void | Promise<void>,
  failed: (state: S, run: R, error: unknown) => void,
): void | Promise<void> {
  let raw: unknown
  try {
    raw = runOnce(listeners, first, second, inner, innerPromise)
  } catch (error) {
    failed(state, run, error)
    return
  }
  if (!isThenable(raw)) return answered(state, run, raw)
  return Promise.resolve(raw).then(
    (decision) => answered(state, run, decision),
    (error: unknown) => failed(state, run, error),
  )
}

/** The `second` argument of {@link runOnce} and {@link runOnceStage} for listeners called `(first, next)`. */
export const NO_SECOND: unique symbol = Symbol('no second argument')

/**
 * Runs a chain where each listener's `next()` may be called once (`tools/pre-execute` with
 * `(exec, next)`: `second` is {@link NO_SECOND}; `tools/post-execute` with `(exec, draft, next)`).
 * The arguments are passed one by one, not as an array (no array per call). The innermost step
 * is the value `inner`; `innerPromise` is a shared, already resolved promise of it.
 *
 * @returns the decision, synchronously when every step was synchronous, else a thenable.
 * @throws whatever the first listener throws synchronously (callers treat it as a rejection).
 */
export function runOnce(listeners: readonly Listener[], first: unknown, second: unknown, inner: unknown, innerPromise: Promise<unknown>): unknown {
  return new Chain(listeners, first, second, inner, innerPromise, undefined).once(0)
}

/**
 * Runs the `tools/execute` chain: `next()` may be called again once the previous attempt settled
 * (retries). `body` returns the body's value or a thenable, and may throw.
 *
 * @returns the value, synchronously when every step was synchronous, else a thenable.
 * @throws whatever the first step throws synchronously (callers treat it as a rejection).
 */
export function runRepeatable(listeners: readonly Listener[], exec: unknown, body: () => unknown): unknown {
  return new Chain(listeners, exec, NO_SECOND, undefined, undefined, body).repeatable(0)
}
