/**
 * Hostile programs (ARCHITECTURE §11; bug cases B19 and B20): each is contained with an exact
 * outcome, the host is untouched, and the next run on the same runtime works.
 */
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { JsonValue } from '@deepseek-ai/dsh-tools'
import type { RunLimits } from '../src/limits'
import { MAX_TIMER_MS } from '@deepseek-ai/dsh-tools'
import { STALLED_MESSAGE } from '../src/runtime/execution'
import { MAX_MESSAGE_CHARS, createQuickJsRuntime } from '../src/runtime/quickjs'
import type { HostFunction, RunErrorKind, RunOutput } from '../src/runtime/types'
import { MEMORY_LIMITS, runProgram, sleep } from './runtime-helpers'

const runtime = createQuickJsRuntime()
beforeAll(() => runtime.warmUp(MEMORY_LIMITS.memoryBytes))
afterAll(() => runtime.dispose())

/** Compute-limited by default (100 ms keeps this long suite quick); wall cases override. */
const QUICK: Partial<RunLimits> = { computeMs: 100, wallMs: 30_000 }
const QUICK_WALL: Partial<RunLimits> = { computeMs: 30_000, wallMs: 300 }

interface BugCase {
  readonly id: string
  readonly input: { readonly programs: readonly string[] }
}
const bugCases = JSON.parse(
  readFileSync(new URL('../../tool-testkit/fixtures/real/cases/bug_cases.json', import.meta.url), 'utf8'),
) as readonly BugCase[]
const programsOf = (id: string): readonly string[] => {
  const found = bugCases.find((c) => c.id === id)
  if (found === undefined) throw new Error(`bug case ${id} missing`)
  return found.input.programs
}

let hostCalls = 0
const bindings: Record<string, HostFunction> = {
  noop: async () => {
    hostCalls++
    return null
  },
  hang: () => {
    hostCalls++
    return new Promise(() => {})
  },
  echo: async (arg) => {
    hostCalls++
    return arg
  },
  read: async () => {
    hostCalls++
    return 'content'
  },
}

type Expectation =
  | { readonly kind: RunErrorKind; readonly message?: string | RegExp }
  | { readonly value: JsonValue | undefined }

interface HostileCase {
  readonly name: string
  readonly program: string
  readonly expect: Expectation
  readonly limits?: Partial<RunLimits>
  readonly check?: (output: RunOutput) => void
}

const B19 = programsOf('B19')
const B20 = programsOf('B20')
const COMPUTE = 'compute time limit of 100 ms exceeded'
const MEMORY = /^memory limit of \d+ bytes exceeded$/

