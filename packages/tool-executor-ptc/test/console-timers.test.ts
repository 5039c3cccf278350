/**
 * What a program written for Node or a browser expects of its environment (issue 34, items
 * 3–6), on both engine placements: the console's methods and their exact texts, timers within
 * the run's wall budget, uncaught errors naming the model's own line through the TypeScript
 * stripping, and notes on work the program left pending.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_TIMER_MS } from '@deepseek-ai/dsh-tools'
import { STALLED_MESSAGE } from '../src/runtime/execution'
import { createQuickJsRuntime } from '../src/runtime/quickjs'
import type { HostFunction } from '../src/runtime/types'
import { SMALL_LIMITS, plain, runProgram } from './runtime-helpers'

const runtimes = { worker: createQuickJsRuntime(), main: createQuickJsRuntime({ thread: 'main' }) }
beforeAll(async () => {
  await Promise.all(Object.values(runtimes).map((r) => r.warmUp(SMALL_LIMITS.memoryBytes)))
})
afterAll(() => {
  for (const r of Object.values(runtimes)) r.dispose()
})

const echo: HostFunction = async (arg) => arg
const slow: HostFunction = () => new Promise((resolve) => setTimeout(() => resolve('slow done'), 150))

describe.each(Object.entries(runtimes))('console (%s)', (_placement, runtime) => {
  it('prints what each method prints, in order', async () => {
    const program = [
      'console.dir({ a: 1 })',
      'console.dir("text")',
      'console.info("info", 1); console.warn("warn"); console.error("error"); console.debug("debug")',
      'console.log("%s has %d items (%i%%) %j", "list", 3.5, 42.9, { k: [1] }, "extra")',
      'console.group("Group")',
      'console.log("inside\\nsecond line")',
      'console.group()',
      'console.log("deeper")',
      'console.groupEnd()',
      'console.groupEnd()',
      'console.log("outside")',
      'console.count(); console.count(); console.count("x"); console.countReset("nope"); console.countReset(); console.count()',
      'console.assert(true, "never"); console.assert(false); console.assert(false, "value was %d", 5)',
      'console.timeEnd("missing"); console.time("t"); console.time("t")',
      'console.clear(); console.profile(); console.profileEnd(); console.timeStamp()',
    ].join('\n')
    const out = await runProgram(runtime, program)
    expect(plain(out)).toEqual({
      logs: [
        '{"a":1}',
        '"text"',
        'info 1',
        'warn',
        'error',
        'debug',
        'list has 3.5 items (42%) {"k":[1]} extra',
        'Group',
        '  inside\n  second line',
        '    deeper',
        'outside',
        'default: 1',
        'default: 2',
        'x: 1',
        "Warning: Count for 'nope' does not exist",
        'default: 1',
        'Assertion failed',
        'Assertion failed: value was 5',
        "Warning: No such label 'missing' for console.timeEnd()",
        "Warning: Label 't' already exists for console.time()",
      ],
    })
  })

  it('table draws a text table; data that is not an object prints as log does', async () => {
    const out = await runProgram(runtime, 'console.table([{ a: 1, b: "x" }, { a: 22, c: true }]); console.table({ r1: { x: 1 } }, ["x", "y"]); console.table([1, "two"]); console.table("plain")')
    expect(out.logs).toEqual([
      ['┌─────────┬────┬─────┬──────┐', '│ (index) │ a  │ b   │ c    │', '├─────────┼────┼─────┼──────┤', '│ 0       │ 1  │ "x" │      │', '│ 1       │ 22 │     │ true │', '└─────────┴────┴─────┴──────┘'].join('\n'),
      ['┌─────────┬───┬───┐', '│ (index) │ x │ y │', '├─────────┼───┼───┤', '│ r1      │ 1 │   │', '└─────────┴───┴───┘'].join('\n'),
      ['┌─────────┬────────┐', '│ (index) │ Values │', '├─────────┼────────┤', '│ 0       │ 1      │', '│ 1       │ "two"  │', '└─────────┴────────┘'].join('\n'),
      'plain',
    ])
  })

  it('time, timeLog and timeEnd print the elapsed time on the run clock', async () => {
    const out = await runProgram(runtime, 'console.time(); console.time("step"); await new Promise((r) => setTimeout(r, 20)); console.timeLog("step", "half", 1); console.timeEnd("step"); console.timeEnd()')
    expect(out.logs).toHaveLength(3)
    expect(out.logs[0]).toMatch(/^step: \d+\.\d{3}ms half 1$/)
    expect(out.logs[1]).toMatch(/^step: \d+\.\d{3}ms$/)
    expect(out.logs[2]).toMatch(/^default: \d+\.\d{3}ms$/)
    expect(Number(/: (\d+\.\d+)ms/.exec(out.logs[1]!)![1])).toBeGreaterThanOrEqual(19)
  })

  it('trace prints its data and the program lines it was called from', async () => {
    const out = await runProgram(runtime, 'function inner(n: number): void {\n  console.trace("at", n)\n}\n\ninner(3)')
    expect(out.logs).toEqual(['Trace: at 3\n    at line 2: console.trace("at", n)\n    at line 5: inner(3)'])
  })

  it('a method the console does not have fails naming it and the methods it has', async () => {
    const out = await runProgram(runtime, 'console.log("before")\nconsole.exception("x")')
    expect(plain(out)).toEqual({
      logs: ['before'],
      error: {
        kind: 'exception',
        message:
          'TypeError: console.exception is not a function (the console has: assert, clear, count, countReset, debug, dir, dirxml, error, group, groupCollapsed, groupEnd, info, log, profile, profileEnd, table, time, timeEnd, timeLog, timeStamp, trace, warn) (line 2: console.exception("x"))',
      },
    })
    const typeOf = await runProgram(runtime, 'return [typeof console.log, typeof console.table, "then" in console, typeof (console as any).then]')
    expect(typeOf.value).toEqual(['function', 'function', false, 'undefined'])
  })
})

describe.each(Object.entries(runtimes))('timers (%s)', (_placement, runtime) => {
  it('setTimeout, setInterval, setImmediate and queueMicrotask run in order, with their arguments', async () => {
    const program = [
      'const seen: string[] = []',
      'setTimeout((a: string, b: number) => seen.push(`timeout ${a} ${b}`), 30, "x", 2)',
      'setImmediate(() => seen.push("immediate"))',
      'queueMicrotask(() => seen.push("microtask"))',
      'let n = 0',
      'const id = setInterval(() => { n++; seen.push(`tick ${n}`); if (n === 3) clearInterval(id) }, 5)',
      'const cleared = setTimeout(() => seen.push("never"), 1)',
      'clearTimeout(cleared)',
      'seen.push("sync")',
      'await new Promise((resolve) => setTimeout(resolve, 60))',
      'return seen',
    ].join('\n')
    const out = await runProgram(runtime, program)
    expect(plain(out)).toEqual({ value: ['sync', 'microtask', 'immediate', 'tick 1', 'tick 2', 'tick 3', 'timeout x 2'], logs: [] })
  })

  it('a timer fires while a sub-call is in flight', async () => {
    const out = await runProgram(runtime, 'const seen: string[] = []\nsetTimeout(() => seen.push("timer"), 10)\nseen.push(await tools.slow({}))\nreturn seen', { bindings: { slow } })
    expect(out.value).toEqual(['timer', 'slow done'])
  })

  it('a program waiting on a timer is not stalled; one waiting on nothing is', async () => {
    const waiting = await runProgram(runtime, 'await new Promise((r) => setTimeout(r, 50)); return "woke"', { limits: { computeMs: 30_000, wallMs: MAX_TIMER_MS } })
    expect(plain(waiting)).toEqual({ value: 'woke', logs: [] })
    const cleared = await runProgram(runtime, 'await new Promise((r) => { const t = setTimeout(r, 50); clearTimeout(t) })', { limits: { computeMs: 30_000, wallMs: MAX_TIMER_MS } })
    expect(plain(cleared)).toEqual({ logs: [], error: { kind: 'timeout', message: STALLED_MESSAGE } })
  })

  it('timers count against the wall budget: an interval that is never cleared ends the run at wallMs', async () => {
    const out = await runProgram(runtime, 'let n = 0\nsetInterval(() => { n++ }, 10)\nawait new Promise(() => {})', { limits: { computeMs: 30_000, wallMs: 300 } })
    expect(plain(out)).toEqual({ logs: [], error: { kind: 'timeout', message: 'wall time limit of 300 ms exceeded' } })
  })

  it('an exception in a timer callback fails the run naming its line; in a microtask, when the program ends', async () => {
    const timer = await runProgram(runtime, 'setTimeout(() => {\n  const o: any = null\n  o.x\n}, 5)\nawait new Promise((r) => setTimeout(r, 1000))')
    expect(plain(timer)).toEqual({ logs: [], error: { kind: 'exception', message: "Uncaught TypeError: cannot read property 'x' of null (line 3: o.x)" } })
    const micro = await runProgram(runtime, 'queueMicrotask(() => { throw new RangeError("in a job") })\nawait null\nreturn 1')
    expect(plain(micro)).toEqual({ logs: [], error: { kind: 'exception', message: 'Uncaught RangeError: in a job (line 1: queueMicrotask(() => { throw new RangeError("in a job") }))' } })
  })

  it('a callback that is not a function throws a TypeError naming the function', async () => {
    const out = await runProgram(runtime, 'try { setTimeout("code" as any, 1) } catch (e) { console.log(String(e)) }\ntry { queueMicrotask(null as any) } catch (e) { console.log(String(e)) }')
    expect(out.logs).toEqual(['TypeError: setTimeout: the callback must be a function, got string', 'TypeError: queueMicrotask: the callback must be a function, got null'])
  })
})

describe.each(Object.entries(runtimes))('where did it fail (%s)', (_placement, runtime) => {
  it.each([
    ['a property of null, after a blank line', 'const o = null\n\nconst x = o.field', "TypeError: cannot read property 'field' of null (line 3: const x = o.field)"],
    [
      'through the TypeScript stripping (types, an interface and an enum take lines that are gone)',
      'interface Row {\n  id: string\n  total: number\n}\nenum Kind { A, B }\nconst rows: Row[] = [{ id: "a", total: 1 }]\nconst pick = (r: Row): number => (r as any).missing.total\n\nreturn rows.map(pick)',
      "TypeError: cannot read property 'total' of undefined (line 7: const pick = (r: Row): number => (r as any).missing.total)",
    ],
    ['in a function called after an await', 'async function load(): Promise<void> {\n  await tools.echo({})\n  throw new Error("after await")\n}\nawait load()', 'Error: after await (line 3: throw new Error("after await"))'],
    ['an unhandled rejection', 'const late = async () => { throw new RangeError("late") }\nlate()\nreturn 1', 'Uncaught (in promise) RangeError: late (line 1: const late = async () => { throw new RangeError("late") })'],
    ['a thrown value that is not an error names no line', 'throw "plain"', "Uncaught plain"],
  ] as const)('%s', async (_kind, program, message) => {
    const out = await runProgram(runtime, program, { bindings: { echo } })
    expect(plain(out)).toEqual({ logs: [], error: { kind: 'exception', message } })
  })

  it('a caught error keeps its own stack; String(e) has no line', async () => {
    const out = await runProgram(runtime, 'try { null!.x } catch (e) { return String(e) }')
    expect(out.value).toBe("TypeError: cannot read property 'x' of null")
  })
})

describe.each(Object.entries(runtimes))('work left pending is named (%s)', (_placement, runtime) => {
  it('calls not awaited, calls still running and timers that had not fired', async () => {
    const program = [
      'tools.slow({})',
      'await tools.echo({})',
      'tools.echo({ never: true })',
      'setTimeout(function poll() {}, 500)',
      'setInterval(() => {}, 100)',
      'return "returned"',
    ].join('\n')
    const out = await runProgram(runtime, program, { bindings: { echo, slow } })
    expect(plain(out)).toEqual({
      value: 'returned',
      logs: [],
      notes: [
        'note: the call tools.slow(…) was still running when the program ended: it was cancelled',
        'note: the call tools.echo(…) was never awaited and the program ended first: it was cancelled before it started',
        'note: the setTimeout timer 1 (500 ms, callback poll) had not fired when the program ended: it was cancelled',
        'note: the setInterval timer 2 (every 100 ms) was still active when the program ended: it was cancelled',
      ],
    })
  })

  it('also when the program throws; at most ten items, then a count', async () => {
    const out = await runProgram(runtime, 'for (let i = 0; i < 12; i++) setTimeout(() => {}, 1000)\nthrow new Error("stop")')
    expect(plain(out)).toEqual({
      logs: [],
      error: { kind: 'exception', message: 'Error: stop (line 2: throw new Error("stop"))' },
      notes: [
        ...Array.from({ length: 10 }, (_, i) => `note: the setTimeout timer ${i + 1} (1000 ms) had not fired when the program ended: it was cancelled`),
        'note: … and 2 more pending items were cancelled',
      ],
    })
  })
})
