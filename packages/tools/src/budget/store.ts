/**
 * Where cut results keep their full text ({@link ResultStore}), and the in-memory default with
 * a byte cap and least-recently-used eviction ({@link createMemoryResultStore}).
 */
import { randomBytes } from 'node:crypto'

/** What a {@link ResultStore} keeps for one cut result. */
export interface ResultStoreEntry {
  /** The full model-facing text of the result: its text blocks joined with `\n`. */
  readonly text: string
  /** The call's id, for logs and UIs. */
  readonly callId: string
  /** The tool the call resolved to. */
  readonly toolName: string
}

/**
 * Keeps the full text of results a budget cut, under a handle the marker shows the model.
 * `put` is synchronous (the pipeline settles a result without waiting): a store shared between
 * processes (Redis, a database) returns its handle at once and writes in the background, and
 * `get` may then answer a promise. An application running several processes (or workers) must
 * give them one shared store, or a handle cut in one is unknown in another.
 */
export interface ResultStore {
  /** Stores `entry`; returns its handle (at most 64 characters of `[A-Za-z0-9_-]`). */
  put(entry: ResultStoreEntry): string
  /** The entry under `handle`, or `undefined` when it is unknown, evicted or expired. */
  get(handle: string): ResultStoreEntry | undefined | Promise<ResultStoreEntry | undefined>
  /** Forgets `handle` (no effect when unknown). */
  delete(handle: string): void | Promise<void>
}

/** Options of {@link createMemoryResultStore}. */
export interface MemoryResultStoreOptions {
  /**
   * Most bytes kept, counted as 2 per UTF-16 code unit of `text`; the least recently put or read
   * entries are evicted first. An entry larger than the cap alone is not kept (its handle is
   * unknown at once). A positive integer; default 67,108,864 (64 MiB).
   */
  readonly maxBytes?: number
  /** Entries older than this many ms (since `put`) are expired. A positive integer; default: none. */
  readonly ttlMs?: number
  /** The clock of `ttlMs`, in ms (default `Date.now`). */
  readonly now?: () => number
}

/** The in-memory store's extras beside {@link ResultStore}. */
export interface MemoryResultStore extends ResultStore {
  /** As {@link ResultStore.get}, synchronously (refreshes the entry's recency). */
  get(handle: string): ResultStoreEntry | undefined
  /** Bytes held now (2 per UTF-16 code unit). */
  readonly bytes: number
  /** Entries held now. */
  readonly size: number
}

/** Default byte cap of {@link createMemoryResultStore}: 64 MiB. */
export const DEFAULT_RESULT_STORE_BYTES = 67_108_864

interface Held {
  readonly entry: ResultStoreEntry
  readonly at: number
}

/**
 * An in-process {@link ResultStore}: a map in least-recently-used order, capped at `maxBytes`
 * (evicting from the least recently used), optionally expiring entries after `ttlMs`. Handles are
 * `res_` and 16 random hex digits, so a model cannot guess another conversation's handle.
 *
 * @throws RangeError naming the option (`maxBytes`, `ttlMs`) when it is not a positive integer.
 */
export function createMemoryResultStore(options: MemoryResultStoreOptions = {}): MemoryResultStore {
  const maxBytes = positive('maxBytes', options.maxBytes ?? DEFAULT_RESULT_STORE_BYTES)
  const ttlMs = options.ttlMs === undefined ? undefined : positive('ttlMs', options.ttlMs)
  const now = options.now ?? Date.now
  const held = new Map<string, Held>()
  let bytes = 0
  const drop = (handle: string): void => {
    const h = held.get(handle)
    if (h === undefined) return
    held.delete(handle)
    bytes -= h.entry.text.length * 2
  }
  return {
    put(entry) {
      const handle = `res_${randomBytes(8).toString('hex')}`
      const size = entry.text.length * 2
      if (size > maxBytes) return handle
      while (bytes + size > maxBytes) drop(held.keys().next().value!)
      held.set(handle, { entry: Object.freeze({ text: entry.text, callId: entry.callId, toolName: entry.toolName }), at: now() })
      bytes += size
      return handle
    },
    get(handle) {
      const h = held.get(handle)
      if (h === undefined) return undefined
      if (ttlMs !== undefined && now() - h.at > ttlMs) {
        drop(handle)
        return undefined
      }
      held.delete(handle)
      held.set(handle, h)
      return h.entry
    },
    delete: drop,
    get bytes() {
      return bytes
    },
    get size() {
      return held.size
    },
  }
}

function positive(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw new RangeError(`createMemoryResultStore: ${name} must be a positive integer, got ${typeof value === 'number' ? String(value) : typeof value}`)
  return value
}
