/**
 * How a run ends when the program leaves work behind (issue: "rejections nobody handled are not
 * success", "a run that can never progress ends now"), on both engine placements:
 *
 * - a promise rejection still unhandled when the program ends fails the run as `exception` with
 *   `Uncaught (in promise) <description>`, whatever made the rejection;
 * - a program whose main promise is pending while no job is queued and no host call is in
 *   flight is stopped at once as `timeout` with {@link STALLED_MESSAGE}, never while a sub-call
 *   is still running.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_TIMER_MS, type JsonValue } from '@deepseek-ai/dsh-tools'
import { STALLED_MESSAGE } from '../src/runtime/execution'
import { createQuickJsRuntime } from '../src/runtime/quickjs'
import type { HostFunction } from '../src/runtime/types'
import { SMALL_LIMITS, failingTool, plain, runProgram, sleep } from './runtime-helpers'

const runtimes = { worker: createQuickJsRuntime(), main: createQuickJsRuntime({ thread: 'main' }) }
beforeAll(async () => {
  await Promise.all(Object.values(runtimes).map((r) => r.warmUp(SMALL_LIMITS.memoryBytes)))
})
afterAll(() => {
  for (const r of Object.values(runtimes)) r.dispose()
})

/** The largest wall budget: a test that stalls only finishes because the run ends at once. */
const NO_WALL = { computeMs: 30_000, wallMs: MAX_TIMER_MS } as const

const echo: HostFunction = async (arg) => arg

const unhandled = (message: string) => ({ kind: 'exception', message: `Uncaught (in promise) ${message}` })

