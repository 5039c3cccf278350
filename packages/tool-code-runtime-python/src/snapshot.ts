/**
 * The Pyodide memory snapshot workers start from: one per process in shared memory, cached across
 * processes in a directory keyed by the Pyodide version, the preloaded modules and the prelude
 * (`SnapshotStore`, `snapshotFileName`).
 */
import { createHash } from 'node:crypto'
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readdirSync, readSync, renameSync, unlinkSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, dirname, join } from 'node:path'
import { PY_PRELUDE } from './prelude'
import { PRELOADED_MODULES } from './worker'

const require = createRequire(import.meta.url)

/**
 * The process-wide memory snapshot (shared by every runtime of the process), in a
 * `SharedArrayBuffer`: every worker reads the same bytes, nothing is copied per worker.
 */
let processSnapshot: Uint8Array | undefined

/** `bytes` copied into shared memory. */
function shared(bytes: Uint8Array): Uint8Array {
  const view = new Uint8Array(new SharedArrayBuffer(bytes.byteLength))
  view.set(bytes)
  return view
}

/** A file read straight into shared memory (one copy, no intermediate buffer). */
function readShared(file: string): Uint8Array {
  const fd = openSync(file, 'r')
  try {
    const size = fstatSync(fd).size
    const view = new Uint8Array(new SharedArrayBuffer(size))
    for (let at = 0; at < size; ) {
      const n = readSync(fd, view, at, size - at, at)
      if (n === 0) throw new Error(`${file} ended after ${at} of ${size} bytes`)
      at += n
    }
    return view
  } finally {
    closeSync(fd)
  }
}

/** Where snapshots come from and go to. */
export class SnapshotStore {
  private readonly file: string | undefined
  private source: 'none' | 'memory' | 'cache' = 'none'

  constructor(cache: string | false | undefined) {
    const dir = cache === undefined ? (existsSync(join(process.cwd(), 'node_modules')) ? join(process.cwd(), 'node_modules', '.cache', 'dsh-code-runtime-python') : undefined) : cache === false ? undefined : cache
    this.file = dir === undefined ? undefined : join(dir, snapshotFileName())
  }

  kind(): 'none' | 'memory' | 'cache' {
    return this.source
  }

  get(): Uint8Array | undefined {
    if (processSnapshot !== undefined) {
      if (this.source === 'none') this.source = 'memory'
      return processSnapshot
    }
    if (this.file !== undefined && existsSync(this.file)) {
      try {
        processSnapshot = readShared(this.file)
        this.source = 'cache'
        return processSnapshot
      } catch {
        return undefined
      }
    }
    return undefined
  }

  put(snapshot: Uint8Array): void {
    processSnapshot = shared(snapshot)
    if (this.file === undefined) return
    try {
      const dir = dirname(this.file)
      mkdirSync(dir, { recursive: true })
      const tmp = `${this.file}.${process.pid}.tmp`
      writeFileSync(tmp, snapshot, { mode: 0o600 })
      renameSync(tmp, this.file)
      // Snapshots of other Pyodide versions or preludes (~30 MB each) are of no further use.
      const own = basename(this.file)
      for (const name of readdirSync(dir)) if (/^pyodide-[0-9a-f]{16}\.snap$/.test(name) && name !== own) unlinkSync(join(dir, name))
    } catch {
      // The cache is an optimisation: a read-only directory only costs the next process a full boot.
    }
  }

  /** Drops `snapshot` (it failed to load) from memory and from the cache; false when it is no longer the current one. */
  reject(snapshot: Uint8Array): boolean {
    if (processSnapshot !== snapshot) return false
    processSnapshot = undefined
    this.source = 'none'
    if (this.file !== undefined) {
      try {
        unlinkSync(this.file)
      } catch {
        // Already gone, or a read-only cache: the file would fail the same way next time, and be dropped again.
      }
    }
    return true
  }
}

/** The file name of this build's snapshot in a cache directory (`pyodide-<key>.snap`). */
export function snapshotFileName(): string {
  return `pyodide-${snapshotKey()}.snap`
}

/** Identifies a snapshot: the Pyodide version, the preloaded modules and the prelude evaluated into it. */
function snapshotKey(): string {
  const version = (require('pyodide/package.json') as { version: string }).version
  return createHash('sha256').update(`${version}\0${PRELOADED_MODULES.join(',')}\0${PY_PRELUDE}`).digest('hex').slice(0, 16)
}
