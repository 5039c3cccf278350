/**
 * `createPythonRuntime(options)` refuses a key it does not know (naming it as a JSON pointer with
 * the known keys and a close one) and options that are not an object, and accepts every
 * documented option (README table). No worker starts: workers start on the first run.
 */
import { expect, test } from 'vitest'
import { createPythonRuntime, type PythonRuntimeOptions } from '@deepseek-ai/dsh-code-runtime-python'

const KNOWN = 'graceMs, maxWorkers, snapshotCache'

test('a typo or a non-object is a RangeError naming it', () => {
  expect(() => createPythonRuntime({ maxWorker: 2 } as PythonRuntimeOptions)).toThrow(new RangeError(`python runtime options: /maxWorker is not a known option (expected ${KNOWN}; did you mean "maxWorkers"?)`))
  expect(() => createPythonRuntime({ snapshot_cache: false } as PythonRuntimeOptions)).toThrow(new RangeError(`python runtime options: /snapshot_cache is not a known option (expected ${KNOWN}; did you mean "snapshotCache"?)`))
  expect(() => createPythonRuntime({ limits: { wallMs: 1 } } as PythonRuntimeOptions)).toThrow(new RangeError(`python runtime options: /limits is not a known option (expected ${KNOWN})`))
  expect(() => createPythonRuntime('fast' as never)).toThrow(new RangeError('python runtime options: must be an object, got "fast"'))
  expect(() => createPythonRuntime(null as never)).toThrow(new RangeError('python runtime options: must be an object, got null'))
  // Neither a BigInt (JSON.stringify throws on one) nor a function's source text in the message.
  expect(() => createPythonRuntime(2n as never)).toThrow(new RangeError('python runtime options: must be an object, got 2'))
  expect(() => createPythonRuntime((() => 1) as never)).toThrow(new RangeError('python runtime options: must be an object, got a function'))
})

test('an invalid graceMs or maxWorkers is named with its value, a string quoted', () => {
  expect(() => createPythonRuntime({ graceMs: '100' as never })).toThrow(new RangeError('graceMs must be a finite number of ms >= 0, got "100"'))
  expect(() => createPythonRuntime({ maxWorkers: '2' as never })).toThrow(new RangeError('maxWorkers must be an integer from 1 to 64, got "2"'))
  expect(() => createPythonRuntime({ maxWorkers: 65 })).toThrow(new RangeError('maxWorkers must be an integer from 1 to 64, got 65'))
})

test('a snapshotCache that is neither a directory path nor false is named with its value', () => {
  const error = (shown: string) => new RangeError(`snapshotCache must be a directory path (a non-empty string) or false, got ${shown}`)
  expect(() => createPythonRuntime({ snapshotCache: true as never })).toThrow(error('true'))
  expect(() => createPythonRuntime({ snapshotCache: 5 as never })).toThrow(error('5'))
  expect(() => createPythonRuntime({ snapshotCache: '' })).toThrow(error('""'))
  // null means the default, as for the other options.
  createPythonRuntime({ snapshotCache: null as never, graceMs: null as never, maxWorkers: null as never }).dispose()
})

test('every documented option is accepted; no options means the defaults', () => {
  const all: Required<PythonRuntimeOptions> = { graceMs: 100, maxWorkers: 2, snapshotCache: false }
  for (const options of [all, { snapshotCache: '/tmp/dsh-python-snapshots' }, {}, undefined]) {
    const runtime = createPythonRuntime(options)
    expect(runtime.stats()).toEqual({ activeRuns: 0, workersStarted: 0, workersReplaced: 0, snapshot: 'none' })
    runtime.dispose()
  }
})