const cases: HostileCase[] = [
  // Time: loops in code, in jobs, in built-ins.
  { name: 'while (true) {}', program: 'while (true) {}', expect: { kind: 'timeout', message: COMPUTE } },
  { name: 'a sync loop while a sub-call is pending', program: 'tools.hang({}); for (;;) {}', expect: { kind: 'timeout', message: COMPUTE } },
  {
    name: 'for (;;) awaiting a sub-call that never settles',
    program: 'for (;;) { await tools.hang({}) }',
    limits: QUICK_WALL,
    expect: { kind: 'timeout', message: 'wall time limit of 300 ms exceeded (1 tool call still running)' },
  },
  { name: 'B20 while(true){}', program: B20[0] as string, expect: { kind: 'timeout', message: COMPUTE } },
  { name: 'B20 a loop inside a promise job', program: B20[1] as string, expect: { kind: 'timeout', message: COMPUTE } },
  {
    name: 'B20 setTimeout rescheduling itself, the program returning at once (the timer is cancelled and named)',
    program: B20[3] as string,
    expect: { value: undefined },
    check: (out) => expect(out.notes).toEqual(['note: the setTimeout timer 1 (0 ms, callback f) had not fired when the program ended: it was cancelled']),
  },
  {
    name: 'B20 setTimeout rescheduling itself while the program waits (ends at the wall limit)',
    program: `await new Promise(() => { ${B20[3] as string} })`,
    limits: QUICK_WALL,
    expect: { kind: 'timeout', message: 'wall time limit of 300 ms exceeded' },
  },
  {
    name: 'microtask loop Promise.resolve().then(function f(){ return Promise.resolve().then(f) })',
    program: 'Promise.resolve().then(function f(){ return Promise.resolve().then(f) })',
    expect: { kind: 'timeout', message: COMPUTE },
  },
  {
    name: 'async recursion through await',
    program: 'async function f() { await null; return f() }\nreturn f()',
    limits: { memoryBytes: 64 * 1024 * 1024 },
    expect: { kind: 'timeout', message: COMPUTE },
  },
  { name: 'synchronous async recursion', program: 'async function f(n) { return f(n + 1) }\nreturn await f(0)', expect: { kind: 'exception', message: 'InternalError: stack overflow' } },
  { name: 'deep sync recursion', program: 'function f(n) { return f(n + 1) + 1 }\nreturn f(0)', expect: { kind: 'exception', message: 'InternalError: stack overflow' } },
  {
    name: 'recursion through native toString (host stack)',
    program: 'const o: any = {}; o.toString = () => `${o}`; return String(o)',
    expect: { kind: 'exception', message: 'InternalError: stack overflow' },
  },
  { name: 'catastrophic regex backtracking', program: 'return /(a+)+b/.test("a".repeat(40))', expect: { kind: 'timeout', message: COMPUTE } },
  { name: 'Array(2**32-1).join (built-in that never polls)', program: 'return Array(2 ** 32 - 1).join("")', expect: { kind: 'timeout', message: COMPUTE } },
  { name: 'huge BigInt arithmetic', program: 'return (10n ** 1000000n).toString().length', expect: { kind: 'timeout', message: COMPUTE } },
  { name: 'a Proxy trap looping during serialization', program: 'return new Proxy({}, { ownKeys() { for (;;) {} } })', expect: { kind: 'timeout', message: COMPUTE } },
  { name: 'a never-settling promise at top level (stopped at once, not at the wall limit)', program: 'await new Promise(() => {})', limits: { computeMs: 30_000, wallMs: MAX_TIMER_MS }, expect: { kind: 'timeout', message: STALLED_MESSAGE } },

  // Memory.
  { name: 'string doubling (ropes hit the length limit)', program: 'let s = "x"; for (;;) s += s', expect: { kind: 'exception', message: 'InternalError: string too long' } },
  { name: 'string doubling with flattening', program: 'let s = "x"; for (;;) { s += s; s.indexOf("z") }', limits: MEMORY_LIMITS, expect: { kind: 'memory', message: MEMORY } },
  { name: 'array push bomb', program: 'const a = []; for (;;) a.push(a.length)', limits: MEMORY_LIMITS, expect: { kind: 'memory', message: MEMORY } },
  { name: 'typed array bomb', program: 'const a = []; for (;;) a.push(new Float64Array(1 << 16))', limits: MEMORY_LIMITS, expect: { kind: 'memory', message: MEMORY } },
  { name: 'one huge ArrayBuffer', program: 'return new ArrayBuffer(2 ** 30).byteLength', limits: MEMORY_LIMITS, expect: { kind: 'memory', message: MEMORY } },
  { name: 'object key bomb', program: 'const o = {}; for (let i = 0; ; i++) o["k" + i] = i', limits: MEMORY_LIMITS, expect: { kind: 'memory', message: MEMORY } },

  // Output.
  {
    name: 'console.log flood',
    program: 'for (;;) console.log("spam spam spam")',
    // The output limit ends it within a few hundred lines; a generous compute budget keeps a
    // loaded machine (the worker descheduled mid-loop) from reaching the 100 ms limit first.
    limits: { computeMs: 10_000 },
    expect: { kind: 'output-limit', message: 'output limit of 4096 bytes exceeded by printed lines' },
    check: (out) => expect(out.logs.join('\n').length).toBeLessThanOrEqual(4_096),
  },
  { name: 'one enormous console line', program: 'console.log("x".repeat(1 << 20))', limits: MEMORY_LIMITS, expect: { kind: 'output-limit', message: 'output limit of 4096 bytes exceeded by printed lines' } },
  { name: 'huge return value', program: 'return "x".repeat(1 << 20)', limits: MEMORY_LIMITS, expect: { kind: 'output-limit', message: 'output limit of 4096 bytes exceeded: the return value is 1048578 characters of JSON' } },
  {
    name: 'huge thrown message',
    program: 'throw new Error("x".repeat(1 << 20))',
    limits: MEMORY_LIMITS,
    expect: { kind: 'exception', message: `Error: ${'x'.repeat(MAX_MESSAGE_CHARS - 7)}… (truncated)` },
  },

  // Escapes (B19) and host reach.
  { name: 'B19 Array.constructor', program: B19[0] as string, expect: { kind: 'exception', message: "ReferenceError: 'process' is not defined" } },
  { name: 'B19 this.constructor.constructor', program: B19[1] as string, expect: { kind: 'exception', message: "ReferenceError: 'process' is not defined" } },
  { name: 'B19 AsyncFunction constructor', program: B19[2] as string, expect: { kind: 'exception', message: "ReferenceError: 'process' is not defined" } },
  { name: 'B19 tools.read.constructor → globalThis.process', program: B19[3] as string, expect: { value: undefined } },
  { name: 'require', program: 'return require("fs")', expect: { kind: 'exception', message: "ReferenceError: 'require' is not defined" } },
  { name: 'dynamic import()', program: 'return await import("fs")', expect: { kind: 'exception', message: "ReferenceError: could not load module 'fs'" } },
  { name: 'eval reaching for process', program: 'return eval("process")', expect: { kind: 'exception', message: "ReferenceError: 'process' is not defined" } },
  { name: 'indirect eval globalThis', program: 'const g = (0, eval)("this"); return [typeof g.process, typeof g.require, typeof g.Buffer]', expect: { value: ['undefined', 'undefined', 'undefined'] } },
  {
    name: 'walking prototypes of tools and console',
    program: 'return [Object.getPrototypeOf(tools), (console.log as any).constructor("return typeof process")(), Object.getOwnPropertyNames(console.log)]',
    expect: { value: [null, 'undefined', ['length', 'name', 'prototype']] },
  },
  {
    name: 'overwriting intrinsics the prelude uses',
    program: 'JSON.stringify = () => "hacked"; Object.keys = () => []; Array.isArray = () => false; return { a: [1] }',
    expect: { value: { a: [1] } },
  },
  { name: 'breaking out of the function wrapper', program: 'return 1 }); globalThis.injected = (async function () {', expect: { value: undefined } },

  // Forged and odd sub-calls.
  {
    name: 'non-JSON arguments are rejected per call',
    program: [
      'const errors = []',
      'const cyclic: any = {}; cyclic.self = cyclic',
      'for (const bad of [() => 1, cyclic, { n: 1n }, { s: Symbol("s") }, NaN, { get x() { throw new Error("getter") } }]) {',
      '  try { await tools.echo(bad) } catch (e) { errors.push(e.name + ": " + e.message) }',
      '}',
      'errors.push(await tools.echo({ fine: true }))',
      'return errors',
    ].join('\n'),
    expect: {
      value: [
        'TypeError: the argument of tools.echo is not JSON: function at /',
        'TypeError: the argument of tools.echo is not JSON: circular reference at /self',
        'TypeError: the argument of tools.echo is not JSON: bigint at /n',
        'TypeError: the argument of tools.echo is not JSON: symbol at /s',
        'TypeError: the argument of tools.echo is not JSON: NaN at /',
        'TypeError: the argument of tools.echo is not JSON: reading /x threw Error: getter',
        { fine: true },
      ],
    },
  },
  {
    name: 'duplicate sub-calls are separate calls with separate copies',
    program: 'const p = tools.echo({ v: 1 }); const [a, b] = await Promise.all([p, p]); const c = await tools.echo({ v: 1 }); c.v = 2; return [a === b, a.v, c.v]',
    expect: { value: [true, 1, 2] },
    check: () => expect(hostCalls).toBe(2),
  },
  {
    name: 'sub-call storm past maxSubCalls',
    program: 'await Promise.all(Array.from({ length: 300 }, () => tools.noop()))',
    expect: { kind: 'exception', message: 'RangeError: sub-call limit reached: a run may make at most 100 tool calls (tools.noop was not called)' },
  },
  {
    name: 'a tool call from the return value\'s toJSON (the program has finished) is never forwarded',
    program: 'const seen: string[] = []; return { toJSON() { tools.echo({}).catch((e: Error) => seen.push(e.message)); return seen } }',
    expect: { value: [] },
    check: () => expect(hostCalls).toBe(0),
  },
  {
    name: 'calls queued together keep their arguments exactly (astral, separator and delimiter characters)',
    program: 'return await Promise.all([tools.echo({ s: "😀é:1:x" }), tools.echo({ "k:2": "\\u2028" }), tools.echo({})])',
    expect: { value: [{ s: '😀é:1:x' }, { 'k:2': '\u2028' }, {}] },
    check: () => expect(hostCalls).toBe(3),
  },
  {
    name: 'calls ended by the program that made them are never forwarded',
    program: 'tools.echo({ a: 1 }); tools.noop(); return "done"',
    expect: { value: 'done' },
    check: () => expect(hostCalls).toBe(0),
  },
  {
    name: 'intrinsics the prelude uses, replaced before calling tools, change nothing the host receives or counts',
    program: [
      'const bad = () => { throw new Error("tampered") }',
      'JSON.stringify = () => "1:0:99:"; JSON.parse = bad; Object.defineProperty = bad; Object.keys = bad; Reflect.apply = bad',
      'String.prototype.indexOf = bad; String.prototype.slice = bad; String.prototype.split = bad; Array.prototype.join = bad; Array.prototype.push = bad',
      'Number.prototype.toString = bad; Map.prototype.set = bad; WeakSet.prototype.add = bad; (globalThis as any).encodeURIComponent = bad',
      'const calls = [0, 1, 2, 3, 4].map((i) => tools.echo({ i, s: "a:b\u2028" }).then((r: unknown) => r, (e: Error) => e.name + ": " + e.message))',
      'return await Promise.all(calls)',
    ].join('\n'),
    limits: { maxSubCalls: 3 },
    expect: {
      value: [
        { i: 0, s: 'a:b\u2028' },
        { i: 1, s: 'a:b\u2028' },
        { i: 2, s: 'a:b\u2028' },
        'RangeError: sub-call limit reached: a run may make at most 3 tool calls (tools.echo was not called)',
        'RangeError: sub-call limit reached: a run may make at most 3 tool calls (tools.echo was not called)',
      ],
    },
    check: () => expect(hostCalls).toBe(3),
  },
  { name: 'calling a tool that does not exist', program: 'return await (tools as any).nope()', expect: { kind: 'exception', message: 'ToolCallError (nope): Unknown tool "nope". Available tools: echo, hang, noop, read' } },

  // Odd thrown and returned values.
  { name: 'throw null', program: 'throw null', expect: { kind: 'exception', message: 'Uncaught null' } },
  { name: 'throw {a:1}', program: 'throw { a: 1 }', expect: { kind: 'exception', message: 'Uncaught {"a":1}' } },
  { name: 'throw an object whose getter throws', program: 'throw { get message() { throw 1 } }', expect: { kind: 'exception', message: 'Uncaught [object that cannot be printed]' } },
  { name: 'an error whose name getter loops', program: 'const e = new Error("m"); Object.defineProperty(e, "name", { get() { for (;;) {} } }); throw e', expect: { kind: 'timeout', message: COMPUTE } },
  { name: 'Symbol return', program: 'return Symbol("s")', expect: { kind: 'invalid-output', message: 'the return value is not JSON: symbol at /' } },
  { name: 'BigInt return', program: 'return { n: 10n }', expect: { kind: 'invalid-output', message: 'the return value is not JSON: bigint at /n' } },
  { name: 'function return', program: 'return [1, () => 2]', expect: { kind: 'invalid-output', message: 'the return value is not JSON: function at /1' } },
  { name: 'cyclic return', program: 'const o: any = { a: {} }; o.a.back = o; return o', expect: { kind: 'invalid-output', message: 'the return value is not JSON: circular reference at /a/back' } },
  { name: 'getter that throws during serialization', program: 'return { get a() { throw new Error("boom") } }', expect: { kind: 'invalid-output', message: 'the return value is not JSON: reading /a threw Error: boom' } },
]

