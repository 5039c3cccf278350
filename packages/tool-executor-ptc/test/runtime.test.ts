import { getEventListeners } from 'node:events'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { JsonValue } from '@deepseek-ai/dsh-tools'
import { ModulePool } from '../src/runtime/module-pool'
import { createQuickJsRuntime } from '../src/runtime/quickjs'
import type { HostFunction } from '../src/runtime/types'
import { COMPUTE_LIMITED, SMALL_LIMITS, plain, runProgram, sleep } from './runtime-helpers'

const runtime = createQuickJsRuntime()
beforeAll(() => runtime.warmUp(SMALL_LIMITS.memoryBytes))
afterAll(() => runtime.dispose())

describe('QuickJS runtime: values and programs', () => {
  it('describes itself through the CodeRuntime seam', () => {
    expect([runtime.language, runtime.isolation]).toEqual(['typescript', 'wasm'])
  })

  it.each([
    ['return 1 + 2', 3],
    ['return "text"', 'text'],
    ['return { a: [1, { b: null }], c: true }', { a: [1, { b: null }], c: true }],
    ['return null', null],
    ['return [undefined, 1]', [null, 1]],
    ['return { a: undefined, b: 1 }', { b: 1 }],
    ['return new Date(0)', '1970-01-01T00:00:00.000Z'],
  ] as const)('returns %s as JSON', async (program, value) => {
    expect(plain(await runProgram(runtime, program))).toEqual({ value, logs: [] })
  })

  it('gives no value for undefined and for a body without return', async () => {
    expect(plain(await runProgram(runtime, 'return undefined'))).toEqual({ logs: [] })
    expect(plain(await runProgram(runtime, 'const x = 1'))).toEqual({ logs: [] })
  })

  it('runs top-level await as an async function body', async () => {
    const out = await runProgram(runtime, 'const a = await Promise.resolve(20); const b = await new Promise((r) => r(22)); return a + b')
    expect(plain(out)).toEqual({ value: 42, logs: [] })
  })

  it('captures console output in order, one line per call, objects as JSON', async () => {
    const out = await runProgram(
      runtime,
      [
        'console.log("a", 1, true, null, undefined)',
        'console.info({ x: [1, "y"] })',
        'console.warn(new TypeError("bad"))',
        'console.error(10n, Symbol("s"), function named() {})',
        'const cyclic: any = { n: 1 }; cyclic.self = cyclic; console.debug(cyclic)',
        'await null',
        'console.log("after await")',
      ].join('\n'),
    )
    expect(plain(out)).toEqual({
      logs: ['a 1 true null undefined', '{"x":[1,"y"]}', 'TypeError: bad', '10n Symbol(s) [Function named]', '{"n":1,"self":"[Circular]"}', 'after await'],
    })
  })

  it('accepts TypeScript: interfaces, generics, as, enums, type-only imports of nothing', async () => {
    const program = [
      'interface Point { x: number; y: number }',
      'type Pair<T> = [T, T]',
      'enum Color { Red = "red", Blue = "blue" }',
      'function swap<T>(p: Pair<T>): Pair<T> { return [p[1], p[0]] }',
      'const p = { x: 1, y: 2 } as Point',
      'const q = <const>[p.x, p.y]',
      'let n!: number',
      'n = swap<number>([q[0], q[1]])[0]',
      'return { n, color: Color.Blue, sum: (p satisfies Point).x + p.y }',
    ].join('\n')
    expect(plain(await runProgram(runtime, program))).toEqual({ value: { n: 2, color: 'blue', sum: 3 }, logs: [] })
  })

  it('reports a syntax error as an exception with the line in the program', async () => {
    const out = await runProgram(runtime, 'const ok = 1\nconst broken = ;\nreturn ok')
    expect(out.error).toEqual({ kind: 'exception', message: 'SyntaxError: Unexpected ";" (line 2, column 16)' })
    expect(out.logs).toEqual([])
  })

  it('reports an uncaught throw with the error name and message, keeping earlier output', async () => {
    const out = await runProgram(runtime, 'console.log("before")\nthrow new RangeError("out of range")')
    expect(plain(out)).toEqual({ logs: ['before'], error: { kind: 'exception', message: 'RangeError: out of range (line 2: throw new RangeError("out of range"))' } })
  })

  it('gives each run a fresh context: globals of run 1 are absent in run 2', async () => {
    const first = await runProgram(runtime, 'globalThis.leak = 42; var alsoLeak = 1; Object.prototype.polluted = true; return leak')
    expect(first.value).toBe(42)
    const second = await runProgram(runtime, 'return [typeof leak, typeof alsoLeak, ({} as any).polluted === undefined]')
    expect(second.value).toEqual(['undefined', 'undefined', true])
  })

  it('exposes only tools, console, ToolCallError and the timers beyond the language', async () => {
    const out = await runProgram(
      runtime,
      'return ["process", "require", "module", "fetch", "std", "os", "hostCall", "hostPrint", "hostTimer"].filter((n) => n in globalThis)',
    )
    expect(out.value).toEqual([])
    const names = await runProgram(
      runtime,
      'return ["tools", "console", "ToolCallError", "setTimeout", "setInterval", "setImmediate", "clearTimeout", "clearInterval", "clearImmediate", "queueMicrotask"].map((n) => typeof (globalThis as any)[n])',
    )
    expect(names.value).toEqual(['object', 'object', 'function', 'function', 'function', 'function', 'function', 'function', 'function', 'function'])
  })
})

