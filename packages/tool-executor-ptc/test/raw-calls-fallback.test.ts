/**
 * Without quickjs-emscripten's internals (`rawCalls` gives `undefined`, as it would after a
 * release that renamed them), the engine keeps the public API for a sub-call's deliveries, and a
 * program's sub-calls, their failures and its output are the same. The engine runs on the main
 * thread here, where the module mock applies.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createQuickJsRuntime } from '../src/runtime/quickjs'
import type { HostFunction } from '../src/runtime/types'
import { SMALL_LIMITS, plain, runProgram } from './runtime-helpers'

const used = vi.hoisted(() => ({ raw: 0 }))
vi.mock('../src/runtime/raw-calls', () => ({
  rawCalls: () => {
    used.raw++
    return undefined
  },
}))

const runtime = createQuickJsRuntime({ thread: 'main' })
beforeAll(async () => {
  await runtime.warmUp(SMALL_LIMITS.memoryBytes)
})
afterAll(() => {
  runtime.dispose()
})

const add: HostFunction = async (arg) => {
  const { a, b } = arg as { a: number; b: number }
  return { sum: a + b }
}
const failing: HostFunction = async () => {
  throw { name: 'ToolCallError', toolName: 'fail', message: 'disk full' }
}

describe('sub-calls through the public API', () => {
  it('delivers results and rejections in order, with exact texts', async () => {
    const program = [
      'let s = 0',
      'for (let i = 0; i < 5; i++) { const r = await tools.add({ a: i, b: 2 }); s += r.sum }',
      "try { await tools.fail({}) } catch (e) { console.log(String(e)) }",
      "const all = await Promise.all([tools.add({ a: 1, b: 1 }), tools.add({ a: 'é✓', b: '' })])",
      'console.log(JSON.stringify(all))',
      'return s',
    ].join('\n')
    const out = await runProgram(runtime, program, { bindings: { add, fail: failing } })
    expect(plain(out)).toEqual({ value: 20, logs: ['ToolCallError: disk full', '[{"sum":2},{"sum":"é✓"}]'] })
    expect(used.raw).toBeGreaterThan(0)
  })
})