describe('hostile programs', () => {
  it('covers at least 30 hostile programs', () => {
    expect(cases.length).toBeGreaterThanOrEqual(30)
  })

  it.each(cases)('$name', async (c) => {
    hostCalls = 0
    const out = await runProgram(runtime, c.program, { bindings, limits: { ...QUICK, ...c.limits } })
    if ('kind' in c.expect) {
      expect(out.error?.kind).toBe(c.expect.kind)
      // (An uncaught error names the program line it came from: ` (line N: <source>)`, tested in positions.test.ts; here only that it is the program's.)
      if (typeof c.expect.message === 'string') expect(out.error?.message.replace(/ \(line \d+: [^\n]*\)$/, '')).toBe(c.expect.message)
      else if (c.expect.message !== undefined) expect(out.error?.message).toMatch(c.expect.message)
      expect(out.value).toBeUndefined()
    } else {
      expect(out.error).toBeUndefined()
      expect(out.value).toEqual(c.expect.value)
    }
    c.check?.(out)
    // The host is untouched.
    expect(typeof process.pid).toBe('number')
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    // The next run works.
    const next = await runProgram(runtime, 'return [1 + 1, typeof injected, ({} as any).polluted]')
    expect(next).toMatchObject({ value: [2, 'undefined', null], logs: [] })
  })
})

