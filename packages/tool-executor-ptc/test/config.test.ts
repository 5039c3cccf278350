/**
 * Config keys: `createPtcExecutor` (with its nested `limits`), the `PtcExecutor` plugin and
 * `createQuickJsRuntime` refuse a key they do not know, naming it as a JSON pointer with the known
 * keys and a close one, and accept every documented key (README "Config").
 */
import { afterEach, describe, expect, test } from 'vitest'
import { createPtcExecutor, createQuickJsRuntime, ModulePool, PtcExecutor, TYPESCRIPT_FLAVOUR, validateLimits, type PtcExecutorConfig, type QuickJsRuntimeOptions } from '@deepseek-ai/dsh-tool-executor-ptc'
import { createHarness, type Harness } from '@deepseek-ai/dsh-tool-testkit'

const EXECUTOR_KEYS = 'maxParallelSubCalls, maxParallelRuns, limits, runtime, timeoutMs, warmUp, suspension'
const LIMIT_KEYS = 'computeMs, wallMs, memoryBytes, outputBytes, valueBytes, maxSubCalls, stackBytes'

let h: Harness | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

describe('createPtcExecutor', () => {
  test('a typo, a nested typo in limits and a non-object are RangeErrors naming the field', () => {
    expect(() => createPtcExecutor({ maxParallelSubcall: 4 } as PtcExecutorConfig)).toThrow(
      new RangeError(`ptc executor config: /maxParallelSubcall is not a known option (expected ${EXECUTOR_KEYS}; did you mean "maxParallelSubCalls"?)`),
    )
    expect(() => createPtcExecutor({ limit: { wallMs: 1 } } as PtcExecutorConfig)).toThrow(new RangeError(`ptc executor config: /limit is not a known option (expected ${EXECUTOR_KEYS}; did you mean "limits"?)`))
    expect(() => createPtcExecutor({ limits: { wallMS: 1_000 } } as PtcExecutorConfig)).toThrow(
      new RangeError(`ptc executor config: /limits/wallMS is not a known option (expected ${LIMIT_KEYS}; did you mean "wallMs"?)`),
    )
    expect(() => createPtcExecutor({ limits: { gpuMs: 1 } } as PtcExecutorConfig)).toThrow(new RangeError(`ptc executor config: /limits/gpuMs is not a known option (expected ${LIMIT_KEYS})`))
    expect(() => createPtcExecutor({ limits: 5 } as never)).toThrow(new RangeError('ptc executor config: /limits must be an object, got 5'))
    expect(() => createPtcExecutor('fast' as never)).toThrow(new RangeError('ptc executor config: must be an object, got "fast"'))
    expect(() => createPtcExecutor(null as never)).toThrow(new RangeError('ptc executor config: must be an object, got null'))
    // Neither a BigInt (JSON.stringify throws on one) nor a function's source text in the message.
    expect(() => createPtcExecutor(5n as never)).toThrow(new RangeError('ptc executor config: must be an object, got 5'))
    expect(() => createPtcExecutor((() => 1) as never)).toThrow(new RangeError('ptc executor config: must be an object, got a function'))
  })

  test('every documented key is accepted (README "Config" table and plugin example)', async () => {
    const runtime = createQuickJsRuntime({ thread: 'main' })
    const all: Required<PtcExecutorConfig> = {
      maxParallelSubCalls: 4,
      maxParallelRuns: 2,
      limits: { computeMs: 2_000, wallMs: 30_000, memoryBytes: 32 * 1024 * 1024, outputBytes: 1024, valueBytes: 1024, maxSubCalls: 10, stackBytes: 262_144 },
      runtime,
      timeoutMs: 10_000,
      warmUp: false,
      suspension: {
        runnerOptions: () => ({}),
        submit: (runner, call) => runner.submit(call),
        resumeOf: () => undefined,
        suspend: () => {
          throw new Error('suspended')
        },
      },
    }
    for (const config of [all, { maxParallelSubCalls: 10, limits: { wallMs: 30_000 } }, {}, undefined]) createPtcExecutor(config).dispose?.()
    runtime.dispose?.()
    h = await createHarness({ executor: 'none' })
    await h.ctx.plugin(PtcExecutor, { maxParallelSubCalls: 10, limits: { wallMs: 30_000 }, warmUp: false })
  })
})