describe('QuickJS runtime: host bindings', () => {
  it('passes arguments and results as JSON copies', async () => {
    const seen: JsonValue[] = []
    const hostValue = { list: [1, 2] }
    const bindings: Record<string, HostFunction> = {
      echo: async (arg) => {
        seen.push(arg)
        return hostValue
      },
    }
    const out = await runProgram(
      runtime,
      [
        'const arg = { n: 1, nested: { s: "x" }, skip: undefined }',
        'const r1 = await tools.echo(arg)',
        'arg.n = 2',
        'r1.list.push(3)',
        'const r2 = await tools.echo()',
        'return [r1, r2, r1 === r2]',
      ].join('\n'),
      { bindings },
    )
    expect(plain(out)).toEqual({ value: [{ list: [1, 2, 3] }, { list: [1, 2] }, false], logs: [] })
    expect(seen).toEqual([{ n: 1, nested: { s: 'x' } }, {}])
    expect(hostValue).toEqual({ list: [1, 2] })
  })

  it('reaches exotic names through brackets and keeps tools frozen', async () => {
    const bindings: Record<string, HostFunction> = { 'math.factorial': async (arg) => { const n = (arg as { n: number }).n; let f = 1; for (let i = 2; i <= n; i++) f *= i; return f } }
    const out = await runProgram(
      runtime,
      'const f = await tools["math.factorial"]({ n: 5 }); const before = tools["math.factorial"]; (tools as any)["math.factorial"] = null; return [f, Object.isFrozen(tools), tools["math.factorial"] === before, Object.keys(tools), before.name]',
      { bindings },
    )
    expect(out.value).toEqual([120, true, true, ['math.factorial'], 'math.factorial'])
  })

  it('surfaces a ToolCallError-like rejection as a ToolCallError instance', async () => {
    const bindings: Record<string, HostFunction> = {
      read: () => Promise.reject({ name: 'ToolCallError', toolName: 'read', message: 'no such file' }),
      plain: () => Promise.reject(new Error('plain failure')),
    }
    const out = await runProgram(
      runtime,
      [
        'const caught = []',
        'for (const call of [() => tools.read({ path: "/x" }), () => tools.plain({})]) {',
        '  try { await call() } catch (e) {',
        '    caught.push([e instanceof ToolCallError, e instanceof Error, e.name, e.toolName, e.message])',
        '  }',
        '}',
        'return caught',
      ].join('\n'),
      { bindings },
    )
    expect(out.value).toEqual([
      [true, true, 'ToolCallError', 'read', 'no such file'],
      [true, true, 'ToolCallError', 'plain', 'plain failure'],
    ])
  })

  it('fails the run with the tool name and message when a ToolCallError is not caught', async () => {
    const bindings: Record<string, HostFunction> = { read: () => Promise.reject({ name: 'ToolCallError', toolName: 'read', message: 'denied by policy' }) }
    const out = await runProgram(runtime, 'await tools.read({})', { bindings })
    expect(out.error).toEqual({ kind: 'exception', message: 'ToolCallError (read): denied by policy' })
  })

  it('overlaps concurrent sub-calls', async () => {
    const events: string[] = []
    let active = 0
    let maxActive = 0
    const slow =
      (label: string): HostFunction =>
      async () => {
        events.push(`start ${label}`)
        active++
        maxActive = Math.max(maxActive, active)
        await sleep(50)
        active--
        events.push(`end ${label}`)
        return label
      }
    const out = await runProgram(runtime, 'return await Promise.all([tools.a({}), tools.b({})])', { bindings: { a: slow('a'), b: slow('b') } })
    expect(out.value).toEqual(['a', 'b'])
    expect(events.slice(0, 2).sort()).toEqual(['start a', 'start b'])
    expect(maxActive).toBe(2)
  })

  it('rejects a non-JSON tool result inside the program', async () => {
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    const bindings: Record<string, HostFunction> = { bad: async () => cyclic as unknown as JsonValue }
    const out = await runProgram(runtime, 'try { await tools.bad({}) } catch (e) { return [e instanceof ToolCallError, e.message] }', { bindings })
    expect(out.value).toEqual([true, 'tools.bad returned a value that is not JSON'])
  })

  it('counts sub-calls in the statistics', async () => {
    const out = await runProgram(runtime, 'for (let i = 0; i < 3; i++) await tools.noop()', { bindings: { noop: async () => null } })
    expect(out.stats?.subCalls).toBe(3)
  })
})

