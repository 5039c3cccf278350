/**
 * Suspension in the Python runtime: a parked sub-call (`SubCallParked`, its approval deferred)
 * keeps the program's `await` pending; once nothing else can progress the run ends as suspended
 * with its seed and clock journals, and a run given them replays `random`, `time` and
 * `datetime` exactly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { JsonValue } from '@deepseek-ai/dsh-tools'
import { checkDeterminism, SubCallParked, type HostFunction, type RunDeterminism } from '@deepseek-ai/dsh-tool-executor-ptc'
import { createPythonRuntime } from '../src/index'
import { BOOT_MS, LIMITS } from './helpers'

const runtime = createPythonRuntime()
beforeAll(() => runtime.warmUp(), BOOT_MS)
afterAll(() => runtime.dispose())

const park: HostFunction = async () => {
  throw new SubCallParked('ask')
}
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

function run(program: string, bindings: Record<string, HostFunction>, determinism?: RunDeterminism) {
  return runtime.run({ program, bindings, signal: new AbortController().signal, limits: LIMITS, ...(determinism === undefined ? {} : { determinism }) })
}

describe('suspension (Python)', () => {
  it('says it can suspend', () => {
    expect(runtime.suspendable).toBe(true)
  })

  it('ends as suspended once the calls that settle have settled, with several parked together', async () => {
    const slow: HostFunction = async (arg) => {
      await sleep(20)
      return arg
    }
    const out = await run('import asyncio\nprint("before")\na, b, c = await asyncio.gather(tools.slow(n=1), tools.ask(i=1), tools.ask(i=2))\nprint("after")\nreturn a', { slow, ask: park })
    expect([out.error, out.value, out.logs, out.suspended?.parked, out.stats?.subCalls]).toEqual([undefined, undefined, ['before'], 2, 3])
    expect(checkDeterminism(out.suspended?.determinism)).toBeUndefined()
  })

  it('a program that never awaits its parked call returns normally', async () => {
    const out = await run('import asyncio\nt = asyncio.ensure_future(tools.ask())\nawait asyncio.sleep(0)\nt.cancel()\nreturn 5', { ask: park })
    expect([out.value, out.suspended, out.error]).toEqual([5, undefined, undefined])
  })

  it('replays random, time and datetime from the reported determinism', async () => {
    const program = [
      'import random, time, datetime',
      'r = [random.random(), random.randint(1, 10**9)]',
      't = [time.time(), time.time_ns(), time.monotonic(), time.perf_counter_ns(), datetime.datetime.now().isoformat(), datetime.date.today().isoformat()]',
      'v = await tools.ask(r=r, t=t)',
      'return {"r": r, "t": t, "v": v, "more": random.random()}',
    ].join('\n')
    const first = await run(program, { ask: park })
    const d = first.suspended?.determinism as RunDeterminism
    expect(d.clock.filter((_, i) => i % 2 === 1).reduce((a, b) => a + b, 0)).toBe(4)
    expect(d.perf.filter((_, i) => i % 2 === 1).reduce((a, b) => a + b, 0)).toBe(2)
    await sleep(5)
    const seen: JsonValue[] = []
    const answer: HostFunction = async (arg) => {
      seen.push(arg)
      return 'ok'
    }
    const again = await run(program, { ask: answer }, d)
    const third = await run(program, { ask: answer }, d)
    expect(again.error).toBeUndefined()
    expect(again.value).toEqual(third.value)
    const value = again.value as { r: JsonValue; t: JsonValue; v: string }
    expect(seen[0]).toEqual({ r: value.r, t: value.t })
    expect(value.v).toBe('ok')
  })
})