describe('isolation between runs and from the host', () => {
  it('keeps prototype pollution inside its own run', async () => {
    const first = await runProgram(runtime, 'Object.prototype.polluted = "yes"; Array.prototype.push = null; (globalThis as any).JSON = null; return ({} as any).polluted')
    expect(first.value).toBe('yes')
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(typeof [].push).toBe('function')
    const second = await runProgram(runtime, 'return [({} as any).polluted === undefined, typeof [].push, typeof JSON.stringify]')
    expect(second.value).toEqual([true, 'function', 'function'])
  })

  it('B20: a sub-call loop is stopped, the host stays responsive and no call follows termination', async () => {
    let ticks = 0
    const interval = setInterval(() => ticks++, 10)
    hostCalls = 0
    try {
      const out = await runProgram(runtime, B20[2] as string, { bindings, limits: { computeMs: 10_000, wallMs: 300, maxSubCalls: 1_000_000 } })
      expect(out.error?.kind).toBe('timeout')
      // The message may add how many tool calls were still running at that moment.
      expect(out.error?.message).toMatch(/^wall time limit of 300 ms exceeded( \(\d+ tool calls? still running\))?$/)
      expect(ticks).toBeGreaterThanOrEqual(5)
      const callsAtSettlement = hostCalls
      expect(callsAtSettlement).toBeGreaterThan(10)
      await sleep(30)
      expect(hostCalls).toBe(callsAtSettlement)
    } finally {
      clearInterval(interval)
    }
  })

  it('runs concurrent programs in separate instances', async () => {
    const outs = await Promise.all([
      runProgram(runtime, 'globalThis.mark = "a"; await tools.noop(); return globalThis.mark', { bindings }),
      runProgram(runtime, 'globalThis.mark = "b"; await tools.noop(); return globalThis.mark', { bindings }),
      runProgram(runtime, 'const a = []; for (;;) a.push(new ArrayBuffer(1 << 20))', { limits: MEMORY_LIMITS }),
    ])
    expect(outs.map((o) => o.value ?? o.error?.kind)).toEqual(['a', 'b', 'memory'])
  })
})