describe.each(Object.entries(runtimes))('unhandled rejections fail the run (%s)', (_placement, runtime) => {
  it.each([
    [
      'a throw in a then callback',
      "Promise.resolve().then(() => { notDefinedAnywhere() }); console.log('after'); return 'done'",
      "ReferenceError: 'notDefinedAnywhere' is not defined (line 1: Promise.resolve().then(() => { notDefinedAnywhere() }); console.log('after'); return 'done')",
    ],
    ['an un-awaited async function that throws', "async function f() { throw new TypeError('bad input') }\nf()\nconsole.log('after')\nreturn 1", 'TypeError: bad input (line 1: async function f() { throw new TypeError(\'bad input\') })'],
    [
      'an un-awaited async arrow that rejects after an await',
      "const late = async () => { await null; await null; throw new RangeError('late') }\nlate()\nconsole.log('after')\nreturn 1",
      'RangeError: late (line 1: const late = async () => { await null; await null; throw new RangeError(\'late\') })',
    ],
    // (A call still unsettled when the program returns is never forwarded, so these programs await something else first.)
    ['an un-awaited failing tool call', "tools.fail({})\nawait tools.echo({ n: 0 })\nconsole.log('after')\nreturn 1", 'ToolCallError (fail): disk full'],
    [
      'an un-awaited tool call whose then callback throws',
      "tools.echo({ n: 1 }).then((r) => { throw new Error('got ' + r.n) })\nawait tools.echo({ n: 0 })\nconsole.log('after')\nreturn 1",
      'Error: got 1 (line 1: tools.echo({ n: 1 }).then((r) => { throw new Error(\'got \' + r.n) }))',
    ],
    ['an un-awaited unknown tool', "tools.nope({})\nconsole.log('after')\nreturn 1", 'ToolCallError (nope): Unknown tool "nope". Available tools: echo, fail (line 1: tools.nope({}))'],
    ['a promise rejected by its executor', "new Promise((_, reject) => reject(new Error('no')))\nconsole.log('after')\nreturn 1", 'Error: no (line 1: new Promise((_, reject) => reject(new Error(\'no\'))))'],
    ['a promise whose executor throws', "new Promise(() => { throw new Error('thrown') })\nconsole.log('after')\nreturn 1", 'Error: thrown (line 1: new Promise(() => { throw new Error(\'thrown\') }))'],
    ['Promise.reject left alone', "Promise.reject(new Error('alone'))\nconsole.log('after')\nreturn 1", 'Error: alone (line 1: Promise.reject(new Error(\'alone\')))'],
    ['an async function returning a rejected promise', "const f = async () => Promise.reject(new Error('adopted'))\nf()\nconsole.log('after')\nreturn 1", 'Error: adopted (line 1: const f = async () => Promise.reject(new Error(\'adopted\')))'],
    ['a then callback returning a rejected promise', "Promise.resolve().then(() => Promise.reject(new Error('chained')))\nconsole.log('after')\nreturn 1", 'Error: chained (line 1: Promise.resolve().then(() => Promise.reject(new Error(\'chained\'))))'],
    ['a throw in a finally callback', "Promise.resolve().finally(() => { throw new Error('in finally') })\nconsole.log('after')\nreturn 1", 'Error: in finally (line 1: Promise.resolve().finally(() => { throw new Error(\'in finally\') }))'],
    ['a rejected Promise.all', "Promise.all([Promise.resolve(1), Promise.reject(new Error('one of all'))])\nconsole.log('after')\nreturn 1", 'Error: one of all (line 1: Promise.all([Promise.resolve(1), Promise.reject(new Error(\'one of all\'))]))'],
    ['a non-Error rejection value', "Promise.reject('plain text')\nconsole.log('after')\nreturn 1", 'plain text'],
    ['an object rejection value', "Promise.reject({ code: 7 })\nconsole.log('after')\nreturn 1", '{"code":7}'],
    ['a rejection in a subclass of Promise', "class P extends Promise {}\nnew P((_, reject) => reject(new Error('sub')))\nconsole.log('after')\nreturn 1", 'Error: sub (line 2: new P((_, reject) => reject(new Error(\'sub\'))))'],
  ] as const)('%s', async (_kind, program, message) => {
    const out = await runProgram(runtime, program, { bindings: { echo, fail: failingTool } })
    expect(plain(out)).toEqual({ logs: ['after'], error: unhandled(message) })
  })

  it('reports the first of several unhandled rejections with a count', async () => {
    const program = "Promise.reject(new Error('first'))\nPromise.reject(new Error('second'))\nPromise.reject(new Error('third'))\nreturn 1"
    expect(plain(await runProgram(runtime, program))).toEqual({ logs: [], error: unhandled("Error: first (line 1: Promise.reject(new Error('first'))) (and 2 more unhandled rejections)") })
  })

  it("reports the program's own exception rather than an unhandled rejection", async () => {
    const out = await runProgram(runtime, "Promise.reject(new Error('ignored'))\nthrow new Error('main')")
    expect(plain(out)).toEqual({ logs: [], error: { kind: 'exception', message: 'Error: main (line 2: throw new Error(\'main\'))' } })
  })

  it.each([
    ['awaited in try/catch', "const p = Promise.reject(new Error('x'))\ntry { await p } catch (e) { console.log('caught', e.message) }\nreturn 1", ['caught x']],
    ['handled later in the run', "const p = Promise.reject(new Error('x'))\nawait null\nawait null\np.catch((e) => console.log('late catch', e.message))\nawait null\nreturn 1", ['late catch x']],
    ['caught with catch', "tools.fail({}).catch((e) => console.log('caught', e.toolName))\nawait tools.echo({ n: 1 })\nreturn 1", ['caught fail']],
    [
      'Promise.all with two rejections, caught',
      "try { await Promise.all([Promise.reject(new Error('a')), Promise.reject(new Error('b'))]) } catch (e) { console.log(e.message) }\nreturn 1",
      ['a'],
    ],
    ['Promise.allSettled', "const r = await Promise.allSettled([tools.fail({}), tools.echo({ n: 2 })])\nconsole.log(r.map((x) => x.status).join())\nreturn 1", ['rejected,fulfilled']],
    ['Promise.race with a later rejection', "const r = await Promise.race([tools.echo({ n: 3 }), new Promise((_, reject) => reject(new Error('lost')))]).catch((e) => e.message)\nconsole.log(String(r))\nreturn 1", ['lost']],
    ['Promise.any', "const r = await Promise.any([Promise.reject(new Error('a')), tools.echo({ n: 4 })])\nconsole.log(r.n)\nreturn 1", ['4']],
    ['a finally chain ending in catch', "await Promise.reject(new Error('f')).finally(() => console.log('finally')).catch((e) => console.log('caught', e.message))\nreturn 1", ['finally', 'caught f']],
    [
      'an async generator that throws inside for await',
      "async function* g() { yield 1; throw new Error('gen') }\ntry { for await (const x of g()) console.log(x) } catch (e) { console.log('caught', e.message) }\nreturn 1",
      ['1', 'caught gen'],
    ],
    ['an un-awaited async function that succeeds', "async function f() { await null; console.log('ran') }\nf()\nawait null\nawait null\nawait null\nreturn 1", ['ran']],
  ] as const)('does not report a rejection that was handled: %s', async (kind, program, logs) => {
    // (The race's tool call lost and the program returned before it was forwarded: it is named as cancelled.)
    const notes = kind === 'Promise.race with a later rejection' ? { notes: ['note: the call tools.echo(…) was never awaited and the program ended first: it was cancelled before it started'] } : {}
    expect(plain(await runProgram(runtime, program, { bindings: { echo, fail: failingTool } }))).toEqual({ value: 1, logs, ...notes })
  })

  it('keeps Promise semantics a program can observe', async () => {
    const program = [
      'const a = (async () => 1)()',
      'class P extends Promise {}',
      'const p = new P((r) => r(2))',
      'return {',
      '  instance: a instanceof Promise, ctor: a.constructor === Promise, name: Promise.name, derived: Promise.resolve(1).then(() => 0) instanceof Promise && Promise.resolve(1).then(() => 0).constructor === Promise,',
      '  sub: p instanceof P && p instanceof Promise && p.then(() => 0) instanceof P,',
      '  values: await Promise.all([a, p, Promise.resolve(3), tools.echo({ n: 4 })]),',
      "  noNew: (() => { try { (Promise as any)(() => {}); return 'no error' } catch (e) { return e.name } })(),",
      '}',
    ].join('\n')
    expect(plain(await runProgram(runtime, program, { bindings: { echo } }))).toEqual({
      value: { instance: true, ctor: true, name: 'Promise', derived: true, sub: true, values: [1, 2, 3, { n: 4 }], noNew: 'TypeError' },
      logs: [],
    })
  })
})

