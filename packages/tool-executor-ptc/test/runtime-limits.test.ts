import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_TIMER_MS } from '@deepseek-ai/dsh-tools'
import { DEFAULT_RUN_LIMITS, MAX_MEMORY_BYTES, MAX_STACK_BYTES, validateLimits, type RunLimits } from '../src/limits'
import { STALLED_MESSAGE } from '../src/runtime/execution'
import { memoryCapBytes } from '../src/runtime/module-pool'
import type { HostFunction } from '../src/runtime/types'
import { createQuickJsRuntime } from '../src/runtime/quickjs'
import { COMPUTE_LIMITED, MEMORY_LIMITS, SMALL_LIMITS, WALL_LIMITED, plain, runProgram, sleep } from './runtime-helpers'

const runtime = createQuickJsRuntime()
beforeAll(() => runtime.warmUp(SMALL_LIMITS.memoryBytes))
afterAll(() => runtime.dispose())

describe('validateLimits', () => {
  it('fills defaults and keeps given values', () => {
    expect(validateLimits()).toEqual(DEFAULT_RUN_LIMITS)
    expect(validateLimits({ wallMs: 1_000, maxSubCalls: 3 })).toEqual({ ...DEFAULT_RUN_LIMITS, wallMs: 1_000, maxSubCalls: 3 })
    expect(Object.isFrozen(validateLimits())).toBe(true)
  })

  it.each<[Partial<Record<keyof RunLimits, unknown>>, string]>([
    [{ computeMs: 0 }, 'run limit "computeMs" must be a positive finite number of ms up to 2147483647, got 0'],
    [{ wallMs: -5 }, 'run limit "wallMs" must be a positive finite number of ms up to 2147483647, got -5'],
    [{ wallMs: Number.NaN }, 'run limit "wallMs" must be a positive finite number of ms up to 2147483647, got NaN'],
    [{ computeMs: Number.POSITIVE_INFINITY }, 'run limit "computeMs" must be a positive finite number of ms up to 2147483647, got Infinity'],
    [{ wallMs: MAX_TIMER_MS + 1 }, 'run limit "wallMs" must be a positive finite number of ms up to 2147483647, got 2147483648'],
    [{ memoryBytes: MAX_MEMORY_BYTES + 1 }, 'run limit "memoryBytes" must be a positive finite integer of bytes up to 1073741824, got 1073741825'],
    [{ outputBytes: 1.5 }, 'run limit "outputBytes" must be a positive finite integer of bytes up to 2147483647, got 1.5'],
    [{ valueBytes: '10' }, 'run limit "valueBytes" must be a positive finite integer of bytes up to 2147483647, got "10"'],
    [{ maxSubCalls: 2.5 }, 'run limit "maxSubCalls" must be a positive finite integer of calls up to 2147483647, got 2.5'],
    [{ stackBytes: MAX_STACK_BYTES + 1 }, 'run limit "stackBytes" must be a positive finite integer of bytes up to 4194304, got 4194305'],
  ])('rejects %j', (partial, message) => {
    expect(() => validateLimits(partial as Partial<RunLimits>)).toThrow(new RangeError(message))
  })

  it('rejects unknown fields', () => {
    expect(() => validateLimits({ cpuMs: 5 } as Partial<RunLimits>)).toThrow(
      new RangeError('unknown run limit "cpuMs"; expected one of computeMs, wallMs, memoryBytes, outputBytes, valueBytes, maxSubCalls, stackBytes'),
    )
  })
})

describe('compute and wall time', () => {
  it('stops a synchronous loop at the compute limit', async () => {
    const out = await runProgram(runtime, 'console.log("start"); while (true) {}', { limits: COMPUTE_LIMITED })
    expect(out.error).toEqual({ kind: 'timeout', message: 'compute time limit of 200 ms exceeded' })
    // Under heavy load the worker watchdog can stop the stuck entry before QuickJS's own check,
    // and then the line printed in that entry is lost (README, Known limitations).
    expect([['start'], []]).toContainEqual(out.logs)
  })

  it('stops a built-in that never polls the interrupt handler (watchdog)', async () => {
    const out = await runProgram(runtime, 'return [].indexOf.call({ length: 2 ** 32 - 1 }, 1)', { limits: COMPUTE_LIMITED })
    expect(out.error).toEqual({ kind: 'timeout', message: 'compute time limit of 200 ms exceeded' })
  })

  it('stops a program waiting on a promise that never settles at once, not at the wall limit', async () => {
    // The wall limit is the largest allowed: the test only finishes because the run ends at once.
    const out = await runProgram(runtime, 'await new Promise(() => {})', { limits: { computeMs: 30_000, wallMs: MAX_TIMER_MS } })
    expect(out.error).toEqual({ kind: 'timeout', message: STALLED_MESSAGE })
  })

  it('names the tool calls still running at the wall limit', async () => {
    const out = await runProgram(runtime, 'await tools.hang({})', { bindings: { hang: () => new Promise(() => {}) }, limits: WALL_LIMITED })
    expect(out.error).toEqual({ kind: 'timeout', message: 'wall time limit of 400 ms exceeded (1 tool call still running)' })
  })

  it('counts only time inside the sandbox as compute time', async () => {
    const out = await runProgram(runtime, 'await tools.wait({}); return 1', {
      bindings: { wait: () => sleep(300).then(() => null) },
    })
    expect(out.value).toBe(1)
    const stats = out.stats ?? { computeMs: Number.NaN, wallMs: Number.NaN }
    expect(stats.computeMs / stats.wallMs).toBeLessThan(0.5)
  })
})