describe('createPtcExecutor: parallelism bounds (README "Config")', () => {
  test('maxParallelSubCalls and maxParallelRuns are integers from 1 to 1,000', () => {
    for (const field of ['maxParallelSubCalls', 'maxParallelRuns'] as const) {
      expect(() => createPtcExecutor({ [field]: 0 })).toThrow(new RangeError(`${field} must be an integer from 1 to 1000, got 0`))
      expect(() => createPtcExecutor({ [field]: 1_001 })).toThrow(new RangeError(`${field} must be an integer from 1 to 1000, got 1001`))
      expect(() => createPtcExecutor({ [field]: 2.5 })).toThrow(new RangeError(`${field} must be an integer from 1 to 1000, got 2.5`))
      for (const ok of [1, 1_000]) createPtcExecutor({ [field]: ok, runtime: { language: 'javascript', isolation: 'none', run: async () => ({ logs: [] }) } })
    }
  })
})

describe('createPtcExecutor: runtime', () => {
  const shape = 'runtime must be a CodeRuntime ({ language, isolation, run(input), flavour?, warmUp?() })'
  test('a runtime that is not a CodeRuntime is a RangeError at creation, naming what is missing (README "Config")', async () => {
    const run = async () => ({ logs: [] })
    for (const [runtime, error] of [
      [5, `${shape}: must be an object, got 5`],
      [null, `${shape}: must be an object, got null`],
      [{}, `${shape}: run must be a function, got undefined`],
      [{ language: 'javascript', isolation: 'none', run: 'go' }, `${shape}: run must be a function, got "go"`],
      [{ isolation: 'none', run }, `${shape}: language must be a string, got undefined`],
      [{ language: 'javascript', run }, `${shape}: isolation must be a string, got undefined`],
      [{ language: 'javascript', isolation: 'none', run, warmUp: true }, `${shape}: warmUp must be a function, got true`],
      [{ language: 'javascript', isolation: 'none', run, flavour: 'python' }, `${shape}: flavour must be an object ({ renderSdk(tools), runCodeDescription, codeDescription, callExample(name) }), got "python"`],
      [{ language: 'javascript', isolation: 'none', run, flavour: null }, `${shape}: flavour must be an object ({ renderSdk(tools), runCodeDescription, codeDescription, callExample(name) }), got null`],
      [{ language: 'javascript', isolation: 'none', run, flavour: { renderSdk: () => '' } }, `${shape}: flavour.runCodeDescription must be a string, got undefined`],
      [{ language: 'javascript', isolation: 'none', run, flavour: { ...TYPESCRIPT_FLAVOUR, callExample: 'x' } }, `${shape}: flavour.callExample must be a function, got "x"`],
    ] as const) {
      expect(() => createPtcExecutor({ runtime: runtime as never })).toThrow(new RangeError(error))
    }
    h = await createHarness({ executor: 'none' })
    await expect(h.ctx.plugin(PtcExecutor, { runtime: {} as never })).rejects.toThrow(new RangeError(`${shape}: run must be a function, got undefined`))
    // A structural runtime (no class) with and without the optional members is accepted.
    createPtcExecutor({ runtime: { language: 'javascript', isolation: 'none', run } })
    createPtcExecutor({ runtime: { language: 'javascript', isolation: 'none', run, warmUp: async () => undefined, flavour: TYPESCRIPT_FLAVOUR } })
  })
})

