/**
 * How a Python run ends when the program leaves work behind — the TypeScript runtime's contract
 * (`Uncaught (in promise) …`, a run that can never progress ends at once), in Python's terms:
 *
 * - a task or future of the program whose exception nobody retrieved (awaited, `result()`,
 *   `exception()`, `gather`) by the time the program ends fails the run as `exception` with
 *   `Task exception was never retrieved: <Type>: <message> (line …)` (`Future …` for a plain
 *   future), the first one named and the rest counted;
 * - a program waiting while no loop callback is scheduled (no ready task, no `asyncio.sleep`
 *   timer) and no tool call is pending is stopped at once as `timeout` with the PTC executor's
 *   `STALLED_MESSAGE`, never while a tool call is still running.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { JsonValue } from '@deepseek-ai/dsh-tools'
import { STALLED_MESSAGE, type HostFunction } from '@deepseek-ai/dsh-tool-executor-ptc'
import { createPythonRuntime } from '../src/index'
import { BOOT_MS, NO_WALL, plain, runPython } from './helpers'

const runtime = createPythonRuntime()
beforeAll(() => runtime.warmUp(), BOOT_MS)
afterAll(() => runtime.dispose())

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
const failing: HostFunction = async () => {
  throw { name: 'ToolCallError', toolName: 'fail', message: 'disk full' }
}
const echo: HostFunction = async (arg) => arg
const bindings = { echo, fail: failing }

const unretrieved = (message: string) => ({ kind: 'exception', message })

describe('an exception nobody retrieved fails the run', () => {
  it.each([
    [
      'a task that raises, never awaited',
      'import asyncio\nasync def f():\n    raise ValueError("bad input")\nasyncio.create_task(f())\nawait asyncio.sleep(0)\nprint("after")\nreturn 1',
      'Task exception was never retrieved: ValueError: bad input (line 3: raise ValueError("bad input"))',
    ],
    [
      'a task that raises after awaits',
      'import asyncio\nasync def late():\n    await asyncio.sleep(0)\n    await asyncio.sleep(0)\n    raise RuntimeError("late")\nt = asyncio.create_task(late())\nawait asyncio.sleep(0.01)\nprint("after")\nreturn 1',
      'Task exception was never retrieved: RuntimeError: late (line 5: raise RuntimeError("late"))',
    ],
    [
      'a failing tool call in a task that asyncio.wait waited for (wait does not retrieve)',
      'import asyncio\nt = asyncio.ensure_future(tools.fail())\nawait asyncio.wait([t])\nprint("after")\nreturn 1',
      'Task exception was never retrieved: ToolCallError (fail): disk full',
    ],
    [
      'an unknown tool in a task',
      'import asyncio\nt = asyncio.create_task(tools.nope())\nawait tools.echo(n=0)\nawait asyncio.sleep(0)\nprint("after")\nreturn 1',
      'Task exception was never retrieved: ToolCallError (nope): Unknown tool "nope". Available tools: echo, fail',
    ],
    [
      'a future given an exception and left alone',
      'import asyncio\nfut = asyncio.get_running_loop().create_future()\nfut.set_exception(KeyError("k"))\nprint("after")\nreturn 1',
      "Future exception was never retrieved: KeyError: 'k'",
    ],
    [
      'a gather nobody awaits',
      'import asyncio\nasync def bad():\n    raise OSError("gone")\ng = asyncio.gather(bad())\nawait asyncio.sleep(0)\nawait asyncio.sleep(0)\nprint("after")\nreturn 1',
      'Future exception was never retrieved: OSError: gone (line 3: raise OSError("gone"))',
    ],
    [
      'a TaskGroup-free fan-out whose failures are dropped',
      'import asyncio\nasync def bad(i):\n    raise ValueError(f"no {i}")\nts = [asyncio.create_task(bad(i)) for i in range(3)]\nawait asyncio.sleep(0)\nprint("after")\nreturn 1',
      'Task exception was never retrieved: ValueError: no 0 (line 3: raise ValueError(f"no {i}")) (and 2 more exceptions never retrieved)',
    ],
  ] as const)('%s', async (_kind, program, message) => {
    const out = await runPython(runtime, program, { bindings })
    expect(plain(out)).toEqual({ logs: ['after'], error: unretrieved(message) })
  })

  it("reports the program's own exception rather than one nobody retrieved", async () => {
    const program = 'import asyncio\nasync def f():\n    raise ValueError("ignored")\nasyncio.create_task(f())\nawait asyncio.sleep(0)\nraise TypeError("main")'
    expect(plain(await runPython(runtime, program))).toEqual({ logs: [], error: { kind: 'exception', message: 'TypeError: main (line 6: raise TypeError("main"))' } })
  })

  it.each([
    ['awaited in try/except', 'import asyncio\nasync def f():\n    raise ValueError("x")\nt = asyncio.create_task(f())\ntry:\n    await t\nexcept ValueError as e:\n    print("caught", e)\nreturn 1', ['caught x']],
    [
      'awaited later in the run',
      'import asyncio\nasync def f():\n    raise ValueError("x")\nt = asyncio.create_task(f())\nawait asyncio.sleep(0)\nawait asyncio.sleep(0)\ntry:\n    await t\nexcept ValueError as e:\n    print("late", e)\nreturn 1',
      ['late x'],
    ],
    ['read with exception()', 'import asyncio\nt = asyncio.create_task(tools.fail())\nawait asyncio.wait([t])\nprint(type(t.exception()).__name__)\nreturn 1', ['ToolCallError']],
    [
      'gather with return_exceptions',
      'import asyncio\nrs = await asyncio.gather(tools.fail(), tools.echo(n=2), return_exceptions=True)\nprint([type(r).__name__ for r in rs])\nreturn 1',
      ["['ToolCallError', 'dict']"],
    ],
    [
      'gather whose first failure is caught (the other failures are retrieved by gather)',
      'import asyncio\nasync def bad(i):\n    raise ValueError(i)\ntry:\n    await asyncio.gather(bad(1), bad(2))\nexcept ValueError as e:\n    print("caught", e)\nawait asyncio.sleep(0)\nreturn 1',
      ['caught 1'],
    ],
    [
      'a TaskGroup',
      'import asyncio\nasync def bad():\n    raise ValueError("tg")\ntry:\n    async with asyncio.TaskGroup() as tg:\n        tg.create_task(bad())\nexcept* ValueError as eg:\n    print("caught", len(eg.exceptions))\nreturn 1',
      ['caught 1'],
    ],
    ['a task that succeeds, never awaited', 'import asyncio\nasync def f():\n    print("ran")\nasyncio.create_task(f())\nawait asyncio.sleep(0)\nreturn 1', ['ran']],
    ['a cancelled task, never awaited', 'import asyncio\nt = asyncio.create_task(asyncio.sleep(10))\nawait asyncio.sleep(0)\nt.cancel()\nawait asyncio.sleep(0)\nprint(t.cancelled())\nreturn 1', ['True']],
  ] as const)('does not report an exception that was retrieved: %s', async (_kind, program, logs) => {
    expect(plain(await runPython(runtime, program, { bindings }))).toEqual({ value: 1, logs })
  })

  it('the next run starts clean after an unretrieved exception', async () => {
    const first = await runPython(runtime, 'import asyncio\nasync def f():\n    raise ValueError("left")\nt = asyncio.create_task(f())\nawait asyncio.sleep(0)\nreturn 1')
    expect(plain(first).error).toEqual(unretrieved('Task exception was never retrieved: ValueError: left (line 3: raise ValueError("left"))'))
    expect(plain(await runPython(runtime, 'import asyncio\nawait asyncio.sleep(0)\nreturn 2'))).toEqual({ value: 2, logs: [] })
  })
})

describe('a run that can never progress ends at once', () => {
  it.each([
    ['a future nobody resolves', 'import asyncio\nprint("before")\nawait asyncio.get_running_loop().create_future()'],
    ['a bare asyncio.Future()', 'import asyncio\nprint("before")\nawait asyncio.Future()\nreturn 1'],
    ['an Event nobody sets', 'import asyncio\nprint("before")\nawait asyncio.Event().wait()\nreturn 1'],
    ['tasks all waiting on futures nobody resolves', 'import asyncio\nprint("before")\nasync def wait():\n    await asyncio.Future()\nawait asyncio.gather(wait(), wait())'],
    ['a queue nobody fills', 'import asyncio\nprint("before")\nq = asyncio.Queue()\nawait q.get()'],
    [
      'a program that swallows the cancellation and waits again',
      'import asyncio\nprint("before")\ntry:\n    await asyncio.Future()\nexcept asyncio.CancelledError:\n    pass\nawait asyncio.Future()',
    ],
  ] as const)('%s', async (_kind, program) => {
    expect(plain(await runPython(runtime, program, { limits: NO_WALL }))).toEqual({ logs: ['before'], error: { kind: 'timeout', message: STALLED_MESSAGE } })
  })

  it('is not ended while a tool call is in flight, even when it waits', async () => {
    const calls: JsonValue[] = []
    const slow: HostFunction = async (arg) => {
      calls.push(arg)
      await sleep(150)
      return 'slept'
    }
    const program = 'import asyncio\nnever = asyncio.Future()\ndone, _ = await asyncio.wait([never, asyncio.ensure_future(tools.slow(ms=150))], return_when=asyncio.FIRST_COMPLETED)\nreturn done.pop().result()'
    expect(plain(await runPython(runtime, program, { bindings: { slow }, limits: NO_WALL }))).toEqual({ value: 'slept', logs: [] })
    expect(calls).toEqual([{ ms: 150 }])
  })

  it('is not ended while a timer is pending (asyncio.sleep)', async () => {
    const program = 'import asyncio\nawait asyncio.sleep(0.2)\nreturn "woke"'
    expect(plain(await runPython(runtime, program, { limits: NO_WALL }))).toEqual({ value: 'woke', logs: [] })
  })

  it('ends once the last tool call has settled and nothing else can', async () => {
    const order: string[] = []
    const slow: HostFunction = async () => {
      order.push('started')
      await sleep(100)
      order.push('settled')
      return 'slept'
    }
    const program = 'import asyncio\nasync def late():\n    print("late", await tools.slow())\nt = asyncio.create_task(late())\nawait asyncio.Future()'
    expect(plain(await runPython(runtime, program, { bindings: { slow }, limits: NO_WALL }))).toEqual({ logs: ['late slept'], error: { kind: 'timeout', message: STALLED_MESSAGE } })
    expect(order).toEqual(['started', 'settled'])
  })

  it('the next run works after a stalled one', async () => {
    expect(plain(await runPython(runtime, 'import asyncio\nawait asyncio.Future()', { limits: NO_WALL })).error).toEqual({ kind: 'timeout', message: STALLED_MESSAGE })
    expect(plain(await runPython(runtime, 'import asyncio\nawait asyncio.sleep(0.01)\nreturn 3'))).toEqual({ value: 3, logs: [] })
  })
})

describe('work the program left pending is cancelled and named (issue 34, item 6)', () => {
  it('a task still pending, a task waiting on a tool call, and a timer of its own; the next run sees none of them', async () => {
    const slow: HostFunction = () => sleep(300).then(() => 'slow done')
    const program = [
      'import asyncio',
      'async def waiter():',
      '    await asyncio.sleep(10)',
      'async def fetch():',
      '    return await tools.slow()',
      'asyncio.create_task(waiter(), name="waiter")',
      'asyncio.create_task(fetch())',
      'asyncio.get_running_loop().call_later(5, print, "late")',
      'await asyncio.sleep(0)',
      'return "returned"',
    ].join('\n')
    const out = await runPython(runtime, program, { bindings: { slow } })
    expect(out.value).toBe('returned')
    expect(out.notes).toEqual([
      'note: the task "waiter" (coroutine waiter) was still pending when the program ended: it was cancelled',
      'note: the task running fetch() was still pending when the program ended: it was cancelled',
      'note: the loop.call_later timer (callback print, due in 5.0 s) had not fired when the program ended: it was cancelled',
    ])
    // The cancelled timer never prints into a later run.
    const next = await runPython(runtime, 'import asyncio\nawait asyncio.sleep(0.05)\nreturn 1')
    expect(plain(next)).toEqual({ value: 1, logs: [] })
  })

  it('also when the program raises; nothing is noted when nothing was left', async () => {
    const raised = await runPython(runtime, 'import asyncio\nasyncio.get_running_loop().call_later(2, print, "x")\nraise ValueError("stop")')
    expect(plain(raised)).toEqual({
      logs: [],
      error: { kind: 'exception', message: 'ValueError: stop (line 3: raise ValueError("stop"))' },
      notes: ['note: the loop.call_later timer (callback print, due in 2.0 s) had not fired when the program ended: it was cancelled'],
    })
    const clean = await runPython(runtime, 'import asyncio\nt = asyncio.create_task(asyncio.sleep(0.01))\nawait t\nreturn 2')
    expect(plain(clean)).toEqual({ value: 2, logs: [] })
  })
})