describe('QuickJS runtime: settlement and cleanup', () => {
  it('aborts on the signal, removes its listener and forwards no later call', async () => {
    const controller = new AbortController()
    let calls = 0
    let settles = 0
    const bindings: Record<string, HostFunction> = {
      wait: () => {
        calls++
        if (calls === 1) setTimeout(() => controller.abort(), 10)
        return new Promise(() => {})
      },
    }
    const out = await runProgram(runtime, 'try { await tools.wait({}) } finally { await tools.wait({}) }', {
      bindings,
      signal: controller.signal,
      onSettle: () => settles++,
    })
    expect(out.error).toEqual({ kind: 'abort', message: 'the run was aborted' })
    expect(settles).toBe(1)
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0)
    await sleep(20)
    expect(calls).toBe(1)
  })

  it('reports an already-aborted signal without starting', async () => {
    const controller = new AbortController()
    controller.abort(new Error('user pressed stop'))
    const out = await runProgram(runtime, 'return 1', { signal: controller.signal })
    expect(out.error).toEqual({ kind: 'abort', message: 'the run was aborted: user pressed stop' })
  })

  it('calls onSettle once at settlement and forwards nothing the program issues afterwards', async () => {
    const order: string[] = []
    const bindings: Record<string, HostFunction> = {
      later: async () => {
        order.push('later called')
        return null
      },
    }
    const out = await runProgram(runtime, 'const v = { get x() { tools.later({}); return 1 } }; return v', {
      bindings,
      onSettle: () => order.push('settled'),
    })
    await sleep(10)
    expect(plain(out)).toEqual({ value: { x: 1 }, logs: [] })
    expect(order).toEqual(['settled'])
  })

  it('leaves no timer, immediate or listener behind and returns its instance to the pool', async () => {
    const count = (type: string): number => process.getActiveResourcesInfo().filter((r) => r === type).length
    const before = { timeouts: count('Timeout'), immediates: count('Immediate') }
    const controller = new AbortController()
    const outputs = await Promise.all([
      runProgram(runtime, 'return await tools.noop()', { bindings: { noop: async () => 1 }, signal: controller.signal }),
      runProgram(runtime, 'throw new Error("x")'),
      runProgram(runtime, 'while (true) {}', { limits: COMPUTE_LIMITED }),
    ])
    expect(outputs.map((o) => o.error?.kind ?? o.value)).toEqual([1, 'exception', 'timeout'])
    // Timers of earlier tests may still be pending in `before`; none may be added.
    expect(count('Timeout')).toBeLessThanOrEqual(before.timeouts)
    expect(count('Immediate')).toBeLessThanOrEqual(before.immediates)
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0)
    const stats = runtime.stats()
    expect(stats.activeRuns).toBe(0)
    expect(stats.modules.inUse).toBe(0)
    expect(stats.modules.created - stats.modules.dropped).toBe(stats.modules.idle)
  })

  it('drops the instance after a watchdog stop and recycles it after a clean run', async () => {
    const fresh = createQuickJsRuntime()
    try {
      await runProgram(fresh, 'return 1')
      await runProgram(fresh, 'return 2')
      expect(fresh.stats().modules).toEqual({ created: 1, dropped: 0, idle: 1, inUse: 0 })
      const stuck = await runProgram(fresh, 'Array(2 ** 32 - 1).join("")', { limits: COMPUTE_LIMITED })
      expect(stuck.error).toEqual({ kind: 'timeout', message: 'compute time limit of 200 ms exceeded' })
      expect(fresh.stats().modules).toEqual({ created: 1, dropped: 1, idle: 0, inUse: 0 })
      expect((await runProgram(fresh, 'return 3')).value).toBe(3)
    } finally {
      fresh.dispose()
    }
  })

  it('never rejects, also for invalid limits', async () => {
    const out = await runProgram(runtime, 'return 1', { limits: { wallMs: -1 } })
    expect(out.error?.kind).toBe('exception')
    expect(out.error?.message).toMatch(/^invalid run limits: run limit "wallMs" must be a positive finite number/)
  })
})

