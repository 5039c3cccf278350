/**
 * The snapshot cache: a cached snapshot that does not load (a damaged file, another Pyodide
 * build) is dropped, the worker boots fully instead, and the cache holds a good snapshot again;
 * snapshots of other builds are removed when a new one is written.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, test } from 'vitest'
import { createPythonRuntime } from '../src/index'
import { snapshotFileName } from '../src/runtime'
import { BOOT_MS, plain, runPython } from './helpers'

const dir = mkdtempSync(join(tmpdir(), 'dsh-py-snapshot-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test(
  'a damaged cached snapshot is replaced by a full boot, and stale snapshots are removed',
  async () => {
    const file = join(dir, snapshotFileName())
    const stale = join(dir, 'pyodide-0123456789abcdef.snap')
    writeFileSync(file, 'not a snapshot')
    writeFileSync(stale, 'an older build')
    const runtime = createPythonRuntime({ snapshotCache: dir })
    try {
      await runtime.warmUp()
      expect(runtime.stats()).toEqual({ activeRuns: 0, workersStarted: 2, workersReplaced: 0, snapshot: 'none' })
      expect(plain(await runPython(runtime, 'import asyncio\nawait asyncio.sleep(0)\nreturn 7'))).toEqual({ value: 7, logs: [] })
      expect(readdirSync(dir)).toEqual([snapshotFileName()])
      expect(statSync(file).size).toBeGreaterThan(1024 * 1024)
      expect(readFileSync(file).subarray(0, 14).toString()).not.toBe('not a snapshot')
    } finally {
      runtime.dispose()
    }
  },
  BOOT_MS,
)