describe('memory', () => {
  it('fails a memory bomb as memory and keeps host RSS bounded', async () => {
    const memoryBytes = 16 * 1024 * 1024
    const bombs = [
      'const a = []; for (;;) a.push(new ArrayBuffer(1 << 20))',
      'const a = []; for (;;) a.push("x".repeat(1 << 16) + a.length)',
      'const a = []; for (;;) a.push(new Array(1 << 16).fill(a.length))',
    ]
    const before = process.memoryUsage().rss
    let peak = before
    for (const bomb of bombs) {
      const out = await runProgram(runtime, bomb, { limits: { ...MEMORY_LIMITS, memoryBytes } })
      peak = Math.max(peak, process.memoryUsage().rss)
      expect(out.error).toEqual({ kind: 'memory', message: `memory limit of ${memoryBytes} bytes exceeded` })
    }
    expect(memoryCapBytes(memoryBytes)).toBe(48 * 1024 * 1024)
    expect(peak - before).toBeLessThan(memoryBytes + 128 * 1024 * 1024)
    expect((await runProgram(runtime, 'return "alive"')).value).toBe('alive')
  })

  it('lets a program that stays under the limit allocate', async () => {
    const out = await runProgram(runtime, 'const a = new Uint8Array(2 << 20); a[a.length - 1] = 7; return a[a.length - 1]', { limits: MEMORY_LIMITS })
    expect(out.value).toBe(7)
  })

  it('fails as memory, not as a stall, when the heap cannot hold the copy of the queued calls the host takes', async () => {
    // The call is queued (1 MB of non-ASCII JSON); the program then fills the heap, leaving
    // 400 KB: QuickJS cannot make the 2 MB UTF-8 copy the host reads the queue through.
    let calls = 0
    const program = [
      'const p = tools.size({ s: "é".repeat(1000000) })',
      'const keep = []; try { for (;;) keep.push(new ArrayBuffer(4096)) } catch (e) {} keep.length -= 100',
      'return [await p, keep.length > 0]',
    ].join('\n')
    const memoryBytes = 16 * 1024 * 1024
    const out = await runProgram(runtime, program, {
      limits: { ...MEMORY_LIMITS, memoryBytes, valueBytes: 4_000_000 },
      bindings: {
        size: async (arg) => {
          calls++
          return (arg as { s: string }).s.length
        },
      },
    })
    expect(plain(out)).toEqual({ logs: [], error: { kind: 'memory', message: `memory limit of ${memoryBytes} bytes exceeded` } })
    expect(calls).toBe(0)
  })
})

