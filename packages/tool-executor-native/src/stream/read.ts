/**
 * Reads a stream chunk by chunk until it ends or a signal aborts: an abort stops the read at once,
 * even while the stream is waiting for its next chunk (the stream's `return()` is called, not
 * awaited: an SDK stream closes its connection then).
 */

/** How a read ended. */
export type ReadEnd = 'ended' | 'aborted'

/**
 * Calls `each` with every chunk of `stream` in order. Resolves `ended` at the stream's end and
 * `aborted` as soon as `signal` aborts; rejects with what the stream (or `each`) throws, after
 * calling the stream's `return()`. Leaves no listener on `signal`.
 */
export async function readStream<T>(stream: AsyncIterable<T> | Iterable<T>, signal: AbortSignal, each: (chunk: T) => void): Promise<ReadEnd> {
  const iterator: AsyncIterator<T> | Iterator<T> = Symbol.asyncIterator in stream ? (stream as AsyncIterable<T>)[Symbol.asyncIterator]() : (stream as Iterable<T>)[Symbol.iterator]()
  const close = (): void => {
    try {
      void Promise.resolve(iterator.return?.()).catch(() => undefined)
    } catch {
      // A `return()` that throws: the stream is abandoned either way.
    }
  }
  let onAbort = (): void => undefined
  const aborted = new Promise<'aborted'>((resolve) => {
    onAbort = () => resolve('aborted')
  })
  if (signal.aborted) onAbort()
  else signal.addEventListener('abort', onAbort, { once: true })
  try {
    for (;;) {
      const next = Promise.resolve(iterator.next())
      const step = await Promise.race([next, aborted])
      if (step === 'aborted') {
        next.catch(() => undefined)
        close()
        return 'aborted'
      }
      if (step.done === true) return 'ended'
      try {
        each(step.value)
      } catch (error) {
        close()
        throw error
      }
    }
  } finally {
    signal.removeEventListener('abort', onAbort)
  }
}
