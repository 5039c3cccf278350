/**
 * The runtime side of suspension (`determinism.ts`, `SubCallParked`): a parked sub-call keeps the
 * program's promise pending and the run ends as suspended once nothing else can progress; the
 * seed and the clock journal it reports replay the same random numbers and clock reads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { JsonValue } from '@deepseek-ai/dsh-tools'
import { checkDeterminism } from '../src/runtime/determinism'
import { SubCallParked } from '../src/runtime/host-call'
import { createQuickJsRuntime, type QuickJsCodeRuntime } from '../src/runtime/quickjs'
import type { HostFunction, RunDeterminism, RunOutput } from '../src/runtime/types'
import { SMALL_LIMITS, addTool, sleep } from './runtime-helpers'

const park: HostFunction = async () => {
  throw new SubCallParked('ask')
}

function run(runtime: QuickJsCodeRuntime, program: string, bindings: Record<string, HostFunction>, determinism?: RunDeterminism): Promise<RunOutput> {
  return runtime.run({ program, bindings, signal: new AbortController().signal, limits: SMALL_LIMITS, ...(determinism === undefined ? {} : { determinism }) })
}

for (const thread of ['worker', 'main'] as const) {
  describe(`suspension (${thread} thread)`, () => {
    const runtime = createQuickJsRuntime({ thread })
    beforeAll(() => runtime.warmUp(SMALL_LIMITS.memoryBytes))
    afterAll(() => runtime.dispose())

    it('says it can suspend', () => {
      expect(runtime.suspendable).toBe(true)
    })

    it('ends as suspended when the program waits on a parked call, after the other calls settled', async () => {
      const slow: HostFunction = async (arg) => {
        await sleep(20)
        return arg
      }
      const out = await run(runtime, 'console.log("before"); const [a, b] = await Promise.all([tools.slow({ n: 1 }), tools.ask({})]); console.log("after"); return a', { slow, ask: park })
      expect(out.error).toBeUndefined()
      expect(out.value).toBeUndefined()
      expect(out.logs).toEqual(['before'])
      expect(out.suspended?.parked).toBe(1)
      expect(checkDeterminism(out.suspended?.determinism)).toBeUndefined()
      expect(out.stats?.subCalls).toBe(2)
    })

    it('keeps running what does not depend on the parked call, and parks several together', async () => {
      const out = await run(
        runtime,
        'const p = tools.ask({ i: 1 }); const q = tools.ask({ i: 2 }); const s = await tools.add({ a: 1, b: 2 }); console.log(s.sum); await Promise.all([p, q]); console.log("never")',
        { ask: park, add: addTool },
      )
      expect([out.logs, out.suspended?.parked, out.error]).toEqual([['3'], 2, undefined])
    })

    it('a program that catches nothing and waits on nothing else still stalls as before without a parked call', async () => {
      const out = await run(runtime, 'await new Promise(() => {})', {})
      expect(out.suspended).toBeUndefined()
      expect(out.error?.kind).toBe('timeout')
    })

    it('a program that finishes without awaiting its parked call returns normally', async () => {
      const out = await run(runtime, 'tools.ask({}); return 5', { ask: park })
      expect([out.value, out.suspended]).toEqual([5, undefined])
    })

    it('replays Math.random and the clock from the reported determinism', async () => {
      const program = `
        const r = [Math.random(), Math.random()]
        const t = [Date.now(), new Date().getTime(), typeof Date(), new Date(5).getTime(), new Date() instanceof Date]
        const v = await tools.ask({ r, t })
        return { r, t, v, more: Math.random() }`
      const first = await run(runtime, program, { ask: park })
      const d = first.suspended?.determinism as RunDeterminism
      expect(d.clock.length).toBeGreaterThanOrEqual(2)
      expect(d.clock.filter((_, i) => i % 2 === 1).reduce((a, b) => a + b, 0)).toBe(4)
      await sleep(5)
      const seen: JsonValue[] = []
      const answer: HostFunction = async (arg) => {
        seen.push(arg)
        return 'ok'
      }
      const again = await run(runtime, program, { ask: answer }, d)
      const third = await run(runtime, program, { ask: answer }, d)
      expect(again.error).toBeUndefined()
      expect(again.value).toEqual(third.value)
      const value = again.value as { r: number[]; t: [number, number, string, number, boolean]; v: string; more: number }
      expect(seen[0]).toEqual({ r: value.r, t: value.t })
      expect(value.t[2]).toBe('string')
      expect([value.t[3], value.t[4], value.v]).toEqual([5, true, 'ok'])
      expect(value.r.every((x) => x >= 0 && x < 1) && value.r[0] !== value.r[1]).toBe(true)
    })

    it('draws different numbers in runs without a replay', async () => {
      const a = await run(runtime, 'return Math.random()', {})
      const b = await run(runtime, 'return Math.random()', {})
      expect(a.value).not.toBe(b.value)
    })
  })
}
