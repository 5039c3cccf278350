/**
 * Leak checks (docs/design.md, "Reliability"; bug case B06, a timeout timer
 * never cleared that kept a process alive): count the timers and handles a process holds,
 * the abort listeners left on a signal, and the promises a piece of work leaves pending.
 */
import { getEventListeners } from 'node:events'
import { AsyncLocalStorage } from 'node:async_hooks'
import { promiseHooks, setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/**
 * The process's active resources by type (`Timeout`, `Immediate`, `TCPWrap`, …), from
 * `process.getActiveResourcesInfo()`.
 *
 * @example
 * const before = activeResources()
 * await runManyCalls()
 * resourceGrowth(before, activeResources()) // {} when nothing leaked
 */
export function activeResources(): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const type of process.getActiveResourcesInfo()) counts[type] = (counts[type] ?? 0) + 1
  return counts
}

/**
 * The resource types that grew from `before` to `after`, with how many more there are. Empty when none grew.
 *
 * @example resourceGrowth({ Timeout: 2 }, { Timeout: 3, TTYWrap: 1 }) // { Timeout: 1, TTYWrap: 1 }
 */
export function resourceGrowth(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const growth: Record<string, number> = {}
  for (const [type, n] of Object.entries(after)) {
    const delta = n - (before[type] ?? 0)
    if (delta > 0) growth[type] = delta
  }
  return growth
}

/**
 * How many `abort` listeners are registered on `signal` (through `addEventListener`), from
 * `events.getEventListeners`. Signals derived with `AbortSignal.any` are tracked by Node
 * internally, not as listeners, and are not counted.
 *
 * @example abortListenerCount(controller.signal) // 0 after the batch settled
 */
export function abortListenerCount(signal: AbortSignal): number {
  return getEventListeners(signal, 'abort').length
}

/** What {@link trackPromises} found. */
export interface PromiseReport<T> {
  /** What `run` resolved with. */
  readonly value: T
  /** Promises created while `run` ran. */
  readonly created: number
  /**
   * Of those, how many were still pending once `run` settled and one event-loop turn passed,
   * and are still reachable after a full garbage collection: something still holds them (a
   * waiter in a map, a listener that will never fire), so they are a leak. A pending promise
   * nothing references any more is collected and not counted.
   */
  readonly pending: number
  /** Pending promises before the collection, reachable or not (an upper bound of `pending`). */
  readonly pendingBeforeGc: number
  /** Whether a full collection could be forced (else `pending` equals `pendingBeforeGc`). */
  readonly gcForced: boolean
}

let forcedGc: (() => void) | null | undefined

/** A function forcing a full garbage collection, or `null` when the runtime refuses. */
function gcFunction(): (() => void) | null {
  if (forcedGc !== undefined) return forcedGc
  const exposed = (globalThis as { gc?: () => void }).gc
  if (typeof exposed === 'function') return (forcedGc = exposed)
  try {
    setFlagsFromString('--expose-gc')
    const fn = runInNewContext('gc') as unknown
    forcedGc = typeof fn === 'function' ? (fn as () => void) : null
  } catch {
    forcedGc = null
  }
  return forcedGc
}

/**
 * Runs `run` with V8 promise hooks on and reports how many promises it created and how many
 * of them it leaked: still pending after it settled and still reachable after a forced full
 * garbage collection (a hung waiter, an orphaned body, a listener that will never fire). Only
 * promises created by `run` and what it started are counted (an `AsyncLocalStorage` scope
 * tells them from a test runner's own traffic), the tracker holds them weakly, and it waits
 * for `run` through callbacks, so it adds no pending promise of its own. Promise hooks are
 * process-wide: do not run other tracked work concurrently.
 *
 * @throws what `run` threw or rejected with.
 *
 * @example
 * const { pending } = await trackPromises(() => h.execute(calls('echo', 1000)))
 * // pending === 0
 */
export function trackPromises<T>(run: () => Promise<T>): Promise<PromiseReport<T>> {
  const gc = gcFunction()
  return new Promise<PromiseReport<T>>((resolve, reject) => {
    // Start on the next turn, so the caller's own `await` on this promise is not counted.
    setImmediate(() => {
      const ids = new WeakMap<Promise<unknown>, number>()
      const refs = new Map<number, WeakRef<Promise<unknown>>>()
      let created = 0
      const scope = new AsyncLocalStorage<symbol>()
      const token = Symbol('trackPromises')
      const stop = promiseHooks.createHook({
        init(promise) {
          // Only promises created by `run` (and what it started): not a test runner's own traffic.
          if (scope.getStore() !== token) return
          const id = created++
          ids.set(promise, id)
          refs.set(id, new WeakRef(promise))
        },
        settled(promise) {
          const id = ids.get(promise)
          if (id !== undefined) refs.delete(id)
        },
      })
      let outcome: { ok: true; value: T } | { ok: false; error: unknown } | undefined
      const finish = (): void => {
        stop()
        if (outcome?.ok !== true) {
          reject(outcome?.error)
          return
        }
        const pendingBeforeGc = refs.size
        const value = outcome.value
        // Collect on a later turn: WeakRef targets stay alive until the end of the job that made them.
        setImmediate(() => {
          gc?.()
          let pending = 0
          for (const ref of refs.values()) if (ref.deref() !== undefined) pending++
          resolve({ value, created, pending, pendingBeforeGc, gcForced: gc !== null })
        })
      }
      let running: Promise<T>
      try {
        running = scope.run(token, run)
      } catch (error) {
        stop()
        reject(error)
        return
      }
      running.then(
        (value) => {
          outcome = { ok: true, value }
          setImmediate(finish)
        },
        (error: unknown) => {
          outcome = { ok: false, error }
          setImmediate(finish)
        },
      )
    })
  })
}