describe.each(Object.entries(runtimes))('a run that can never progress ends at once (%s)', (_placement, runtime) => {
  it.each([
    ['a never-settling promise', "console.log('before')\nawait new Promise(() => {})"],
    ['a never-resolved promise chain', "console.log('before')\nconst never = new Promise(() => {})\nawait never.then((x) => x).then((y) => y)\nreturn 1"],
    ['async functions awaiting a promise nobody resolves', "console.log('before')\nasync function wait() { await new Promise(() => {}) }\nawait Promise.all([wait(), wait()])"],
    ['a resolver kept but never called', "console.log('before')\nlet resolveLater\nawait new Promise((r) => { resolveLater = r })"],
  ] as const)('%s', async (_kind, program) => {
    expect(plain(await runProgram(runtime, program, { limits: NO_WALL }))).toEqual({ logs: ['before'], error: { kind: 'timeout', message: STALLED_MESSAGE } })
  })

  it('is not ended while a sub-call is in flight, even when it waits', async () => {
    const calls: JsonValue[] = []
    const slow: HostFunction = async (arg) => {
      calls.push(arg)
      await sleep(150)
      return 'slept'
    }
    const out = await runProgram(runtime, 'const never = new Promise(() => {})\nreturn await Promise.race([never, tools.slow({ ms: 150 })])', {
      bindings: { slow },
      limits: NO_WALL,
    })
    expect(plain(out)).toEqual({ value: 'slept', logs: [] })
    expect(calls).toEqual([{ ms: 150 }])
  })

  it('ends once the last sub-call has settled and nothing else can', async () => {
    const order: string[] = []
    const slow: HostFunction = async () => {
      order.push('started')
      await sleep(100)
      order.push('settled')
      return 'slept'
    }
    const out = await runProgram(runtime, "tools.slow({}).then((r) => console.log('late', r))\nawait new Promise(() => {})", {
      bindings: { slow },
      limits: NO_WALL,
    })
    expect(plain(out)).toEqual({ logs: ['late slept'], error: { kind: 'timeout', message: STALLED_MESSAGE } })
    expect(order).toEqual(['started', 'settled'])
  })
})
