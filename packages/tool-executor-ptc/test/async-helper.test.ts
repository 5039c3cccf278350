/**
 * The prelude's `__async` (esbuild's helper for lowered `async` functions, defined once in the
 * sandbox instead of in every program, see `runtime/async-helper.ts`): which programs lose their
 * copy, and that programs behave as with esbuild's own helper — awaits of tool calls, plain
 * values, rejections and thenables, nested async functions, unhandled rejections, a program that
 * replaces `Promise.prototype.then` or names `__async`, and the global's attributes.
 */
import { describe, expect, it } from 'vitest'
import { dropAsyncHelper, ESBUILD_ASYNC_HELPER } from '../src/runtime/async-helper'
import { PROGRAM_FUNCTION, stripProgram } from '../src/strip'
import { addTool, failingTool, mainThreadRuntime, plain, runProgram } from './runtime-helpers'

function stripped(source: string): string {
  const result = stripProgram(source)
  if ('error' in result) throw new Error(result.error.message)
  return result.code
}

describe('dropAsyncHelper', () => {
  it("removes esbuild's helper when the program begins with it", () => {
    const code = stripped('const r = await f()\nreturn r')
    expect(code.startsWith(ESBUILD_ASYNC_HELPER)).toBe(true)
    expect(dropAsyncHelper(code)).toBe(code.slice(ESBUILD_ASYNC_HELPER.length))
    expect(dropAsyncHelper(code).startsWith(`(function ${PROGRAM_FUNCTION}() {`)).toBe(true)
  })

  it('keeps the code when another helper comes first, the helper is renamed or differs', () => {
    const withSymbols = stripped('for await (const x of [1]) {}\nreturn 1')
    expect(withSymbols.indexOf(ESBUILD_ASYNC_HELPER)).toBeGreaterThan(0)
    expect(dropAsyncHelper(withSymbols)).toBe(withSymbols)
    const renamed = stripped('return typeof __async')
    expect(renamed.startsWith('var __async2 = ')).toBe(true)
    expect(dropAsyncHelper(renamed)).toBe(renamed)
    const changed = stripped('return 1').replace('step(generator.next(value));', 'step(generator.next(value)); ')
    expect(dropAsyncHelper(changed)).toBe(changed)
  })
})

describe('programs with the prelude\'s __async', () => {
  const runtime = mainThreadRuntime()
  const bindings = { add: addTool, fail: failingTool }

  it('runs awaits of tool calls, values, rejections and thenables in the same order', async () => {
    const program = [
      'const order = []',
      'const inner = async (x) => { order.push("inner " + x); const r = await tools.add({ a: x, b: 1 }); order.push("inner done " + x); return r.sum }',
      'Promise.resolve().then(() => order.push("job 1")).then(() => order.push("job 2")).then(() => order.push("job 3"))',
      'const v = await 5',
      'order.push("after value " + v)',
      'const t = await { then(resolve) { order.push("thenable"); resolve(7) } }',
      'order.push("after thenable " + t)',
      'try { await tools.fail({}) } catch (e) { order.push(String(e)) }',
      'try { await Promise.reject(new RangeError("no")) } catch (e) { order.push(String(e)) }',
      'const sums = await Promise.all([inner(1), inner(2)])',
      'order.push("sums " + sums.join())',
      'return order',
    ].join('\n')
    const out = await runProgram(runtime, program, { bindings })
    expect(plain(out)).toEqual({
      logs: [],
      value: [
        'job 1',
        'after value 5',
        'job 2',
        'thenable',
        'job 3',
        'after thenable 7',
        'ToolCallError: disk full',
        'RangeError: no',
        'inner 1',
        'inner 2',
        'inner done 1',
        'inner done 2',
        'sums 2,3',
      ],
    })
  })

  it('reports a rejection nobody awaited, and not one that was awaited', async () => {
    const unhandled = await runProgram(runtime, 'const p = tools.fail({})\nawait tools.add({ a: 1, b: 2 })\nreturn 1', { bindings })
    expect(unhandled.error).toEqual({ kind: 'exception', message: 'Uncaught (in promise) ToolCallError (fail): disk full' })
    const awaited = await runProgram(runtime, 'const p = tools.fail({})\ntry { await p } catch { }\nconst f = async () => { throw new TypeError("late") }\ntry { await f() } catch (e) { return String(e) }', { bindings })
    expect(plain(awaited)).toEqual({ logs: [], value: 'TypeError: late' })
    const thrown = await runProgram(runtime, 'const f = async () => { await 1; throw new TypeError("lost") }\nf()\nawait tools.add({ a: 1, b: 2 })\nreturn 1', { bindings })
    expect(thrown.error).toEqual({ kind: 'exception', message: 'Uncaught (in promise) TypeError: lost (line 1: const f = async () => { await 1; throw new TypeError("lost") })' })
  })

  it("calls a program's own then() on await, as esbuild's helper did", async () => {
    const program = [
      'const seen = []',
      'const then = Promise.prototype.then',
      'Promise.prototype.then = function (a, b) { seen.push("then"); return then.call(this, a, b) }',
      'const r = await tools.add({ a: 1, b: 2 })',
      'Promise.prototype.then = then',
      'await tools.add({ a: 1, b: 2 })',
      'return [r.sum, seen.length > 0]',
    ].join('\n')
    expect(plain(await runProgram(runtime, program, { bindings }))).toEqual({ logs: [], value: [3, true] })
  })

  it('has the global of a script-level var only where the program has its helper; a program naming __async keeps its own', async () => {
    const described = await runProgram(runtime, 'const d = Object.getOwnPropertyDescriptor(globalThis, "__async")\nreturn [typeof d.value, d.writable, d.enumerable, d.configurable]')
    expect(described.value).toEqual(['function', true, true, false])
    const named = await runProgram(runtime, 'const keep = __async\nreturn 1')
    expect(plain(named)).toEqual({ logs: [], error: { kind: 'exception', message: "ReferenceError: '__async' is not defined (line 1: const keep = __async)" } })
    const keys = await runProgram(runtime, 'for await (const x of [1]) {}\nreturn Object.keys(globalThis).filter((k) => k.startsWith("__"))')
    expect(keys.value).toEqual(['__knownSymbol', '__async', '__forAwait'])
  })
})
