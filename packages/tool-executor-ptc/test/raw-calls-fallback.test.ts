/**
 * Without quickjs-emscripten's internals (`rawCalls` gives `undefined`, as it would after a
 * release that renamed them), the engine keeps the public API for a sub-call's deliveries, and a
 * program's sub-calls, their failures and its output are the same. The engine runs on the main
 * thread here, where the module mock applies.
 */
import { describe, expect, it, vi } from 'vitest'
import { addTool, failingTool, mainThreadRuntime, plain, runProgram } from './runtime-helpers'

const used = vi.hoisted(() => ({ raw: 0 }))
vi.mock('../src/runtime/raw-calls', () => ({
  rawCalls: () => {
    used.raw++
    return undefined
  },
}))

const runtime = mainThreadRuntime()

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
    const out = await runProgram(runtime, program, { bindings: { add: addTool, fail: failingTool } })
    expect(plain(out)).toEqual({ value: 20, logs: ['ToolCallError: disk full', '[{"sum":2},{"sum":"é✓"}]'] })
    expect(used.raw).toBeGreaterThan(0)
  })
})