describe('PtcExecutor plugin', () => {
  test('a typo fails plugin start with the same RangeError; null means no config', async () => {
    h = await createHarness({ executor: 'none' })
    await expect(h.ctx.plugin(PtcExecutor, { warmup: false } as PtcExecutorConfig)).rejects.toThrow(
      new RangeError(`ptc executor config: /warmup is not a known option (expected ${EXECUTOR_KEYS}; did you mean "warmUp"?)`),
    )
    await expect(h.ctx.plugin(PtcExecutor, { limits: { wallMS: 1 } } as PtcExecutorConfig)).rejects.toThrow(`ptc executor config: /limits/wallMS is not a known option (expected ${LIMIT_KEYS}; did you mean "wallMs"?)`)
    await expect(h.ctx.plugin(PtcExecutor, [] as never)).rejects.toThrow('ptc executor config: must be an object, got an array')
    await h.dispose()
    h = await createHarness({ executor: 'none' })
    await h.ctx.plugin(PtcExecutor, null as never)
  })
})

describe('createQuickJsRuntime', () => {
  const KNOWN = 'thread, watchdog, watchdogGraceMs, pool, recycle, replySpinMs'
  test('a typo or a non-object is a RangeError naming it', () => {
    expect(() => createQuickJsRuntime({ treads: 'main' } as QuickJsRuntimeOptions)).toThrow(new RangeError(`quickjs runtime options: /treads is not a known option (expected ${KNOWN}; did you mean "thread"?)`))
    expect(() => createQuickJsRuntime({ limits: {} } as QuickJsRuntimeOptions)).toThrow(new RangeError(`quickjs runtime options: /limits is not a known option (expected ${KNOWN})`))
    expect(() => createQuickJsRuntime(1 as never)).toThrow(new RangeError('quickjs runtime options: must be an object, got 1'))
  })

  test('every documented key is accepted', () => {
    createQuickJsRuntime({ thread: 'main', watchdog: false, watchdogGraceMs: 10, pool: new ModulePool(), recycle: false, replySpinMs: 0.2 }).dispose?.()
    createQuickJsRuntime({ thread: 'worker', watchdogGraceMs: 50, recycle: true, replySpinMs: 0 }).dispose?.()
    createQuickJsRuntime({ replySpinMs: 10 }).dispose?.()
    createQuickJsRuntime(undefined).dispose?.()
  })

  test('a pool that is not a ModulePool, a recycle or watchdog that is not a boolean is a RangeError naming it', () => {
    expect(() => createQuickJsRuntime({ pool: {} as never })).toThrow(new RangeError('pool must be a ModulePool, got an object'))
    expect(() => createQuickJsRuntime({ thread: 'main', pool: 'shared' as never })).toThrow(new RangeError('pool must be a ModulePool, got "shared"'))
    expect(() => createQuickJsRuntime({ recycle: 'no' as never })).toThrow(new RangeError('recycle must be a boolean, got "no"'))
    expect(() => createQuickJsRuntime({ thread: 'main', watchdog: 'yes' as never })).toThrow(new RangeError('watchdog must be a boolean, got "yes"'))
    expect(() => createQuickJsRuntime({ watchdog: 1 as never })).toThrow(new RangeError('watchdog must be a boolean, got 1'))
  })

  test('replySpinMs outside 0 … 10 ms or not a number is a RangeError naming it, with either thread', () => {
    for (const [value, shown] of [
      [-0.1, '-0.1'],
      [10.5, '10.5'],
      [Number.NaN, 'NaN'],
      [Number.POSITIVE_INFINITY, 'Infinity'],
      ['0.2', '"0.2"'],
      [{}, 'an object'],
    ] as const) {
      const error = new RangeError(`replySpinMs must be a finite number of ms from 0 to 10, got ${shown}`)
      expect(() => createQuickJsRuntime({ replySpinMs: value as number })).toThrow(error)
      expect(() => createQuickJsRuntime({ thread: 'main', replySpinMs: value as number })).toThrow(error)
    }
  })
})

describe('validateLimits (per-run limits)', () => {
  test('an unknown limit keeps its text and gains the close key', () => {
    expect(() => validateLimits({ wallMS: 1 } as never)).toThrow(new RangeError(`unknown run limit "wallMS"; expected one of ${LIMIT_KEYS}; did you mean "wallMs"?`))
    expect(() => validateLimits([] as never)).toThrow(new RangeError('run limits must be an object, got an array'))
  })
})