describe('output and value bytes', () => {
  it('fails a console flood as output-limit and keeps the lines that fit', async () => {
    const out = await runProgram(runtime, 'for (let i = 0; ; i++) console.log("line " + i)')
    expect(out.error).toEqual({ kind: 'output-limit', message: 'output limit of 4096 bytes exceeded by printed lines' })
    const bytes = out.logs.reduce((n, l) => n + Buffer.byteLength(l), 0) + out.logs.length - 1
    expect(bytes).toBeLessThanOrEqual(4_096)
    expect(out.logs[0]).toBe('line 0')
  })

  it('counts printed lines, newlines and the rendered return value against outputBytes', async () => {
    const fits = await runProgram(runtime, 'console.log("a".repeat(4000)); return "b".repeat(95)')
    expect(fits.value).toBe('b'.repeat(95))
    const over = await runProgram(runtime, 'console.log("a".repeat(4000)); return "b".repeat(96)')
    expect(over.error).toEqual({ kind: 'output-limit', message: 'output limit of 4096 bytes exceeded: printed lines and the return value come to 4097 bytes' })
    const multibyte = await runProgram(runtime, 'return "é".repeat(2049)')
    expect(multibyte.error?.kind).toBe('output-limit')
  })

  it('fails a huge return value as output-limit without copying it out', async () => {
    const out = await runProgram(runtime, 'return { big: "x".repeat(1 << 20) }', { limits: MEMORY_LIMITS })
    expect(out.error).toEqual({ kind: 'output-limit', message: 'output limit of 4096 bytes exceeded: the return value is 1048586 characters of JSON' })
  })

  it('rejects an oversized sub-call argument and result inside the program', async () => {
    let calls = 0
    const bindings: Record<string, HostFunction> = {
      echo: async (arg) => {
        calls++
        return arg
      },
      big: async () => 'y'.repeat(70_000),
    }
    const out = await runProgram(
      runtime,
      [
        'const errors = []',
        'try { await tools.echo({ s: "x".repeat(70000) }) } catch (e) { errors.push(e.name + ": " + e.message) }',
        'try { await tools.big({}) } catch (e) { errors.push(e.name + ": " + e.message) }',
        'errors.push(await tools.echo({ ok: true }))',
        'return errors',
      ].join('\n'),
      { bindings },
    )
    expect(out.value).toEqual([
      'RangeError: the argument of tools.echo is 70008 characters, over the valueBytes limit of 65536 bytes',
      'RangeError: the result of tools.big is 70002 bytes, over the valueBytes limit of 65536 bytes',
      { ok: true },
    ])
    expect(calls).toBe(1)
  })

  it('checks argument bytes as UTF-8, and never forwards a call over the limit', async () => {
    let calls = 0
    const out = await runProgram(runtime, 'try { await tools.echo({ s: "é".repeat(40000) }) } catch (e) { return e.name + ": " + e.message }', {
      bindings: {
        echo: async (arg) => {
          calls++
          return arg
        },
      },
    })
    expect(out.value).toBe('RangeError: the argument of tools.echo is 80008 bytes, over the valueBytes limit of 65536 bytes')
    expect(calls).toBe(0)
  })

  it('forwards a non-ASCII argument under valueBytes even when the heap could not hold a copy of it per byte', async () => {
    // 1.2 MB of UTF-8 in a 16 MiB heap: counting its bytes inside the sandbox (encodeURIComponent
    // and one string per byte) ran out of memory; the host counts them with Buffer.byteLength.
    let calls = 0
    const out = await runProgram(runtime, 'return await tools.size({ s: "é".repeat(600000) })', {
      limits: { ...MEMORY_LIMITS, memoryBytes: 16 * 1024 * 1024, valueBytes: 1_500_000 },
      bindings: {
        size: async (arg) => {
          calls++
          return (arg as { s: string }).s.length
        },
      },
    })
    expect(plain(out)).toEqual({ value: 600000, logs: [] })
    expect(calls).toBe(1)
  })
})

describe('sub-call count and stack', () => {
  it('rejects calls past maxSubCalls inside the program', async () => {
    let calls = 0
    const out = await runProgram(
      runtime,
      'const r = await Promise.allSettled(Array.from({ length: 50 }, () => tools.noop())); return [r.filter((x) => x.status === "fulfilled").length, r[10].reason.message]',
      { bindings: { noop: async () => ++calls }, limits: { maxSubCalls: 10 } },
    )
    expect(out.value).toEqual([10, 'sub-call limit reached: a run may make at most 10 tool calls (tools.noop was not called)'])
    expect(calls).toBe(10)
    expect(out.stats?.subCalls).toBe(10)
  })

  it('fails the run as exception when the limit rejection is not caught, forwarding nothing after settlement', async () => {
    let calls = 0
    const out = await runProgram(runtime, 'await Promise.all(Array.from({ length: 50 }, () => tools.noop()))', {
      bindings: { noop: async () => ++calls },
      limits: { maxSubCalls: 10 },
    })
    expect(out.error).toEqual({ kind: 'exception', message: 'RangeError: sub-call limit reached: a run may make at most 10 tool calls (tools.noop was not called) (line 1: await Promise.all(Array.from({ length: 50 }, () => tools.noop())))' })
    await sleep(10)
    // The run settled in the same turn the calls were issued, so none reached a binding.
    expect(calls).toBe(0)
  })

  it('lets a program catch the sub-call limit', async () => {
    const out = await runProgram(runtime, 'let n = 0; try { for (;;) { await tools.noop(); n++ } } catch (e) { return [n, e instanceof RangeError] }', {
      bindings: { noop: async () => null },
      limits: { maxSubCalls: 5 },
    })
    expect(out.value).toEqual([5, true])
  })

  it('bounds recursion depth by stackBytes', async () => {
    const depth = async (stackBytes: number): Promise<number> => {
      const out = await runProgram(runtime, 'let d = 0; function f() { d++; f() } try { f() } catch (e) { return [d, String(e)] }', { limits: { stackBytes } })
      const [d, message] = out.value as [number, string]
      expect(message).toBe('InternalError: stack overflow')
      return d
    }
    const small = await depth(64 * 1024)
    const large = await depth(256 * 1024)
    expect(small).toBeGreaterThan(50)
    expect(large / small).toBeGreaterThan(3)
  })
})