describe('QuickJS runtime: the guest ToolCallError class', () => {
  it('is a named Error subclass a program can construct and extend', async () => {
    const out = await runProgram(
      runtime,
      'const e = new ToolCallError("t", "m"); class Sub extends ToolCallError {} return [ToolCallError.name, e.name, e.toolName, e.message, e instanceof Error, String(e), new Sub("a", "b") instanceof ToolCallError]',
    )
    expect(out.value).toEqual(['ToolCallError', 'ToolCallError', 't', 'm', true, 'ToolCallError: m', true])
  })
})

describe('QuickJS runtime: instance recycling', () => {
  it('gives every run a new instance when recycling is off', async () => {
    const isolated = createQuickJsRuntime({ pool: new ModulePool({ recycle: false }) })
    expect((await runProgram(isolated, 'return 1')).value).toBe(1)
    expect((await runProgram(isolated, 'return 2')).value).toBe(2)
    expect(isolated.stats().modules).toEqual({ created: 2, dropped: 2, idle: 0, inUse: 0 })
  })

  it('prepares the next run’s context in an idle instance, and the run that takes it starts clean', async () => {
    const pool = new ModulePool()
    const inProcess = createQuickJsRuntime({ pool, watchdog: false })
    const first = await runProgram(inProcess, 'globalThis.leak = 41; Promise.prototype.then = null; return 1')
    expect(first.value).toBe(1)
    await new Promise((resolve) => setImmediate(resolve))
    // The instance went back idle and a context was made in it after the run (not at the next one).
    const entry = await pool.acquire(SMALL_LIMITS.memoryBytes)
    const prepared = entry.prepared
    expect(prepared?.ctx.alive).toBe(true)
    pool.release(entry, true)
    const second = await runProgram(inProcess, 'return [typeof globalThis.leak, typeof Promise.prototype.then, await Promise.resolve(2)]')
    expect(second.value).toEqual(['undefined', 'function', 2])
    // That very context served the run and was freed with it.
    expect(prepared?.ctx.alive).toBe(false)
    expect(inProcess.stats().modules).toEqual({ created: 1, dropped: 0, idle: 1, inUse: 0 })
  })
})
